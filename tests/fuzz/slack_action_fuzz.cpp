// Slack's interactivity requests (POST /api/v1/integrations/slack/actions): the payload
// is read before any signature is checked, since only its token names the channel whose
// secret signed it. A payload is accepted only as a press of one of belay's buttons,
// with the token, the person (username, else name, else id) and the response_url as the
// document holds them, and written back as Slack would send it, it reads the same. The
// body it came in passes Slack's signature check only as signed and only within five
// minutes of its timestamp.
#include "checks.hpp"
#include "protocol/inbound_signatures.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/limits.hpp"
#include "protocol/slack_action.hpp"

using namespace belay;
using namespace belay::fuzz;

namespace {

const std::initializer_list<std::string_view> payload_errors = {
    "invalid_json", "missing_field", "wrong_type", "invalid_value", "too_long"};

// The signing secret of Slack's own example ("Verifying requests from Slack").
const std::string signing_secret = "8f742231b10e8888abcd99yyyzzz85a5";
constexpr micros now = 1'796'115'600'000'000; // 2026-12-01T09:00:00Z
constexpr micros second = 1'000'000;
constexpr micros tolerance = protocol::slack_timestamp_tolerance_seconds * second;

std::string_view text_of(const rapidjson::Value& v) {
  return {v.GetString(), v.GetStringLength()};
}

const rapidjson::Value* member(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject())
    return nullptr;
  auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string_view string_member(const rapidjson::Value& object, const char* name) {
  const auto* v = member(object, name);
  return v && v->IsString() ? text_of(*v) : std::string_view{};
}

// Whether the document holds only text PostgreSQL can store; else the parser refuses it
// naming the string's own path, which does not start with "payload".
bool storable(const rapidjson::Value& v) {
  return every_string(v, [](std::string_view s) { return is_utf8(s) && !has_nul(s); });
}

void check_refusal(const protocol::error& e, std::string_view payload) {
  check_error(e, payload, payload_errors);
  rapidjson::Document doc;
  if (e.code != "invalid_json" && parse_strict(doc, payload) && storable(doc))
    FUZZ_CHECK(e.field == "payload" || e.field.rfind("payload.", 0) == 0);
}

void check_text(std::string_view s, std::size_t max_chars) {
  FUZZ_CHECK(is_utf8(s) && !has_nul(s) && characters(s) <= max_chars);
}

std::string written_back(const protocol::slack_action& a) {
  rapidjson::StringBuffer out;
  protocol::json_writer w(out);
  w.StartObject();
  w.Key("type");
  w.String("block_actions");
  w.Key("user");
  w.StartObject();
  w.Key("username");
  protocol::write_string(w, a.by);
  w.EndObject();
  if (!a.response_url.empty()) {
    w.Key("response_url");
    protocol::write_string(w, a.response_url);
  }
  w.Key("actions");
  w.StartArray();
  w.StartObject();
  w.Key("action_id");
  protocol::write_string(w, a.action == protocol::answer_action::resolve
                                ? protocol::slack_resolve_action_id
                                : protocol::slack_ack_action_id);
  w.Key("value");
  protocol::write_string(w, a.token);
  w.EndObject();
  w.EndArray();
  w.EndObject();
  return protocol::to_string(out);
}

void check_press(const protocol::slack_action& a, std::string_view payload) {
  rapidjson::Document doc;
  FUZZ_CHECK(parse_strict(doc, payload) && doc.IsObject());
  FUZZ_CHECK(string_member(doc, "type") == "block_actions");

  const auto* actions = member(doc, "actions");
  FUZZ_CHECK(actions && actions->IsArray() && !actions->Empty());
  const rapidjson::Value& first = (*actions)[0];
  const auto id = string_member(first, "action_id");
  FUZZ_CHECK(id == (a.action == protocol::answer_action::resolve
                        ? protocol::slack_resolve_action_id
                        : protocol::slack_ack_action_id));
  FUZZ_CHECK(!is_blank(a.token) && a.token == string_member(first, "value"));
  check_text(a.token, 256);

  const auto* user = member(doc, "user");
  FUZZ_CHECK(user && user->IsObject());
  std::string_view expected_by;
  for (const char* name : {"id", "name", "username"})
    if (auto text = string_member(*user, name); !is_blank(text))
      expected_by = text;
  FUZZ_CHECK(!is_blank(a.by) && a.by == expected_by);
  check_text(a.by, protocol::max_name_chars);

  FUZZ_CHECK(a.response_url == string_member(doc, "response_url"));
  check_text(a.response_url, 2048);

  auto again = protocol::parse_slack_action(written_back(a));
  FUZZ_CHECK(std::holds_alternative<protocol::slack_action>(again));
  const auto& b = std::get<protocol::slack_action>(again);
  FUZZ_CHECK(b.action == a.action && b.token == a.token && b.by == a.by &&
             b.response_url == a.response_url);
}

bool signed_ok(std::string_view timestamp, std::string_view body,
               std::string_view signature, micros at) {
  return protocol::slack_signature_valid(signing_secret, timestamp, body, signature, at);
}

// The input as the raw body of a request signed at `now`.
void check_signature(std::string_view body) {
  const std::string timestamp = std::to_string(now / second);
  const std::string signature =
      protocol::slack_signature(signing_secret, timestamp, body);
  FUZZ_CHECK(signed_ok(timestamp, body, signature, now));
  FUZZ_CHECK(signed_ok(timestamp, body, signature, now - tolerance));
  FUZZ_CHECK(signed_ok(timestamp, body, signature, now + tolerance));
  FUZZ_CHECK(!signed_ok(timestamp, body, signature, now - tolerance - second));
  FUZZ_CHECK(!signed_ok(timestamp, body, signature, now + tolerance + second));
  FUZZ_CHECK(!protocol::slack_signature_valid("", timestamp, body, signature, now));
  FUZZ_CHECK(!signed_ok(timestamp, std::string{body} + "&", signature, now));
  if (!body.empty()) {
    std::string altered{body};
    altered[body.size() / 2] ^= static_cast<char>(1 << (body.size() % 8));
    FUZZ_CHECK(!signed_ok(timestamp, altered, signature, now));
  }
}

// A short input as the X-Slack-Request-Timestamp header: only 1 to 12 digits within five
// minutes of `now` pass, even with the signature made over it.
void check_timestamp_header(std::string_view timestamp) {
  if (timestamp.size() > 16)
    return;
  const bool digits = !timestamp.empty() && timestamp.size() <= 12 &&
                      timestamp.find_first_not_of("0123456789") == std::string_view::npos;
  const bool recent =
      digits && std::llabs(std::stoll(std::string{timestamp}) - now / second) <=
                    protocol::slack_timestamp_tolerance_seconds;
  const std::string signature = protocol::slack_signature(signing_secret, timestamp, "");
  FUZZ_CHECK(signed_ok(timestamp, "", signature, now) == recent);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view payload = bytes(data, size);
  auto result = protocol::parse_slack_action(payload);
  if (auto* e = std::get_if<protocol::error>(&result))
    check_refusal(*e, payload);
  else
    check_press(std::get<protocol::slack_action>(result), payload);
  check_signature(payload);
  check_timestamp_header(payload);
  return 0;
}
