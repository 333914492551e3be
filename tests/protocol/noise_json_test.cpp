// The wire formats of noise control (docs/guarantees.md#noise-control): maintenance
// window requests, PagerDuty change events, and what the incident object says about both.
#include "parsed_helpers.hpp"
#include "protocol/change_event.hpp"
#include "protocol/incident_json.hpp"
#include "protocol/maintenance_json.hpp"
#include "protocol/policy_json.hpp"
#include "protocol/time.hpp"

#include <algorithm>

using namespace belay;
using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

const micros now = *parse_rfc3339("2026-12-01T10:00:00Z");

const change_event&
change_of(const std::variant<change_event, std::vector<std::string>>& p) {
  if (auto* errors = std::get_if<std::vector<std::string>>(&p))
    FAIL("expected a change, got " << errors->size()
                                   << " problems, first: " << errors->front());
  return std::get<change_event>(p);
}

std::vector<std::string>
problems_of(const std::variant<change_event, std::vector<std::string>>& p) {
  REQUIRE(std::holds_alternative<std::vector<std::string>>(p));
  return std::get<std::vector<std::string>>(p);
}

} // namespace

TEST_CASE("a maintenance window on a policy starts now unless told otherwise") {
  auto m = value_of(parse_maintenance_request(
      R"({"policy":"default","end":"2026-12-01T12:00:00Z","reason":"db migration"})",
      now));
  CHECK(m.policy == "default");
  CHECK(m.integration.empty());
  CHECK(m.start == now);
  CHECK(m.end == *parse_rfc3339("2026-12-01T12:00:00Z"));
  CHECK(m.reason == "db migration");
  auto later = value_of(parse_maintenance_request(
      R"({"integration":"pd","start":"2026-12-02T00:00:00Z","end":"2026-12-02T01:00:00Z"})",
      now));
  CHECK(later.integration == "pd");
  CHECK(later.start == *parse_rfc3339("2026-12-02T00:00:00Z"));
}

TEST_CASE("a maintenance window refuses bad input, naming the field") {
  auto field = [](const std::string& body) {
    return error_of(parse_maintenance_request(body, now)).field;
  };
  CHECK(
      field(
          R"({"policy":"p","start":"2026-12-01T12:00:00Z","end":"2026-12-01T12:00:00Z"})") ==
      "end");
  CHECK(field(R"({"policy":"p","end":"2026-12-01T09:00:00Z"})") == "end"); // before now
  CHECK(field(R"({"end":"2026-12-01T12:00:00Z"})") == "policy");
  CHECK(field(R"({"policy":"p","integration":"i","end":"2026-12-01T12:00:00Z"})") ==
        "integration");
  CHECK(field(R"({"policy":"p"})") == "end");
  CHECK(field(R"({"policy":"p","end":"tomorrow"})") == "end");
  CHECK(field(R"({"policy":"p","end":"2026-12-01T12:00:00Z","colour":"red"})") ==
        "colour");
  CHECK(field(R"({"policy":"","end":"2026-12-01T12:00:00Z"})") == "policy");
}

