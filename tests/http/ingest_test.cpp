// End to end, per wire format: the running binary over HTTP against PostgreSQL, held
// to the exact contract of docs/http.md#ingest.
#include "support/raw_connection.hpp"
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <set>

using namespace belay;
using test::id_of;

namespace {

const std::string native = "/api/v1/incidents";

std::string at(int64_t id) {
  return native + "/" + std::to_string(id);
}

std::vector<int64_t> ids_of(const test::reply& page) {
  std::vector<int64_t> ids;
  for (auto& i : page.json["incidents"].GetArray())
    ids.push_back(i["id"].GetInt64());
  return ids;
}

std::set<std::string> kinds_of(const test::reply& detail) {
  std::set<std::string> kinds;
  for (auto& e : detail.json["timeline"].GetArray())
    kinds.insert(e["kind"].GetString());
  return kinds;
}

// Every page of the listing at `query`, following "next" until it is null.
std::vector<std::vector<int64_t>> listed_pages(test::served_belay& belay,
                                               const std::string& query) {
  std::vector<std::vector<int64_t>> out;
  std::string after;
  for (int guard = 0; guard < 10; ++guard) {
    auto page =
        belay.get(native + query + (after.empty() ? "" : "&after=" + after), "alpha-key");
    REQUIRE(page.status == 200);
    out.push_back(ids_of(page));
    if (page.json["next"].IsNull())
      return out;
    after = page.json["next"].GetString();
  }
  FAIL("the listing never ended");
  return out;
}

// One row of the incident table, as text, found by its dedup key.
std::string column(test::served_belay& belay, const std::string& key,
                   const std::string& col, const std::string& status = "") {
  auto r = belay.db.sql().query("SELECT " + col +
                                    "::text FROM incident WHERE dedup_key = $1 "
                                    "AND ($2 = '' OR status = $2) ORDER BY id DESC",
                                key, status);
  REQUIRE(r.rows() >= 1);
  return r.str(0, 0);
}

const std::string pd_payload =
    R"(,"payload":{"summary":"Disk almost full on db1","source":"db1.example.com",)"
    R"("severity":"error","component":"postgres","custom_details":{"free":"2%"}},)"
    R"("client":"Monitoring","client_url":"https://monitoring.example.com")";

void check_pd_accepted(const test::reply& r, const std::string& dedup_key) {
  INFO(r.body);
  CHECK(r.status == 202);
  REQUIRE(r.json.IsObject());
  CHECK(r.json["status"] == "success");
  CHECK(r.json["message"] == "Event processed");
  CHECK(r.json["dedup_key"] == dedup_key.c_str());
}

// An Alertmanager v4 notification as Alertmanager 0.25 sends it, one alert per entry.
std::string am_alert(const std::string& status, const std::string& name,
                     const std::string& fingerprint, const std::string& severity,
                     const std::string& summary) {
  std::string annotations = summary.empty() ? R"({"runbook":"https://runbooks/x"})"
                                            : R"({"summary":")" + summary + R"("})";
  return R"({"status":")" + status + R"(","labels":{"alertname":")" + name +
         R"(","instance":"db1:9100","job":"node","severity":")" + severity +
         R"("},"annotations":)" + annotations +
         R"(,"startsAt":"2024-03-01T10:00:00.000Z",)"
         R"("endsAt":")" +
         (status == "resolved" ? "2024-03-01T10:30:00.000Z" : "0001-01-01T00:00:00Z") +
         R"(","generatorURL":"http://prometheus:9090/graph?g0.expr=up+%3D%3D+0",)"
         R"("fingerprint":")" +
         fingerprint + R"("})";
}

std::string am_webhook(const std::string& status,
                       const std::vector<std::string>& alerts) {
  std::string body = R"({"receiver":"belay","status":")" + status + R"(","alerts":[)";
  for (size_t i = 0; i < alerts.size(); ++i)
    body += (i ? "," : "") + alerts[i];
  return body + R"(],"groupLabels":{"job":"node"},"commonLabels":{"job":"node"},)"
                R"("commonAnnotations":{},"externalURL":"http://alertmanager:9093",)"
                R"("version":"4","groupKey":"{}:{job=\"node\"}","truncatedAlerts":0})";
}

