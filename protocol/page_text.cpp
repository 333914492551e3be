#include "protocol/page_text.hpp"

#include "protocol/markup.hpp"
#include "protocol/slack_action.hpp"

namespace belay::protocol {

namespace {

// Enough to recognise an incident; SMS segments and subjects are short.
constexpr std::size_t max_sms_title_chars = 160;
constexpr std::size_t max_subject_title_chars = 200;
// Slack allows 3,000 characters in a section's text; escaping may grow a title fivefold.
constexpr std::size_t max_slack_title_chars = 500;

std::string upper(std::string text) {
  for (char& c : text)
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
  return text;
}

std::string severity_label(const incident_record& incident) {
  return upper(one_line(incident.severity));
}

std::string incident_label(const incident_record& incident) {
  return "incident #" + std::to_string(incident.id);
}

std::string without_trailing_slashes(std::string_view url) {
  while (!url.empty() && url.back() == '/')
    url.remove_suffix(1);
  return std::string{url};
}

void write_text_object(json_writer& w, const char* type, std::string_view text) {
  w.StartObject();
  w.Key("type");
  w.String(type);
  w.Key("text");
  write_string(w, text);
  w.EndObject();
}

void write_button(json_writer& w, std::string_view action_id, const char* label,
                  const char* style, std::string_view token) {
  w.StartObject();
  w.Key("type");
  w.String("button");
  w.Key("action_id");
  write_string(w, action_id);
  w.Key("text");
  write_text_object(w, "plain_text", label);
  if (style) {
    w.Key("style");
    w.String(style);
  }
  w.Key("value");
  write_string(w, token);
  w.EndObject();
}

} // namespace

std::string answer_url(std::string_view public_url, std::string_view token) {
  return without_trailing_slashes(public_url) + "/a/" + std::string{token};
}

std::string twilio_voice_url(std::string_view public_url, std::string_view token) {
  return without_trailing_slashes(public_url) +
         "/api/v1/integrations/twilio/voice?t=" + std::string{token};
}

std::string render_sms_page(const incident_record& incident,
                            std::string_view answer_url) {
  return "[belay] " + severity_label(incident) + " " +
         one_line(clip(incident.title, max_sms_title_chars)) + " (" +
         incident_label(incident) + ")\nReply 1 to acknowledge, 2 to resolve\n" +
         std::string{answer_url};
}

std::string sms_outcome_text(answer_outcome outcome, const incident_record& incident,
                             std::string_view by) {
  return answer_outcome_text(outcome, incident, by) + ": #" +
         std::to_string(incident.id) + " " +
         one_line(clip(incident.title, max_sms_title_chars));
}

std::string render_status_update(const incident_record& incident,
                                 std::string_view update) {
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

std::string sms_incident_not_paged(int64_t id) {
  return "Incident #" + std::to_string(id) + " did not page this number.";
}

email_parts render_email_page(const incident_record& incident,
                              std::string_view answer_url) {
  const std::string severity = severity_label(incident);
  const std::string status = one_line(incident.status);
  const std::string title = one_line(incident.title);
  const std::string id = "#" + std::to_string(incident.id);
  const std::string url{answer_url};
  email_parts parts;
  parts.subject = "[belay] " + severity + " " + clip(title, max_subject_title_chars) +
                  " (" + incident_label(incident) + ")";
  parts.text = "Incident " + id + ": " + title + "\r\n\r\n" + "Severity: " + severity +
               "\r\n" + "Status:   " + status + "\r\n\r\n" +
               "Acknowledge or resolve it here:\r\n" + url + "\r\n\r\n" +
               "The link answers as you: do not forward it.\r\n";
  parts.html =
      "<!DOCTYPE html>\r\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
      escape_html(title) + "</title></head>\r\n" +
      "<body style=\"font-family:sans-serif;color:#18181b\">\r\n" +
      "<h1 style=\"font-size:18px\">Incident " + id + ": " + escape_html(title) +
      "</h1>\r\n" + "<p>Severity: <b>" + escape_html(severity) + "</b><br>Status: <b>" +
      escape_html(status) + "</b></p>\r\n" + "<p><a href=\"" + escape_html(url) +
      "\" style=\"display:inline-block;padding:10px 16px;background:#18181b;"
      "color:#ffffff;text-decoration:none;border-radius:6px\">Acknowledge or resolve</a>"
      "</p>\r\n" +
      "<p style=\"color:#71717a;font-size:12px\">The link answers as you: do not forward "
      "it.</p>\r\n</body></html>\r\n";
  return parts;
}

void write_slack_page(json_writer& w, const incident_record& incident,
                      std::string_view token, std::string_view answer_url) {
  const std::string severity = severity_label(incident);
  const std::string title = one_line(clip(incident.title, max_slack_title_chars));
  w.Key("text");
  // Slack reads markup in the notification text too.
  write_string(w, escape_slack("[" + severity + "] " + title + " (" +
                               incident_label(incident) + ")"));
  w.Key("blocks");
  w.StartArray();
  w.StartObject();
  w.Key("type");
  w.String("section");
  w.Key("text");
  write_text_object(w, "mrkdwn",
                    ":rotating_light: *" + escape_slack(severity) + "* " +
                        escape_slack(title) + "\nIncident *#" +
                        std::to_string(incident.id) + "* · status " +
                        escape_slack(one_line(incident.status)) + " · <" +
                        escape_slack(answer_url) + "|Open the answer page>");
  w.EndObject();
  // Slack refuses an actions block without elements.
  if (can_acknowledge(incident.status) || can_resolve(incident.status)) {
    w.StartObject();
    w.Key("type");
    w.String("actions");
    w.Key("elements");
    w.StartArray();
    if (can_acknowledge(incident.status))
      write_button(w, slack_ack_action_id, "Acknowledge", "primary", token);
    if (can_resolve(incident.status))
      write_button(w, slack_resolve_action_id, "Resolve", nullptr, token);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

std::string render_slack_page(const incident_record& incident, std::string_view token,
                              std::string_view answer_url) {
  rapidjson::StringBuffer buffer;
  json_writer w(buffer);
  w.StartObject();
  write_slack_page(w, incident, token, answer_url);
  w.EndObject();
  return to_string(buffer);
}

} // namespace belay::protocol