TEST_CASE("a maintenance window renders with the target not set as null") {
  maintenance_window m{7, "default", "", now, now + 3'600'000'000LL, "migration", now};
  auto doc = json(render_maintenance(m));
  auto& w = doc["maintenance"];
  CHECK(w["id"].GetInt64() == 7);
  CHECK(str(w["policy"]) == "default");
  CHECK(w["integration"].IsNull());
  CHECK(str(w["start"]) == "2026-12-01T10:00:00.000Z");
  CHECK(str(w["end"]) == "2026-12-01T11:00:00.000Z");
  CHECK(str(w["reason"]) == "migration");
  CHECK(str(w["createdAt"]) == "2026-12-01T10:00:00.000Z");
  CHECK(json(render_maintenance_list({m, m}))["maintenance"].Size() == 2);
}

TEST_CASE("reopenSeconds is read, kept in the stored ladder and off by default") {
  auto p = parse_policy(
      R"({"name":"flappy","reopenSeconds":600,"steps":[{"targets":[{"channel":"c","to":"x"}]}]})");
  CHECK(value_of(p).reopen_seconds == 600);
  CHECK(value_of(parse_policy(render_policy(value_of(p)))).reopen_seconds == 600);
  auto off =
      parse_policy(R"({"name":"p","steps":[{"targets":[{"channel":"c","to":"x"}]}]})");
  CHECK(value_of(off).reopen_seconds == 0);
  CHECK(render_policy(value_of(off)).find("reopenSeconds") == std::string::npos);
  CHECK(
      error_of(
          parse_policy(
              R"({"name":"p","reopenSeconds":-1,"steps":[{"targets":[{"channel":"c","to":"x"}]}]})"))
          .field == "reopenSeconds");
}

TEST_CASE("the incident object says reopenCount, integration and inMaintenance") {
  incident_record r;
  r.id = 3;
  r.reopen_count = 2;
  r.integration = "pd";
  r.held_until = now;
  auto doc = json(render_incident_only(r));
  auto& i = doc["incident"];
  CHECK(i["reopenCount"].GetInt() == 2);
  CHECK(str(i["integration"]) == "pd");
  CHECK(i["inMaintenance"].GetBool());
  CHECK(str(i["maintenanceUntil"]) == "2026-12-01T10:00:00.000Z");
  r.held_until.reset();
  r.integration.clear();
  auto plain = json(render_incident_only(r));
  CHECK_FALSE(plain["incident"]["inMaintenance"].GetBool());
  CHECK(plain["incident"]["maintenanceUntil"].IsNull());
  CHECK(plain["incident"]["integration"].IsNull());
}

// PagerDuty's example change event (developer.pagerduty.com, "Send Change Events").
TEST_CASE("PagerDuty's example change event is read whole") {
  auto e = change_of(parse_change_event(R"({
    "routing_key": "737ea619db564d41bd9824060cdf4f7d",
    "payload": {
      "summary": "Build Success: Increase snapshot create timeout to 30 seconds",
      "timestamp": "2020-07-17T08:42:58.315+0000",
      "source": "acme-build-pipeline-tool-default-i-9999",
      "custom_details": {"build_state": "passed", "build_number": "2", "run_time": "1236s"}
    },
    "links": [{"href": "https://acme-pipeline-tool.com/builds/2",
               "text": "View more details in Acme!"}]})"));
  CHECK(e.routing_key == "737ea619db564d41bd9824060cdf4f7d");
  CHECK(e.summary == "Build Success: Increase snapshot create timeout to 30 seconds");
  CHECK(e.source == "acme-build-pipeline-tool-default-i-9999");
  CHECK(e.timestamp == parse_rfc3339("2020-07-17T08:42:58.315Z"));
  CHECK(json(e.details_json)["build_number"] == "2");
  auto links = json(e.links_json);
  REQUIRE(links.Size() == 1);
  CHECK(str(links[0]["href"]) == "https://acme-pipeline-tool.com/builds/2");
}

TEST_CASE("a change event keeps no routing key or secret-named field") {
  auto e = change_of(parse_change_event(
      R"({"routing_key":"rk","payload":{"summary":"s","custom_details":{"api_token":"t",)"
      R"("db":{"password":"p","host":"h"}}},"links":[{"href":"h","secret":"x"}]})"));
  CHECK(e.details_json == R"({"db":{"host":"h"}})");
  CHECK(e.links_json == R"([{"href":"h"}])");
  auto plain = change_of(parse_change_event(
      R"({"routing_key":"rk","payload":{"summary":"s","custom_details":"txt"}})"));
  CHECK(plain.details_json == R"({"custom_details":"txt"})");
  CHECK_FALSE(plain.timestamp);
  CHECK(plain.links_json == "[]");
}

TEST_CASE("an invalid change event lists every problem, PagerDuty's way") {
  auto problems = problems_of(parse_change_event(
      R"({"payload":{"summary":" ","timestamp":"yesterday"},"links":[{"text":1}]})"));
  auto has = [&](const std::string& p) {
    return std::find(problems.begin(), problems.end(), p) != problems.end();
  };
  CHECK(has("'routing_key' is missing or blank"));
  CHECK(has("'payload.summary' is missing or blank"));
  CHECK(has("'payload.timestamp' is not a valid ISO 8601 time"));
  CHECK(has("'links[0].href' is missing or blank"));
  CHECK(has("'links[0].text' must be a string"));
  CHECK(problems_of(parse_change_event(R"({"routing_key":"k"})")) ==
        std::vector<std::string>{"'payload' is missing or not an object"});
  CHECK(problems_of(parse_change_event("[1]")).size() == 1);
  CHECK(problems_of(parse_change_event("{")).size() == 1);
}

TEST_CASE("the change list renders newest first as given, with its cursor") {
  change_record a{2, "deploy", "ci", now, "pd", R"({"v":1})", "[]"};
  change_record b{1, "config", "", now - 1, "pd", "{}", R"([{"href":"h"}])"};
  auto doc = json(render_change_list({a, b}, std::string{"1"}));
  REQUIRE(doc["changes"].Size() == 2);
  auto& first = doc["changes"][0];
  CHECK(first["id"].GetInt64() == 2);
  CHECK(str(first["summary"]) == "deploy");
  CHECK(str(first["source"]) == "ci");
  CHECK(str(first["timestamp"]) == "2026-12-01T10:00:00.000Z");
  CHECK(str(first["integration"]) == "pd");
  CHECK(first["details"]["v"].GetInt() == 1);
  CHECK(doc["changes"][1]["source"].IsNull());
  CHECK(str(doc["changes"][1]["links"][0]["href"]) == "h");
  CHECK(str(doc["next"]) == "1");
  CHECK(json(render_change_list({}, std::nullopt))["next"].IsNull());
}

TEST_CASE("an accepted change event answers PagerDuty's body") {
  auto doc = json(render_change_accepted());
  CHECK(str(doc["status"]) == "success");
  CHECK(str(doc["message"]) == "Change event processed");
}