void check_counts(const test::reply& r, int created, int deduplicated, int resolved,
                  int ignored) {
  INFO(r.body);
  REQUIRE(r.status == 200);
  CHECK(r.json["created"] == created);
  CHECK(r.json["deduplicated"] == deduplicated);
  CHECK(r.json["resolved"] == resolved);
  CHECK(r.json["ignored"] == ignored);
}

} // namespace

TEST_CASE("native API: trigger, deduplicate, and show the incident with its timeline") {
  test::served_belay belay;
  auto created = belay.trigger("native-disk");
  REQUIRE(created.status == 201);
  CHECK_FALSE(created.json["deduplicated"].GetBool());
  auto& incident = created.json["incident"];
  CHECK(incident["dedupKey"] == "native-disk");
  CHECK(incident["title"] == "disk full on native-disk");
  CHECK(incident["severity"] == "warning");
  CHECK(incident["status"] == "OPEN");
  CHECK(incident["policy"] == "default");
  CHECK(incident["eventCount"] == 1);
  CHECK(incident["currentStep"] == 0);
  CHECK(incident["loop"] == 0);
  CHECK(std::string{incident["createdAt"].GetString()}.back() == 'Z');
  CHECK(incident["ackedAt"].IsNull());
  auto id = id_of(created);

  auto duplicate = belay.trigger("native-disk");
  REQUIRE(duplicate.status == 200);
  CHECK(duplicate.json["deduplicated"].GetBool());
  CHECK(id_of(duplicate) == id);
  CHECK(duplicate.json["incident"]["eventCount"] == 2);

  auto severity_default =
      belay.post(native, test::trigger_body("native-default"), "alpha-key");
  REQUIRE(severity_default.status == 201);
  CHECK(severity_default.json["incident"]["severity"] == "critical");

  belay.wait_settled(id);
  auto detail = belay.get(at(id), "alpha-key");
  REQUIRE(detail.status == 200);
  CHECK(id_of(detail) == id);
  CHECK(detail.json["incident"]["eventCount"] == 2);
  CHECK(detail.json["incident"]["currentStep"] ==
        1); // step 0 fired, step 1 is a day away
  CHECK(kinds_of(detail) ==
        std::set<std::string>{"created", "duplicate", "step_fired", "delivery_sent"});
  auto& deliveries = detail.json["deliveries"];
  REQUIRE(deliveries.Size() == 1);
  CHECK(deliveries[0]["channel"] == "log");
  CHECK(deliveries[0]["target"] == "#ops");
  CHECK(deliveries[0]["step"] == 0);
  CHECK(deliveries[0]["loop"] == 0);
  CHECK(deliveries[0]["status"] == "SENT");
  CHECK(deliveries[0]["idempotencyKey"] ==
        (std::to_string(id) + ":0:0:log:#ops").c_str());
}

