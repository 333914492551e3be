#include "parsed_helpers.hpp"
#include "protocol/pagerduty.hpp"

#include <algorithm>

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

// The example request of PagerDuty's Events API v2 reference (api-schema, events-v2).
const char* pagerduty_docs_example = R"({
  "payload": {
    "summary": "DISK at 99% on machine prod-datapipe03.example.com",
    "timestamp": "2015-07-17T08:42:58.315+0000",
    "severity": "critical",
    "source": "prod-datapipe03.example.com",
    "component": "mysql",
    "group": "prod-datapipe",
    "class": "disk",
    "custom_details": {
      "free space": "1%",
      "ping time": "1500ms",
      "load avg": 0.75
    }
  },
  "routing_key": "e93facc04764012d7bfb002500d5d1a6",
  "dedup_key": "srv01/mysql",
  "event_action": "trigger",
  "client": "Sample Monitoring Service",
  "client_url": "https://monitoring.service.com",
  "links": [{"href": "http://pagerduty.example.com", "text": "An example link."}],
  "images": [{
    "src": "https://chart.googleapis.com/chart?chs=600x400&chd=t:6,2,9,5,2,5,7,4,8,2,1&cht=lc&chds=a&chxt=y&chm=D,0033FF,0,0,5,1",
    "href": "https://google.com",
    "alt": "An example link with an image"
  }]
})";

pd_event event_of(const std::string& body) {
  auto result = parse_pd_event(body);
  if (auto errors = std::get_if<std::vector<std::string>>(&result))
    FAIL("expected an event, got " << errors->size()
                                   << " errors, first: " << errors->front());
  return std::get<pd_event>(result);
}

std::vector<std::string> errors_of(const std::string& body) {
  auto result = parse_pd_event(body);
  REQUIRE(std::holds_alternative<std::vector<std::string>>(result));
  return std::get<std::vector<std::string>>(result);
}

bool has_error(const std::vector<std::string>& errors, const std::string& message) {
  return std::find(errors.begin(), errors.end(), message) != errors.end();
}

} // namespace

TEST_CASE("PagerDuty's documented example trigger is accepted") {
  pd_event e = event_of(pagerduty_docs_example);
  CHECK(e.routing_key == "e93facc04764012d7bfb002500d5d1a6");
  CHECK(e.event_action == "trigger");
  CHECK(e.dedup_key == "srv01/mysql");
  CHECK(e.summary == "DISK at 99% on machine prod-datapipe03.example.com");
  CHECK(e.source == "prod-datapipe03.example.com");
  CHECK(e.severity == "critical");
  auto details = json(e.details_json);
  CHECK(str(details["free space"]) == "1%");
  CHECK(details["load avg"].GetDouble() == 0.75);
}

TEST_CASE("a trigger without dedup_key leaves it for belay to generate") {
  pd_event e = event_of(R"({"routing_key":"rk","event_action":"trigger",
    "payload":{"summary":"s","source":"h","severity":"info"}})");
  CHECK(e.dedup_key.empty());
  CHECK(e.details_json == "{}");
}

TEST_CASE("acknowledge and resolve need only routing_key and dedup_key") {
  for (auto action : {"acknowledge", "resolve"}) {
    pd_event e = event_of(
        std::string{R"({"routing_key":"rk","dedup_key":"srv01/mysql","event_action":")"} +
        action + "\"}");
    CHECK(e.event_action == action);
    CHECK(e.dedup_key == "srv01/mysql");
  }
}

TEST_CASE("acknowledge without dedup_key is invalid") {
  auto errors = errors_of(R"({"routing_key":"rk","event_action":"acknowledge"})");
  CHECK(errors == std::vector<std::string>{"'dedup_key' is missing or blank"});
}

TEST_CASE("a missing routing_key is reported") {
  auto errors = errors_of(R"({"event_action":"resolve","dedup_key":"k"})");
  CHECK(errors == std::vector<std::string>{"'routing_key' is missing or blank"});
}

TEST_CASE("an unknown event_action is invalid") {
  auto errors = errors_of(R"({"routing_key":"rk","event_action":"explode"})");
  CHECK(errors == std::vector<std::string>{"Event action is invalid"});
  CHECK(has_error(errors_of(R"({"routing_key":"rk"})"),
                  "'event_action' is missing or blank"));
}

TEST_CASE("every missing trigger payload field is reported at once") {
  auto errors = errors_of(
      R"({"routing_key":"rk","event_action":"trigger","payload":{"summary":" "}})");
  CHECK(errors.size() == 3);
  CHECK(has_error(errors, "'payload.summary' is missing or blank"));
  CHECK(has_error(errors, "'payload.source' is missing or blank"));
  CHECK(has_error(errors, "'payload.severity' is missing or blank"));
}

TEST_CASE("a trigger without payload is invalid") {
  auto errors = errors_of(R"({"routing_key":"rk","event_action":"trigger"})");
  CHECK(errors == std::vector<std::string>{"'payload' is missing or not an object"});
}

TEST_CASE("an unknown payload severity is invalid") {
  auto errors = errors_of(R"({"routing_key":"rk","event_action":"trigger",
    "payload":{"summary":"s","source":"h","severity":"page"}})");
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("'payload.severity' is invalid"));
}

TEST_CASE("summary may be 1024 characters and dedup_key 255, no more") {
  auto body = [](std::size_t summary, std::size_t key) {
    return R"({"routing_key":"rk","event_action":"trigger","dedup_key":")" +
           std::string(key, 'k') + R"(","payload":{"summary":")" +
           std::string(summary, 's') + R"(","source":"h","severity":"info"}})";
  };
  CHECK(event_of(body(1024, 255)).summary.size() == 1024);
  CHECK(errors_of(body(1025, 255)) ==
        std::vector<std::string>{
            "'payload.summary' is too long (maximum is 1024 characters)"});
  CHECK(errors_of(body(1024, 256)) ==
        std::vector<std::string>{"'dedup_key' is too long (maximum is 255 characters)"});
}

TEST_CASE("a field of the wrong type is named") {
  auto errors =
      errors_of(R"({"routing_key":5,"event_action":"resolve","dedup_key":"k"})");
  CHECK(errors == std::vector<std::string>{"'routing_key' must be a string"});
}

TEST_CASE("custom_details that are not an object are kept, wrapped") {
  pd_event e = event_of(R"({"routing_key":"rk","event_action":"trigger",
    "payload":{"summary":"s","source":"h","severity":"info","custom_details":"disk at 99%"}})");
  CHECK(e.details_json == R"({"custom_details":"disk at 99%"})");
}

TEST_CASE("malformed JSON and non-objects are single errors") {
  auto errors = errors_of("{\"routing_key\":");
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::Contains("not valid JSON"));
  CHECK(errors_of("[]") ==
        std::vector<std::string>{"Event object must be a JSON object, not an array"});
}

TEST_CASE("accepted response has PagerDuty's shape") {
  CHECK(render_pd_accepted("srv01/mysql") ==
        R"({"status":"success","message":"Event processed","dedup_key":"srv01/mysql"})");
}

TEST_CASE("invalid response lists the errors in PagerDuty's shape") {
  auto doc = json(render_pd_invalid(
      {"Event action is invalid", "'routing_key' is missing or blank"}));
  CHECK(str(doc["status"]) == "invalid event");
  CHECK(str(doc["message"]) == "Event object is invalid");
  REQUIRE(doc["errors"].Size() == 2);
  CHECK(str(doc["errors"][0]) == "Event action is invalid");
}
