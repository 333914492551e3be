#include "actors/transport/channels.hpp"
#include "actors/transport/curl.hpp"
#include "protocol/hash.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace belay::transport {

namespace {

void string_field(rapidjson::Writer<rapidjson::StringBuffer>& writer, const char* key,
                  const std::string& value) {
  writer.Key(key);
  writer.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

} // namespace

std::string webhook_body(const page& p) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("id");
  writer.Int64(p.incident.id);
  string_field(writer, "dedupKey", p.incident.dedup_key);
  string_field(writer, "title", p.incident.title);
  string_field(writer, "severity", p.incident.severity);
  string_field(writer, "status", p.incident.status);
  writer.Key("loop");
  writer.Int(p.loop);
  writer.Key("step");
  writer.Int(p.step);
  string_field(writer, "target", p.target);
  writer.Key("attempt");
  writer.Int(p.attempt);
  if (!p.update.empty()) { // a status update: what happened, by whom, how
    const bool acked = p.update == "acknowledged";
    string_field(writer, "update", p.update);
    string_field(writer, "by", acked ? p.incident.acked_by : p.incident.resolved_by);
    string_field(writer, "via", acked ? p.incident.acked_via : p.incident.resolved_via);
  }
  if (!p.answer_url.empty())
    string_field(writer, "ackUrl", p.answer_url); // the answer page (DESIGN.md 11)
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

namespace detail {

send_result send_webhook(const channel_config& channel, const page& p) {
  if (auto refused = refuse_scheme(channel.url, {"http", "https"}, "webhook"))
    return *refused;
  http_post request;
  request.what = "webhook";
  request.url = channel.url;
  request.body = webhook_body(p);
  request.timeout_seconds = channel.timeout_seconds;
  request.headers = {"Content-Type: application/json",
                     "Idempotency-Key: " + header_safe(p.idempotency_key)};
  if (!channel.secret.empty())
    request.headers.push_back("X-Belay-Signature: sha256=" +
                              hmac_sha256_hex(channel.secret, request.body));
  request.secrets = {channel.secret};
  return post(request);
}

} // namespace detail

} // namespace belay::transport