TEST_CASE("native API: ack and resolve follow the lifecycle and repeat harmlessly") {
  test::served_belay belay;
  auto id = id_of(belay.trigger("native-lifecycle"));
  belay.wait_settled(id);

  auto acked = belay.post(at(id) + "/ack", R"({"by":"alice"})", "alpha-key");
  REQUIRE(acked.status == 200);
  CHECK(acked.json["incident"]["status"] == "ACKNOWLEDGED");
  CHECK(acked.json["incident"]["ackedBy"] == "alice");
  CHECK(acked.json["incident"]["ackedVia"] == "api");
  CHECK(acked.json["incident"]["nextFireAt"].IsNull());
  auto version = acked.json["incident"]["version"].GetInt64();

  auto again = belay.post(at(id) + "/ack", R"({"by":"bob"})", "alpha-key");
  REQUIRE(again.status == 200);
  CHECK(again.json["incident"]["ackedBy"] == "alice");
  CHECK(again.json["incident"]["version"] == version);

  auto resolved = belay.post(at(id) + "/resolve", R"({"by":"bob"})", "alpha-key");
  REQUIRE(resolved.status == 200);
  CHECK(resolved.json["incident"]["status"] == "RESOLVED");
  CHECK(resolved.json["incident"]["resolvedAt"].IsString());
  CHECK(resolved.json["incident"]["resolvedBy"] == "bob");
  CHECK(resolved.json["incident"]["resolvedVia"] == "api");
  version = resolved.json["incident"]["version"].GetInt64();

  auto resolved_again = belay.post(at(id) + "/resolve", "", "alpha-key");
  REQUIRE(resolved_again.status == 200);
  CHECK(resolved_again.json["incident"]["version"] == version);

  auto detail = belay.get(at(id), "alpha-key");
  CHECK(kinds_of(detail) == std::set<std::string>{"created", "step_fired",
                                                  "delivery_sent", "acknowledged",
                                                  "resolved"});
}

TEST_CASE(
    "native API: the listing is newest first, filters by status and pages by cursor") {
  test::served_belay belay;
  std::vector<int64_t> ids;
  for (int i = 1; i <= 5; ++i) {
    auto r = belay.trigger("native-list-" + std::to_string(i));
    REQUIRE(r.status == 201);
    ids.push_back(id_of(r));
  }
  for (auto id : ids)
    belay.wait_settled(id);
  REQUIRE(belay.post(at(ids[2]) + "/resolve", "{}", "alpha-key").status == 200);
  REQUIRE(belay.post(at(ids[3]) + "/ack", R"({"by":"alice"})", "alpha-key").status ==
          200);

  auto everything = belay.get(native, "alpha-key");
  REQUIRE(everything.status == 200);
  CHECK(ids_of(everything) ==
        std::vector<int64_t>{ids[4], ids[3], ids[2], ids[1], ids[0]});
  CHECK(everything.json["next"].IsNull());

  CHECK(listed_pages(belay, "?limit=2") ==
        std::vector<std::vector<int64_t>>{{ids[4], ids[3]}, {ids[2], ids[1]}, {ids[0]}});
  CHECK(listed_pages(belay, "?status=OPEN&limit=2") ==
        std::vector<std::vector<int64_t>>{{ids[4], ids[1]}, {ids[0]}});
  CHECK(listed_pages(belay, "?status=RESOLVED") ==
        std::vector<std::vector<int64_t>>{{ids[2]}});
  CHECK(listed_pages(belay, "?status=ACKNOWLEDGED") ==
        std::vector<std::vector<int64_t>>{{ids[3]}});
  CHECK(listed_pages(belay, "?status=EXHAUSTED") ==
        std::vector<std::vector<int64_t>>{{}});

  auto first = belay.get(native + "?limit=1", "alpha-key");
  REQUIRE(first.json["next"].IsString());
  CHECK(first.json["incidents"][0]["status"] == "OPEN");
  CHECK(first.json["incidents"][0]["dedupKey"] == "native-list-5");
}

