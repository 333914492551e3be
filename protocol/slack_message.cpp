#include "protocol/slack_message.hpp"

#include "protocol/bundle_text.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/markup.hpp"
#include "protocol/slack_action.hpp"
#include "protocol/text.hpp"
#include "protocol/wording.hpp"

namespace belay::protocol {

namespace {

// Slack allows 3,000 characters in a section's text; escaping may grow a title fivefold.
constexpr std::size_t max_title_chars = 500;
constexpr std::size_t max_plain_title_chars = 1000;

void write_channel(json_writer& w, const page& p) {
  if (p.target.empty())
    return;
  w.Key("channel");
  write_string(w, p.target);
}

void write_text(json_writer& w, std::string_view text) {
  w.Key("text");
  write_string(w, text);
}

void write_text_object(json_writer& w, const char* type, std::string_view text) {
  w.StartObject();
  w.Key("type");
  w.String(type);
  write_text(w, text);
  w.EndObject();
}

void write_section(json_writer& w, std::string_view mrkdwn) {
  w.StartObject();
  w.Key("type");
  w.String("section");
  w.Key("text");
  write_text_object(w, "mrkdwn", mrkdwn);
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

// Slack refuses an actions block without elements: none when no answer applies.
void write_actions(json_writer& w, const std::string& status, std::string_view token,
                   bool all = false) {
  if (!can_acknowledge(status) && !can_resolve(status))
    return;
  w.StartObject();
  w.Key("type");
  w.String("actions");
  w.Key("elements");
  w.StartArray();
  if (can_acknowledge(status))
    write_button(w, slack_ack_action_id, all ? "Acknowledge all" : "Acknowledge",
                 "primary", token);
  if (can_resolve(status))
    write_button(w, slack_resolve_action_id, all ? "Resolve all" : "Resolve", nullptr,
                 token);
  // One incident's page may also be escalated now or snoozed for an hour.
  if (!all && (status == "OPEN" || status == "ACKNOWLEDGED")) {
    write_button(w, slack_escalate_action_id, "Escalate", nullptr, token);
    write_button(w, slack_snooze_action_id, "Snooze 1 h", nullptr, token);
  }
  w.EndArray();
  w.EndObject();
}

std::string headline(const incident_record& incident, std::size_t max_chars) {
  return ":rotating_light: *" + escape_slack(severity_label(incident)) + "* " +
         escape_slack(one_line(clip(incident.title, max_chars)));
}

std::string status_text(const incident_record& incident) {
  return "status " + escape_slack(one_line(incident.status));
}

} // namespace

std::string slack_body(const page& p) {
  const auto& incident = p.incident;
  rapidjson::StringBuffer buffer;
  json_writer w(buffer);
  w.StartObject();
  switch (kind_of(p)) {
  case page_kind::status_update:
    write_channel(w, p);
    write_text(w, escape_slack(status_update_text(incident, p.update, p.message)));
    break;
  case page_kind::answerable:
    write_channel(w, p);
    // Slack reads markup in the notification text too.
    write_text(w, escape_slack("[" + severity_label(incident) + "] " +
                               one_line(clip(incident.title, max_title_chars)) + " (" +
                               incident_label(incident) + ")"));
    w.Key("blocks");
    w.StartArray();
    write_section(
        w, headline(incident, max_title_chars) + "\nIncident *#" +
               std::to_string(incident.id) + "* · " + status_text(incident) + " · <" +
               escape_slack(p.answer_url) + "|Open the answer page>" +
               (p.message.empty() ? "" : "\n" + escape_slack(help_request_text(p))));
    write_actions(w, incident.status, p.answer_token);
    w.EndArray();
    break;
  case page_kind::bundle:
    write_channel(w, p);
    if (!p.update.empty()) {
      write_text(w, escape_slack(bundle_update_text(p, 2000)));
      break;
    }
    write_text(w, escape_slack("[belay] " + bundle_headline(p)));
    w.Key("blocks");
    w.StartArray();
    write_section(w, ":rotating_light: *" + escape_slack(bundle_headline(p)) + "*\n" +
                         escape_slack(bundle_list(p, 2000, 120)) +
                         (p.answer_url.empty() ? std::string{}
                                               : "\n<" + escape_slack(p.answer_url) +
                                                     "|Open the answer page>"));
    if (!p.answer_token.empty())
      write_actions(w, "OPEN", p.answer_token, true);
    w.EndArray();
    break;
  case page_kind::plain:
    write_text(w, escape_slack("[" + severity_label(incident) + "] " +
                               one_line(clip(incident.title, max_plain_title_chars)) +
                               " (incident " + std::to_string(incident.id) + ", " +
                               step_label(p) + ")"));
    write_channel(w, p);
    w.Key("blocks");
    w.StartArray();
    write_section(w, headline(incident, max_plain_title_chars) + "\nIncident *" +
                         std::to_string(incident.id) + "* · " + step_label(p) + " · " +
                         status_text(incident));
    w.EndArray();
    break;
  }
  w.EndObject();
  return to_string(buffer);
}

} // namespace belay::protocol
