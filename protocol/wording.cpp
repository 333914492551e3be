#include "protocol/wording.hpp"

#include "protocol/text.hpp"

namespace belay::protocol {

std::string severity_label(const incident_record& incident) {
  std::string label = one_line(incident.severity);
  for (char& c : label)
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
  return label;
}

std::string incident_label(const incident_record& incident) {
  return "incident #" + std::to_string(incident.id);
}

std::string step_label(const page& p) {
  std::string label = "step " + std::to_string(p.step + 1);
  if (p.loop > 0)
    label += " (repeat " + std::to_string(p.loop) + ")";
  return label;
}

std::string status_update_text(const incident_record& incident, std::string_view update,
                               std::string_view message) {
  if (update == "status_update")
    return "[belay] Update on #" + std::to_string(incident.id) + " " +
           one_line(clip(incident.title, max_sms_title_chars)) + ": " +
           std::string{message};
  const bool acked = update == "acknowledged";
  const std::string& by = acked ? incident.acked_by : incident.resolved_by;
  const std::string& via = acked ? incident.acked_via : incident.resolved_via;
  std::string text = acked ? "[belay] Acknowledged" : "[belay] Resolved";
  if (!by.empty())
    text += " by " + one_line(by);
  if (!via.empty())
    text += " via " + one_line(via);
  return text + ": #" + std::to_string(incident.id) + " " +
         one_line(clip(incident.title, max_sms_title_chars));
}

std::string help_request_text(const page& p) {
  if (p.message.empty() || !p.update.empty())
    return {};
  return "You are asked to help: " + one_line(clip(p.message, max_help_request_chars));
}

} // namespace belay::protocol
