#include "protocol/log_line.hpp"

#include "protocol/bundle_text.hpp"
#include "protocol/text.hpp"
#include "protocol/wording.hpp"

namespace belay::protocol {

std::string log_line(const page& p, std::string_view channel) {
  const auto& incident = p.incident;
  const std::string via = " via log channel '" + one_line(channel) + "': ";
  const std::string to =
      " to '" + one_line(p.target) + "' (key " + one_line(p.idempotency_key) + ")";
  switch (kind_of(p)) {
  case page_kind::status_update:
    return "status update" + via +
           status_update_text(incident, p.update, one_line(p.message)) + to;
  case page_kind::bundle: // a log channel does not bundle; said whole if one ever did
    return (p.update.empty() ? "bundle" : "status update bundle") + via +
           (p.update.empty() ? bundle_headline(p) + ": " + bundle_list(p, 4000, 200)
                             : bundle_update_text(p, 4000)) +
           to;
  case page_kind::answerable: // the link is a credential: never logged
  case page_kind::plain:
    break;
  }
  return "page" + via + "incident " + std::to_string(incident.id) + " \"" +
         one_line(incident.title) + "\" [" + severity_label(incident) + "]" + to;
}

} // namespace belay::protocol
