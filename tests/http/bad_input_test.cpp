// G10 through the running binary: every class of bad input answers a precise error
// (status, code, the field at fault) and writes nothing: the rows of incident,
// timeline and delivery stay exactly as many as before.
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using test::alertmanager_body;
using test::pd_trigger;
using test::trigger_body;

namespace {

struct bad_request {
  std::string name;
  std::string method; // GET or POST
  std::string path;
  std::string body;
  std::string key;
  int status;
  std::string code;  // the error code, or for PagerDuty a text one of "errors" contains
  std::string field; // the error field ("" when no one field is at fault)
};

const std::string native = "/api/v1/incidents";
const std::string pagerduty = "/v2/enqueue";
const std::string alertmanager = "/api/v1/integrations/alertmanager";

const std::string good_alert =
    R"({"status":"firing","labels":{"alertname":"Good"},"fingerprint":"good-alert"})";

std::string over_limit() {
  return std::string(512 * 1024 + 1, ' ') + "{}";
}

test::reply send(test::served_belay& belay, const bad_request& c) {
  return c.method == "GET" ? belay.get(c.path, c.key) : belay.post(c.path, c.body, c.key);
}

// Sends each request and checks its answer and that no row was written.
void check_refused(test::served_belay& belay, const std::vector<bad_request>& cases,
                   bool pagerduty_shape = false) {
  auto before = belay.row_counts();
  for (auto& c : cases) {
    INFO(c.name);
    auto r = send(belay, c);
    INFO("answer: " << r.status << " " << r.body);
    CHECK(r.status == c.status);
    if (pagerduty_shape && c.status == 400) {
      REQUIRE(r.json.IsObject());
      CHECK(r.json["status"] == "invalid event");
      CHECK(r.json["message"] == "Event object is invalid");
      REQUIRE(r.json["errors"].IsArray());
      bool named = false;
      for (auto& e : r.json["errors"].GetArray())
        named = named || std::string{e.GetString()}.find(c.code) != std::string::npos;
      CHECK(named);
    } else {
      CHECK(test::error_code(r) == c.code);
      CHECK(test::error_field(r) == c.field);
      CHECK_FALSE(std::string{r.json["error"]["message"].GetString()}.empty());
    }
    CHECK(belay.row_counts() == before);
  }
}

// One incident resolved and one open, both settled, for the 404 and 409 cases.
struct incidents {
  std::string resolved;
  std::string open;
};

incidents prepare(test::served_belay& belay) {
  auto a = belay.trigger("already-resolved");
  auto b = belay.trigger("still-open");
  REQUIRE(a.status == 201);
  REQUIRE(b.status == 201);
  auto resolved = test::id_of(a);
  auto open = test::id_of(b);
  belay.wait_settled(resolved);
  belay.wait_settled(open);
  REQUIRE(
      belay.post(native + "/" + std::to_string(resolved) + "/resolve", "", "alpha-key")
          .status == 200);
  return {native + "/" + std::to_string(resolved), native + "/" + std::to_string(open)};
}

} // namespace