TEST_CASE(
    "PagerDuty events: trigger with and without dedup_key, acknowledge and resolve") {
  test::served_belay belay;
  check_pd_accepted(belay.enqueue("trigger", "pd-disk", pd_payload), "pd-disk");
  check_pd_accepted(belay.enqueue("trigger", "pd-disk", pd_payload), "pd-disk");
  CHECK(column(belay, "pd-disk", "title") == "Disk almost full on db1");
  CHECK(column(belay, "pd-disk", "severity") == "error");
  CHECK(column(belay, "pd-disk", "event_count") == "2");
  CHECK(column(belay, "pd-disk", "details") == R"({"free": "2%"})");

  // Without a dedup_key every trigger opens its own incident under a generated key.
  std::set<std::string> generated;
  for (int i = 0; i < 2; ++i) {
    auto r = belay.enqueue("trigger", "", pd_payload);
    REQUIRE(r.status == 202);
    std::string key = r.json["dedup_key"].GetString();
    CHECK_FALSE(key.empty());
    CHECK(column(belay, key, "status") == "OPEN");
    generated.insert(key);
  }
  CHECK(generated.size() == 2);
  CHECK(belay.count("SELECT count(*) FROM incident") == 3);

  auto id = std::stoll(column(belay, "pd-disk", "id"));
  belay.wait_settled(id);
  check_pd_accepted(belay.enqueue("acknowledge", "pd-disk"), "pd-disk");
  CHECK(column(belay, "pd-disk", "status") == "ACKNOWLEDGED");
  CHECK(column(belay, "pd-disk", "acked_by") == "pagerduty");
  CHECK(column(belay, "pd-disk", "acked_via") == "pagerduty");
  check_pd_accepted(belay.enqueue("resolve", "pd-disk"), "pd-disk");
  CHECK(column(belay, "pd-disk", "status") == "RESOLVED");
  CHECK(column(belay, "pd-disk", "resolved_via") == "pagerduty");
  // PagerDuty accepts events about keys it does not know; so does belay.
  check_pd_accepted(belay.enqueue("resolve", "pd-never-seen"), "pd-never-seen");

  // The key is free again: the next trigger opens a new incident (G2).
  check_pd_accepted(belay.enqueue("trigger", "pd-disk", pd_payload), "pd-disk");
  CHECK(belay.count("SELECT count(*) FROM incident WHERE dedup_key = 'pd-disk'") == 2);
  CHECK(column(belay, "pd-disk", "status", "OPEN") == "OPEN");

  // The incidents are the org's own: the native API lists them.
  auto listed = belay.get(native + "?status=OPEN", "alpha-key");
  CHECK(listed.json["incidents"].Size() == 3);

  auto invalid =
      belay.enqueue("trigger", "pd-bad",
                    R"(,"payload":{"summary":"s","source":"x","severity":"fatal"})");
  CHECK(invalid.status == 400);
  CHECK(invalid.json["status"] == "invalid event");
  CHECK(invalid.json["message"] == "Event object is invalid");
  CHECK(invalid.json["errors"].Size() == 1);
  CHECK(belay.count("SELECT count(*) FROM incident WHERE dedup_key = 'pd-bad'") == 0);
}

TEST_CASE("Alertmanager webhook: firing opens, repeats deduplicate, resolved resolves, "
          "unknown resolved alerts are ignored") {
  test::served_belay belay;
  const std::string path = "/api/v1/integrations/alertmanager";
  auto disk_firing = am_alert("firing", "DiskFull", "2f7a1c9e0b3d4f56", "warning",
                              "Disk almost full on db1");
  auto latency_firing = am_alert("firing", "HighLatency", "9c0de1f2a3b4c5d6", "page", "");

  check_counts(
      belay.post(path, am_webhook("firing", {disk_firing, latency_firing}), "alpha-am"),
      2, 0, 0, 0);
  CHECK(column(belay, "2f7a1c9e0b3d4f56", "title") == "Disk almost full on db1");
  CHECK(column(belay, "2f7a1c9e0b3d4f56", "severity") == "warning");
  CHECK(column(belay, "9c0de1f2a3b4c5d6", "title") == "HighLatency");
  CHECK(column(belay, "9c0de1f2a3b4c5d6", "severity") == "critical");

  check_counts(
      belay.post(path, am_webhook("firing", {disk_firing, latency_firing}), "alpha-am"),
      0, 2, 0, 0);
  CHECK(belay.count("SELECT count(*) FROM incident") == 2);

  auto disk_resolved = am_alert("resolved", "DiskFull", "2f7a1c9e0b3d4f56", "warning",
                                "Disk almost full on db1");
  check_counts(
      belay.post(path, am_webhook("firing", {disk_resolved, latency_firing}), "alpha-am"),
      0, 1, 1, 0);
  CHECK(column(belay, "2f7a1c9e0b3d4f56", "status") == "RESOLVED");
  CHECK(column(belay, "9c0de1f2a3b4c5d6", "status") == "OPEN");
  CHECK(column(belay, "9c0de1f2a3b4c5d6", "event_count") == "3");

  auto unknown = am_alert("resolved", "Gone", "0000aaaa1111bbbb", "warning", "");
  check_counts(
      belay.post(path, am_webhook("resolved", {unknown, disk_resolved}), "alpha-am"), 0,
      0, 0, 2);
  CHECK(belay.count("SELECT count(*) FROM incident") == 2);

  // Firing again after resolve is a new incident (G2).
  check_counts(belay.post(path, am_webhook("firing", {disk_firing}), "alpha-am"), 1, 0, 0,
               0);
  CHECK(belay.count(
            "SELECT count(*) FROM incident WHERE dedup_key = '2f7a1c9e0b3d4f56'") == 2);
}

