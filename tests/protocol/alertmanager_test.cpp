#include "parsed_helpers.hpp"
#include "protocol/alertmanager.hpp"
#include "protocol/hash.hpp"
#include "support/bodies.hpp"

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

// A webhook body as Alertmanager sends it (payload version 4, every documented field).
const char* alertmanager_v4_body = R"({
  "version": "4",
  "groupKey": "{}/{severity=\"critical\"}:{alertname=\"ProbeFailure\"}",
  "truncatedAlerts": 0,
  "status": "firing",
  "receiver": "belay",
  "groupLabels": {"alertname": "ProbeFailure"},
  "commonLabels": {"alertname": "ProbeFailure", "job": "http_checks"},
  "commonAnnotations": {},
  "externalURL": "http://alertmanager.example.org:9093",
  "alerts": [
    {
      "status": "firing",
      "labels": {"alertname": "ProbeFailure", "instance": "https://server.example.org",
                 "job": "http_checks", "severity": "critical"},
      "annotations": {"summary": "BlackBox Probe Failure: https://server.example.org",
                      "description": "Instance has been down for over 5m."},
      "startsAt": "2026-11-29T18:08:45.828Z",
      "endsAt": "0001-01-01T00:00:00Z",
      "generatorURL": "http://prometheus.example.org:9090/graph?g0.expr=probe_success+%3D%3D+0",
      "fingerprint": "1a30ba71cca2921f"
    },
    {
      "status": "resolved",
      "labels": {"alertname": "ProbeFailure", "instance": "https://api.example.org",
                 "job": "http_checks", "severity": "warning"},
      "annotations": {},
      "startsAt": "2026-11-29T17:58:45.828Z",
      "endsAt": "2026-11-29T18:13:45.828Z",
      "generatorURL": "http://prometheus.example.org:9090/graph?g0.expr=probe_success+%3D%3D+0",
      "fingerprint": "b3c4a5d6e7f80912"
    }
  ]
})";

am_alert single_alert(const std::string& alert) {
  auto webhook = value_of(parse_alertmanager(belay::test::alertmanager_body(alert)));
  REQUIRE(webhook.alerts.size() == 1);
  return webhook.alerts[0];
}

} // namespace

TEST_CASE("Alertmanager's v4 webhook body yields one alert per entry") {
  auto webhook = value_of(parse_alertmanager(alertmanager_v4_body));
  CHECK(webhook.version == "4");
  CHECK(webhook.status == "firing");
  REQUIRE(webhook.alerts.size() == 2);

  const am_alert& firing = webhook.alerts[0];
  CHECK(firing.status == "firing");
  CHECK(firing.dedup_key == "1a30ba71cca2921f");
  CHECK(firing.title == "BlackBox Probe Failure: https://server.example.org");
  CHECK(firing.severity == "critical");

  const am_alert& resolved = webhook.alerts[1];
  CHECK(resolved.status == "resolved");
  CHECK(resolved.dedup_key == "b3c4a5d6e7f80912");
  CHECK(resolved.title == "ProbeFailure"); // no summary: the alert name
  CHECK(resolved.severity == "warning");
}

TEST_CASE("the alert itself is kept as evidence, unknown fields included") {
  auto alert = single_alert(
      R"({"status":"firing","labels":{"a":"b"},"fingerprint":"f","x-extra":{"n":1}})");
  auto payload = json(alert.payload_json);
  CHECK(str(payload["fingerprint"]) == "f");
  CHECK(payload["x-extra"]["n"].GetInt() == 1);
}

TEST_CASE("title falls back from summary to alertname to \"alert\"") {
  CHECK(single_alert(R"({"status":"firing","labels":{"alertname":"A"},
                        "annotations":{"summary":"S"}})")
            .title == "S");
  CHECK(single_alert(R"({"status":"firing","labels":{"alertname":"A"},
                        "annotations":{"summary":""}})")
            .title == "A");
  CHECK(single_alert(R"({"status":"firing","labels":{}})").title == "alert");
}

TEST_CASE("a summary longer than a title may be is cut, not refused") {
  auto alert =
      single_alert(R"({"status":"firing","labels":{},"annotations":{"summary":")" +
                   std::string(2000, 's') + "\"}}");
  CHECK(alert.title.size() == 1024);
}

TEST_CASE("severity label maps to belay severities, page and unknown to critical") {
  auto severity = [](const std::string& label) {
    return single_alert(R"({"status":"firing","labels":{"severity":")" + label + "\"}}")
        .severity;
  };
  CHECK(severity("info") == "info");
  CHECK(severity("warning") == "warning");
  CHECK(severity("Error") == "error");
  CHECK(severity("page") == "critical");
  CHECK(severity("disaster") == "critical");
  CHECK(single_alert(R"({"status":"firing","labels":{}})").severity == "critical");
}

