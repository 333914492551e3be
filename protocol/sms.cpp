#include "protocol/sms.hpp"

#include "protocol/bundle_text.hpp"
#include "protocol/text.hpp"
#include "protocol/wording.hpp"

namespace belay::protocol {

namespace {

// A page without the way back has room for more of its title: no reply line, no link.
constexpr std::size_t max_plain_title_chars = 300;
// A bundle's list stays within two SMS segments' worth before its reply line and link.
constexpr std::size_t max_bundle_list_chars = 320;
constexpr std::size_t max_bundle_title_chars = 60;

} // namespace

std::string sms_text(const page& p) {
  const auto& incident = p.incident;
  switch (kind_of(p)) {
  case page_kind::status_update:
    return status_update_text(incident, p.update, one_line(p.message));
  case page_kind::answerable:
    return "[belay] " + severity_label(incident) + " " +
           one_line(clip(incident.title, max_sms_title_chars)) + " (" +
           incident_label(incident) + ")\n" +
           (p.message.empty() ? "" : help_request_text(p) + "\n") +
           "Reply 1 to acknowledge, 2 to resolve\n" + p.answer_url;
  case page_kind::bundle:
    if (!p.update.empty())
      return bundle_update_text(p, max_bundle_list_chars);
    return "belay: " + bundle_headline(p) + ": " +
           bundle_list(p, max_bundle_list_chars, max_bundle_title_chars) +
           (p.answer_url.empty()
                ? std::string{}
                : "\nReply 1 to acknowledge all, 2 to resolve all. " + p.answer_url);
  case page_kind::plain:
    break;
  }
  return "[belay] " + severity_label(incident) + " " +
         one_line(clip(incident.title, max_plain_title_chars)) + " - incident " +
         std::to_string(incident.id) + ", " + step_label(p);
}

std::string sms_outcome_text(answer_outcome outcome, const incident_record& incident,
                             std::string_view by) {
  return answer_outcome_text(outcome, incident, by) + ": #" +
         std::to_string(incident.id) + " " +
         one_line(clip(incident.title, max_sms_title_chars));
}

std::string sms_incident_not_paged(int64_t id) {
  return "Incident #" + std::to_string(id) + " did not page this number.";
}

} // namespace belay::protocol