TEST_CASE("bad native API requests answer a precise error and write nothing") {
  test::served_belay belay;
  auto ids = prepare(belay);
  const std::string k = "alpha-key";
  check_refused(
      belay,
      {
          {"malformed JSON", "POST", native, R"({"dedupKey":"x",)", k, 400,
           "invalid_json", ""},
          {"empty body", "POST", native, "", k, 400, "invalid_json", ""},
          {"not an object", "POST", native, R"(["x"])", k, 400, "wrong_type", ""},
          {"dedupKey a number", "POST", native,
           R"({"dedupKey":42,"title":"t","policy":"default"})", k, 400, "wrong_type",
           "dedupKey"},
          {"title a boolean", "POST", native,
           R"({"dedupKey":"x","title":true,"policy":"default"})", k, 400, "wrong_type",
           "title"},
          {"details a string", "POST", native,
           trigger_body("bad-input", "default", R"(,"details":"text")"), k, 400,
           "wrong_type", "details"},
          {"missing dedupKey", "POST", native, R"({"title":"t","policy":"default"})", k,
           400, "missing_field", "dedupKey"},
          {"missing title", "POST", native, R"({"dedupKey":"x","policy":"default"})", k,
           400, "missing_field", "title"},
          {"missing policy", "POST", native, R"({"dedupKey":"x","title":"t"})", k, 400,
           "missing_field", "policy"},
          {"blank dedupKey", "POST", native,
           R"({"dedupKey":"  ","title":"t","policy":"default"})", k, 400, "invalid_value",
           "dedupKey"},
          {"unknown severity", "POST", native,
           trigger_body("bad-input", "default", R"(,"severity":"urgent")"), k, 400,
           "invalid_value", "severity"},
          {"unknown policy", "POST", native,
           R"({"dedupKey":"x","title":"t","policy":"nope"})", k, 400, "unknown_policy",
           "policy"},
          {"dedupKey over 255 characters", "POST", native,
           R"({"dedupKey":")" + std::string(256, 'k') +
               R"(","title":"t","policy":"default"})",
           k, 400, "too_long", "dedupKey"},
          {"title over 1024 characters", "POST", native,
           R"({"dedupKey":"x","title":")" + std::string(1025, 't') +
               R"(","policy":"default"})",
           k, 400, "too_long", "title"},
          {"NUL in details", "POST", native,
           trigger_body("bad-input", "default", R"(,"details":{"host":"a\u0000b"})"), k,
           400, "invalid_value", "details.host"},
          {"NUL in an unknown field", "POST", native,
           trigger_body("bad-input", "default", R"(,"note":"a\u0000b")"), k, 400,
           "invalid_value", "note"},
          {"unpaired surrogate in title", "POST", native,
           R"({"dedupKey":"x","title":"a\udc00b","policy":"default"})", k, 400,
           "invalid_value", "title"},
          {"unpaired surrogate in an unknown field", "POST", native,
           trigger_body("bad-input", "default", R"(,"tags":["ok","\udfff"])"), k, 400,
           "invalid_value", "tags[1]"},
          {"body over 512 KiB", "POST", native, over_limit(), k, 413, "body_too_large",
           ""},
          {"missing key", "POST", native, trigger_body("bad-input"), "", 401,
           "missing_key", ""},
          {"unknown key", "POST", native, trigger_body("bad-input"), "nobody-key", 401,
           "unknown_key", ""},
          {"integration key as API key", "POST", native, trigger_body("bad-input"),
           "alpha-routing", 401, "unknown_key", ""},
          {"list without key", "GET", native, "", "", 401, "missing_key", ""},
          {"detail with unknown key", "GET", ids.open, "", "nobody-key", 401,
           "unknown_key", ""},
          {"list by unknown status", "GET", native + "?status=open", "", k, 400,
           "invalid_value", "status"},
          {"list with limit 0", "GET", native + "?limit=0", "", k, 400, "invalid_value",
           "limit"},
          {"list with a bad cursor", "GET", native + "?after=abc", "", k, 400,
           "invalid_value", "after"},
          {"unknown incident", "GET", native + "/999999", "", k, 404, "not_found", ""},
          {"incident id not a number", "GET", native + "/abc", "", k, 404, "not_found",
           ""},
          {"ack of an unknown incident", "POST", native + "/999999/ack", R"({"by":"al"})",
           k, 404, "not_found", ""},
          {"resolve of an unknown incident", "POST", native + "/999999/resolve", "{}", k,
           404, "not_found", ""},
          {"ack of a resolved incident", "POST", ids.resolved + "/ack", R"({"by":"al"})",
           k, 409, "invalid_transition", ""},
          {"ack without by", "POST", ids.open + "/ack", "{}", k, 400, "missing_field",
           "by"},
          {"ack by a number", "POST", ids.open + "/ack", R"({"by":7})", k, 400,
           "wrong_type", "by"},
          {"ack by an unpaired surrogate", "POST", ids.open + "/ack",
           R"({"by":"\udc00"})", k, 400, "invalid_value", "by"},
          {"ack with malformed JSON", "POST", ids.open + "/ack", R"({"by":)", k, 400,
           "invalid_json", ""},
          {"ack without key", "POST", ids.open + "/ack", R"({"by":"al"})", "", 401,
           "missing_key", ""},
      });
  // The open incident is still open: none of the refused acks reached it.
  CHECK(belay.get(ids.open, k).json["incident"]["status"] == "OPEN");
}