TEST_CASE("without a fingerprint the dedup key is the sorted label set") {
  auto alert =
      single_alert(R"({"status":"firing","labels":{"job":"node","alertname":"Down"}})");
  CHECK(alert.dedup_key == R"({alertname="Down",job="node"})");
  auto empty_fingerprint = single_alert(
      R"({"status":"firing","labels":{"job":"node","alertname":"Down"},"fingerprint":""})");
  CHECK(empty_fingerprint.dedup_key == alert.dedup_key);
}

TEST_CASE(
    "an alert kept without a secret-named label, sent again, makes the same incident") {
  const auto alert = single_alert(
      R"({"status":"firing","labels":{"alertname":"Down","api_key":"k1"},"fingerprint":""})");
  CHECK(alert.dedup_key == R"({alertname="Down",api_key="k1"})");
  auto payload = json(alert.payload_json);
  CHECK(!payload["labels"].HasMember("api_key"));
  CHECK(str(payload["fingerprint"]) == alert.dedup_key);
  CHECK(single_alert(alert.payload_json).dedup_key == alert.dedup_key);
}

TEST_CASE("label values are escaped so different label sets never share a key") {
  CHECK(dedup_key_from_labels({{"a", "x\",b=\"y"}}) !=
        dedup_key_from_labels({{"a", "x"}, {"b", "y"}}));
  CHECK(dedup_key_from_labels({{"a", "q\"\\\n"}}) == R"({a="q\"\\\n"})");
  CHECK(dedup_key_from_labels({}) == "{}");
}

TEST_CASE("a label set too long for a dedup key is hashed") {
  std::vector<std::pair<std::string, std::string>> labels{
      {"long", std::string(300, 'v')}};
  const std::string rendered = "{long=\"" + std::string(300, 'v') + "\"}";
  CHECK(dedup_key_from_labels(labels) == "labels:" + belay::sha256_hex(rendered));
}

TEST_CASE("alerts must be present and an array") {
  auto missing = error_of(parse_alertmanager(R"({"version":"4"})"));
  CHECK(missing.code == "missing_field");
  CHECK(missing.field == "alerts");
  auto wrong = error_of(parse_alertmanager(R"({"alerts":{}})"));
  CHECK(wrong.code == "wrong_type");
  CHECK(wrong.field == "alerts");
}

TEST_CASE("an empty alerts array is fine") {
  CHECK(value_of(parse_alertmanager(R"({"alerts":[]})")).alerts.empty());
}

TEST_CASE("each alert must be an object, named by its index") {
  auto e = error_of(
      parse_alertmanager(R"({"alerts":[{"status":"firing","labels":{}},"oops"]})"));
  CHECK(e.code == "wrong_type");
  CHECK(e.field == "alerts[1]");
}

TEST_CASE("alert status must be firing or resolved") {
  auto e = error_of(parse_alertmanager(R"({"alerts":[
    {"status":"firing","labels":{}},{"status":"firing","labels":{}},
    {"status":"firing","labels":{}},{"status":"pending","labels":{}}]})"));
  CHECK(e.code == "invalid_value");
  CHECK(e.field == "alerts[3].status");
  auto missing = error_of(parse_alertmanager(R"({"alerts":[{"labels":{}}]})"));
  CHECK(missing.code == "missing_field");
  CHECK(missing.field == "alerts[0].status");
}

TEST_CASE("alert labels must be an object of strings") {
  auto missing = error_of(parse_alertmanager(R"({"alerts":[{"status":"firing"}]})"));
  CHECK(missing.code == "missing_field");
  CHECK(missing.field == "alerts[0].labels");
  auto wrong =
      error_of(parse_alertmanager(R"({"alerts":[{"status":"firing","labels":[]}]})"));
  CHECK(wrong.code == "wrong_type");
  CHECK(wrong.field == "alerts[0].labels");
  auto value = error_of(
      parse_alertmanager(R"({"alerts":[{"status":"firing","labels":{"severity":3}}]})"));
  CHECK(value.code == "wrong_type");
  CHECK(value.field == "alerts[0].labels.severity");
}

TEST_CASE("annotations, when present, must be an object") {
  auto e = error_of(parse_alertmanager(
      R"({"alerts":[{"status":"firing","labels":{},"annotations":"x"}]})"));
  CHECK(e.code == "wrong_type");
  CHECK(e.field == "alerts[0].annotations");
}

TEST_CASE("malformed Alertmanager JSON is invalid_json") {
  CHECK(error_of(parse_alertmanager("{\"alerts\":[")).code == "invalid_json");
}

TEST_CASE("counts render as the four numbers") {
  CHECK(render_am_counts({2, 1, 3, 0}) ==
        R"({"created":2,"deduplicated":1,"resolved":3,"ignored":0})");
}

TEST_CASE("a fingerprint too long for a dedup key is hashed") {
  const std::string fingerprint(300, 'f');
  auto alert = single_alert(R"({"status":"firing","labels":{},"fingerprint":")" +
                            fingerprint + "\"}");
  CHECK(alert.dedup_key == "fingerprint:" + belay::sha256_hex(fingerprint));
}