TEST_CASE("an Alertmanager webhook's alerts are written together, in order per alert") {
  test::served_belay belay;
  const std::string path = "/api/v1/integrations/alertmanager";
  std::vector<std::string> alerts;
  for (int n = 0; n < 200; ++n) {
    auto fingerprint = "bulk" + std::to_string(n);
    alerts.push_back(am_alert("firing", "Bulk" + std::to_string(n), fingerprint,
                              "warning", "bulk alert " + std::to_string(n)));
  }
  check_counts(belay.post(path, am_webhook("firing", alerts), "alpha-am"), 200, 0, 0, 0);
  // One transaction per alert would be 200; written together they share a few.
  auto commits =
      belay.count("SELECT count(DISTINCT xmin::text) FROM incident WHERE dedup_key LIKE "
                  "'bulk%'");
  CHECK(commits < 100);

  // The same alert firing, then resolved, then firing again in one webhook: each event
  // acts after the one before it.
  auto fires = am_alert("firing", "Flap", "flap0001", "warning", "flapping");
  auto stops = am_alert("resolved", "Flap", "flap0001", "warning", "flapping");
  check_counts(belay.post(path, am_webhook("firing", {fires, stops, fires}), "alpha-am"),
               2, 0, 1, 0);
  CHECK(belay.count("SELECT count(*) FROM incident WHERE dedup_key = 'flap0001' AND "
                    "status = 'RESOLVED' AND resolved_by = 'alertmanager' AND "
                    "resolved_via = 'alertmanager'") == 1);
  CHECK(belay.count("SELECT count(*) FROM incident WHERE dedup_key = 'flap0001' AND "
                    "status = 'OPEN'") == 1);
}

namespace {

// Sends `request` as raw bytes and returns the status line, or "" after `timeout`.
std::string raw_status_line(int port, const std::string& request,
                            std::chrono::milliseconds timeout) {
  test::raw_connection c{port};
  c.send_text(request);
  auto answer = c.receive(timeout);
  return answer.substr(0, answer.find("\r\n"));
}

} // namespace

// `curl -X POST …/resolve` sends neither a body nor Content-Length; such a request has
// an empty body (RFC 9112 section 6.3), which resolve accepts. cpp-httplib 0.11 alone
// would read such a body until the connection closes and answer 400 after its 5 s read
// timeout.
TEST_CASE("a resolve without a body or Content-Length answers at once") {
  test::served_belay belay;
  auto id = id_of(belay.trigger("bodyless-resolve"));
  auto started = std::chrono::steady_clock::now();
  auto status = raw_status_line(belay.process().port(),
                                "POST " + at(id) +
                                    "/resolve HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    "Authorization: Bearer alpha-key\r\n"
                                    "Connection: close\r\n\r\n",
                                std::chrono::seconds{3});
  CHECK(status == "HTTP/1.1 200 OK");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds{2});
  CHECK(column(belay, "bodyless-resolve", "status") == "RESOLVED");
}