TEST_CASE("bad PagerDuty events answer in PagerDuty's shape and write nothing") {
  test::served_belay belay;
  check_refused(
      belay,
      {
          {"malformed JSON", "POST", pagerduty, R"({"routing_key":)", "", 400,
           "not valid JSON", ""},
          {"not an object", "POST", pagerduty, "[]", "", 400, "must be a JSON object",
           ""},
          {"unknown event_action", "POST", pagerduty,
           R"({"routing_key":"alpha-routing","event_action":"escalate","dedup_key":"x"})",
           "", 400, "Event action is invalid", ""},
          {"missing event_action", "POST", pagerduty,
           R"({"routing_key":"alpha-routing","dedup_key":"x"})", "", 400,
           "'event_action' is missing or blank", ""},
          {"missing routing_key", "POST", pagerduty,
           R"({"event_action":"resolve","dedup_key":"x"})", "", 400,
           "'routing_key' is missing or blank", ""},
          {"acknowledge without dedup_key", "POST", pagerduty,
           R"({"routing_key":"alpha-routing","event_action":"acknowledge"})", "", 400,
           "'dedup_key' is missing or blank", ""},
          {"trigger without payload", "POST", pagerduty,
           R"({"routing_key":"alpha-routing","event_action":"trigger"})", "", 400,
           "'payload'", ""},
          {"trigger without summary", "POST", pagerduty,
           R"({"routing_key":"alpha-routing","event_action":"trigger",)"
           R"("payload":{"source":"db1","severity":"error"}})",
           "", 400, "'payload.summary' is missing or blank", ""},
          {"unknown severity", "POST", pagerduty,
           R"({"routing_key":"alpha-routing","event_action":"trigger",)"
           R"("payload":{"summary":"s","source":"db1","severity":"urgent"}})",
           "", 400, "'payload.severity' is invalid", ""},
          {"summary a number", "POST", pagerduty,
           R"({"routing_key":"alpha-routing","event_action":"trigger",)"
           R"("payload":{"summary":5,"source":"db1","severity":"error"}})",
           "", 400, "'payload.summary' must be a string", ""},
          {"dedup_key over 255 characters", "POST", pagerduty,
           R"({"routing_key":"alpha-routing","event_action":"resolve","dedup_key":")" +
               std::string(256, 'k') + R"("})",
           "", 400, "'dedup_key' is too long", ""},
          {"unknown routing key", "POST", pagerduty,
           R"({"routing_key":"nobody","event_action":"resolve","dedup_key":"x"})", "",
           400, "Invalid routing key", ""},
          {"alertmanager key as routing key", "POST", pagerduty,
           R"({"routing_key":"alpha-am","event_action":"resolve","dedup_key":"x"})", "",
           400, "Invalid routing key", ""},
          {"org API key as routing key", "POST", pagerduty,
           R"({"routing_key":"alpha-key","event_action":"resolve","dedup_key":"x"})", "",
           400, "Invalid routing key", ""},
          {"NUL in an unknown field", "POST", pagerduty,
           pd_trigger("alpha-routing", "bad-pd", R"(,"client":"a\u0000b")"), "", 400,
           "'client' must not contain NUL", ""},
          {"unpaired surrogate in the summary", "POST", pagerduty,
           R"({"routing_key":"alpha-routing","event_action":"trigger",)"
           R"("payload":{"summary":"\udc00","source":"db1","severity":"error"}})",
           "", 400, "'payload.summary' must not contain unpaired surrogates", ""},
          {"body over 512 KiB", "POST", pagerduty, over_limit(), "", 413,
           "body_too_large", ""},
      },
      true);
}

TEST_CASE("bad Alertmanager webhooks answer a precise error and write nothing") {
  test::served_belay belay;
  const std::string k = "alpha-am";
  check_refused(
      belay,
      {
          {"missing key", "POST", alertmanager, alertmanager_body(good_alert), "", 401,
           "missing_key", ""},
          {"unknown key", "POST", alertmanager, alertmanager_body(good_alert), "nobody",
           401, "unknown_key", ""},
          {"events key", "POST", alertmanager, alertmanager_body(good_alert),
           "alpha-routing", 401, "unknown_key", ""},
          {"org API key", "POST", alertmanager, alertmanager_body(good_alert),
           "alpha-key", 401, "unknown_key", ""},
          {"malformed JSON", "POST", alertmanager, R"({"alerts":[)", k, 400,
           "invalid_json", ""},
          {"missing alerts", "POST", alertmanager, R"({"version":"4","status":"firing"})",
           k, 400, "missing_field", "alerts"},
          {"alerts an object", "POST", alertmanager, R"({"alerts":{}})", k, 400,
           "wrong_type", "alerts"},
          {"unknown alert status", "POST", alertmanager,
           alertmanager_body(R"({"status":"pending","labels":{"alertname":"A"}})"), k,
           400, "invalid_value", "alerts[0].status"},
          {"missing labels", "POST", alertmanager,
           alertmanager_body(R"({"status":"firing"})"), k, 400, "missing_field",
           "alerts[0].labels"},
          {"label value a number", "POST", alertmanager,
           alertmanager_body(
               R"({"status":"firing","labels":{"alertname":"A","severity":3}})"),
           k, 400, "wrong_type", "alerts[0].labels.severity"},
          {"a good alert before a bad one", "POST", alertmanager,
           alertmanager_body(good_alert +
                             R"(,{"status":"pending","labels":{"alertname":"B"}})"),
           k, 400, "invalid_value", "alerts[1].status"},
          {"a good alert before an unpaired surrogate", "POST", alertmanager,
           alertmanager_body(good_alert +
                             R"(,{"status":"firing","labels":{"alertname":"\udc00"}})"),
           k, 400, "invalid_value", "alerts[1].labels.alertname"},
          {"a good alert before NUL in an unknown field", "POST", alertmanager,
           alertmanager_body(
               good_alert +
               R"(,{"status":"firing","labels":{"alertname":"B"},"note":"\u0000"})"),
           k, 400, "invalid_value", "alerts[1].note"},
          {"body over 512 KiB", "POST", alertmanager, over_limit(), k, 413,
           "body_too_large", ""},
      });
}
