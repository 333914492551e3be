#include "actors/transport/channels.hpp"
#include "actors/transport/curl.hpp"
#include "protocol/page_text.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace belay::transport::detail {

namespace {

void string_value(rapidjson::Writer<rapidjson::StringBuffer>& writer,
                  const std::string& value) {
  writer.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

} // namespace

std::string slack_body(const page& p) {
  if (!p.update.empty()) {
    rapidjson::StringBuffer buffer;
    protocol::json_writer writer(buffer);
    writer.StartObject();
    if (!p.target.empty()) {
      writer.Key("channel");
      protocol::write_string(writer, p.target);
    }
    writer.Key("text");
    protocol::write_string(
        writer, escape_markup(protocol::render_status_update(p.incident, p.update)));
    writer.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
  }
  if (!p.answer_token.empty()) {
    // With the way back: Acknowledge and Resolve buttons whose value is the token.
    rapidjson::StringBuffer buffer;
    protocol::json_writer writer(buffer);
    writer.StartObject();
    if (!p.target.empty()) {
      writer.Key("channel");
      protocol::write_string(writer, p.target);
    }
    protocol::write_slack_page(writer, p.incident, p.answer_token, p.answer_url);
    writer.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
  }
  auto severity = upper_severity(p);
  auto title = escape_markup(one_line(clip(p.incident.title, 1000)));
  auto incident = "incident " + std::to_string(p.incident.id);
  auto fallback =
      "[" + severity + "] " + title + " (" + incident + ", " + step_label(p) + ")";
  auto section = ":rotating_light: *" + severity + "* " + title + "\n" + "Incident *" +
                 std::to_string(p.incident.id) + "* · " + step_label(p) + " · status " +
                 escape_markup(one_line(p.incident.status));

  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("text");
  string_value(writer, fallback);
  if (!p.target.empty()) {
    // Honoured by legacy incoming webhooks; app webhooks post to their own channel.
    writer.Key("channel");
    string_value(writer, p.target);
  }
  writer.Key("blocks");
  writer.StartArray();
  writer.StartObject();
  writer.Key("type");
  writer.String("section");
  writer.Key("text");
  writer.StartObject();
  writer.Key("type");
  writer.String("mrkdwn");
  writer.Key("text");
  string_value(writer, section);
  writer.EndObject();
  writer.EndObject();
  writer.EndArray();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

send_result send_slack(const channel_config& channel, const page& p) {
  // The webhook URL is itself the credential: it never appears in an error.
  if (auto refused = refuse_scheme(channel.url, {"http", "https"}, "slack webhook"))
    return *refused;
  http_post request;
  request.what = "slack webhook";
  request.url = channel.url;
  request.body = slack_body(p);
  request.timeout_seconds = channel.timeout_seconds;
  request.headers = {"Content-Type: application/json",
                     "Idempotency-Key: " + header_safe(p.idempotency_key)};
  request.secrets = {channel.secret};
  return post(request);
}

} // namespace belay::transport::detail
