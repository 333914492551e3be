// Alertmanager webhook bodies (POST /api/v1/integrations/alertmanager): every alert
// that comes out has a usable dedup key, title and severity, and reading an alert's
// stored payload again gives the same alert.
#include "checks.hpp"
#include "protocol/alertmanager.hpp"
#include "protocol/limits.hpp"

#include <algorithm>

using namespace belay;
using namespace belay::fuzz;

namespace {

using label_list = std::vector<std::pair<std::string, std::string>>;

bool is_severity(std::string_view s) {
  for (auto known : protocol::severities)
    if (s == known)
      return true;
  return false;
}

label_list labels_of(const rapidjson::Value& alert) {
  label_list labels;
  for (const auto& m : alert["labels"].GetObject())
    labels.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()),
                        std::string(m.value.GetString(), m.value.GetStringLength()));
  return labels;
}

// The same labels in another order are the same alert.
void check_label_key(const rapidjson::Value& alert, const protocol::am_alert& parsed) {
  label_list labels = labels_of(alert);
  const std::string key = protocol::dedup_key_from_labels(labels);
  std::reverse(labels.begin(), labels.end());
  FUZZ_CHECK(protocol::dedup_key_from_labels(labels) == key);
  auto fingerprint = alert.FindMember("fingerprint");
  const bool has_fingerprint =
      fingerprint != alert.MemberEnd() && fingerprint->value.IsString() &&
      !is_blank({fingerprint->value.GetString(), fingerprint->value.GetStringLength()});
  if (!has_fingerprint)
    FUZZ_CHECK(parsed.dedup_key == key);
}

void check_alert(const protocol::am_alert& a) {
  FUZZ_CHECK(a.status == "firing" || a.status == "resolved");
  FUZZ_CHECK(!is_blank(a.dedup_key));
  FUZZ_CHECK(characters(a.dedup_key) <= protocol::max_dedup_key_chars);
  FUZZ_CHECK(!has_nul(a.dedup_key) && is_utf8(a.dedup_key));
  // Titles are cut, never refused: the cut must not split a character.
  FUZZ_CHECK(!is_blank(a.title));
  FUZZ_CHECK(characters(a.title) <= protocol::max_title_chars);
  FUZZ_CHECK(is_utf8(a.title));
  FUZZ_CHECK(!has_nul(a.title));
  FUZZ_CHECK(is_severity(a.severity));

  rapidjson::Document payload;
  FUZZ_CHECK(parse_strict(payload, a.payload_json));
  FUZZ_CHECK(payload.IsObject() && free_of_nul(payload));
  check_label_key(payload, a);
}

// Alertmanager retries a webhook it got no answer for; a payload kept as evidence and
// sent again must make the same incident.
void check_round_trip(const protocol::am_webhook& w) {
  std::string body = "{\"alerts\":[";
  for (std::size_t i = 0; i < w.alerts.size(); ++i)
    body += (i ? "," : "") + w.alerts[i].payload_json;
  body += "]}";
  auto again = protocol::parse_alertmanager(body);
  FUZZ_CHECK(std::holds_alternative<protocol::am_webhook>(again));
  const auto& alerts = std::get<protocol::am_webhook>(again).alerts;
  FUZZ_CHECK(alerts.size() == w.alerts.size());
  for (std::size_t i = 0; i < alerts.size(); ++i) {
    FUZZ_CHECK(alerts[i].status == w.alerts[i].status);
    FUZZ_CHECK(alerts[i].dedup_key == w.alerts[i].dedup_key);
    FUZZ_CHECK(alerts[i].title == w.alerts[i].title);
    FUZZ_CHECK(alerts[i].severity == w.alerts[i].severity);
    FUZZ_CHECK(alerts[i].payload_json == w.alerts[i].payload_json);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body = bytes(data, size);
  auto result = protocol::parse_alertmanager(body);
  if (auto* e = std::get_if<protocol::error>(&result)) {
    check_error(*e, body,
                {"invalid_json", "missing_field", "wrong_type", "invalid_value"});
    return 0;
  }
  const auto& webhook = std::get<protocol::am_webhook>(result);
  FUZZ_CHECK(!has_nul(webhook.version) && is_utf8(webhook.version));
  FUZZ_CHECK(!has_nul(webhook.status) && is_utf8(webhook.status));
  for (const auto& alert : webhook.alerts)
    check_alert(alert);
  check_round_trip(webhook);
  return 0;
}
