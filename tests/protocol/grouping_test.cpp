// Group keys (docs/guarantees.md#alerts-and-grouping): alerts with the same values of an
// integration's grouping fields share a key, any difference separates them, and no two
// value lists collide.
#include "protocol/grouping.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;

namespace {

am_alert alert(std::vector<std::pair<std::string, std::string>> labels,
               std::vector<std::pair<std::string, std::string>> annotations = {}) {
  am_alert a;
  a.labels = std::move(labels);
  a.annotations = std::move(annotations);
  return a;
}

} // namespace

TEST_CASE("alertmanager alerts group by label and annotation values") {
  const std::vector<std::string> by{"labels.alertname", "annotations.team"};
  auto disk_a = alert({{"alertname", "DiskFull"}, {"instance", "a"}}, {{"team", "db"}});
  auto disk_b = alert({{"instance", "b"}, {"alertname", "DiskFull"}}, {{"team", "db"}});
  auto cpu = alert({{"alertname", "CPU"}, {"instance", "a"}}, {{"team", "db"}});
  CHECK(group_key("prom", by, disk_a) == "prom:DiskFull|db");
  CHECK(group_key("prom", by, disk_a) == group_key("prom", by, disk_b));
  CHECK(group_key("prom", by, disk_a) != group_key("prom", by, cpu));
  CHECK(group_key("other", by, disk_a) != group_key("prom", by, disk_a));
  // A missing value is the empty string.
  CHECK(group_key("prom", by, alert({{"alertname", "DiskFull"}})) == "prom:DiskFull|");
}

TEST_CASE("values that hold the separator never make another group's key") {
  const std::vector<std::string> by{"labels.a", "labels.b"};
  auto one = alert({{"a", "x|y"}, {"b", "z"}});
  auto two = alert({{"a", "x"}, {"b", "y|z"}});
  auto three = alert({{"a", "x\\"}, {"b", "|z"}});
  CHECK(group_key("p", by, one) != group_key("p", by, two));
  CHECK(group_key("p", by, one) != group_key("p", by, three));
  CHECK(group_key("p", by, two) != group_key("p", by, three));
}

TEST_CASE("a group key too long for a dedup key is hashed, still per integration") {
  const std::vector<std::string> by{"labels.a"};
  auto long_value = alert({{"a", std::string(300, 'x')}});
  auto key = group_key("prom", by, long_value);
  CHECK(key.rfind("prom:sha256:", 0) == 0);
  CHECK(key.size() == std::string("prom:sha256:").size() + 64);
  CHECK(key != group_key("prom", by, alert({{"a", std::string(301, 'x')}})));
}

TEST_CASE("pagerduty events group by payload fields and custom details") {
  pd_event e;
  e.source = "db-1";
  e.component = "disk";
  e.group = "prod";
  e.event_class = "storage";
  e.severity = "error";
  e.details_json = R"({"region":"eu","count":3,"nested":{"a":1}})";
  CHECK(group_key("pd",
                  {"payload.source", "payload.component", "payload.group",
                   "payload.class", "payload.severity"},
                  e) == "pd:db-1|disk|prod|storage|error");
  CHECK(group_key("pd", {"payload.custom_details.region"}, e) == "pd:eu");
  CHECK(group_key("pd", {"payload.custom_details.count"}, e) == "pd:3");
  CHECK(group_key("pd", {"payload.custom_details.nested"}, e) == R"(pd:{"a":1})");
  CHECK(group_key("pd", {"payload.custom_details.absent"}, e) == "pd:");
}

TEST_CASE("grouping paths are checked against the integration's type") {
  CHECK_FALSE(grouping_path_problem("alertmanager", "labels.alertname"));
  CHECK_FALSE(grouping_path_problem("alertmanager", "annotations.summary"));
  CHECK(grouping_path_problem("alertmanager", "labels."));
  CHECK(grouping_path_problem("alertmanager", "payload.source"));
  CHECK(grouping_path_problem("alertmanager", "fingerprint"));
  for (auto ok : {"payload.source", "payload.component", "payload.group", "payload.class",
                  "payload.severity", "payload.custom_details.x"})
    CHECK_FALSE(grouping_path_problem("events", ok));
  CHECK(grouping_path_problem("events", "payload.summary"));
  CHECK(grouping_path_problem("events", "payload.custom_details."));
  CHECK(grouping_path_problem("events", "labels.alertname"));
}

TEST_CASE("the parsers give grouping every label, string annotation and payload field") {
  auto am = parse_alertmanager(R"({"alerts":[{"status":"firing","fingerprint":"f1",
      "labels":{"alertname":"DiskFull","instance":"db-1"},
      "annotations":{"summary":"Disk full","team":"db","runbook":{"url":"x"}}}]})");
  REQUIRE(std::holds_alternative<am_webhook>(am));
  auto& a = std::get<am_webhook>(am).alerts.at(0);
  CHECK(group_key("prom", {"labels.instance", "annotations.team", "annotations.runbook"},
                  a) == "prom:db-1|db|");

  auto pd = parse_pd_event(R"({"routing_key":"k","event_action":"trigger",
      "payload":{"summary":"s","source":"web-1","severity":"warning","component":"nginx",
                 "group":"prod","class":"http","custom_details":{"region":"eu"}}})");
  REQUIRE(std::holds_alternative<pd_event>(pd));
  CHECK(group_key("pd",
                  {"payload.component", "payload.group", "payload.class",
                   "payload.custom_details.region"},
                  std::get<pd_event>(pd)) == "pd:nginx|prod|http|eu");
  // A component that is not a string is not refused, only not used.
  auto odd = parse_pd_event(R"({"routing_key":"k","event_action":"trigger",
      "payload":{"summary":"s","source":"web-1","severity":"info","component":7}})");
  REQUIRE(std::holds_alternative<pd_event>(odd));
  CHECK(group_key("pd", {"payload.component"}, std::get<pd_event>(odd)) == "pd:");
}
