#include "parsed_helpers.hpp"
#include "protocol/incident_json.hpp"

using namespace belay;
using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

constexpr micros t0 = 1'795'976'415'123'000; // 2026-11-29T18:20:15.123Z

incident_record open_incident() {
  incident_record r;
  r.org_id = 7;
  r.id = 42;
  r.dedup_key = "disk-full";
  r.title = "Disk \"full\" on db1";
  r.severity = "error";
  r.policy = "default";
  r.current_step = 1;
  r.loop = 0;
  r.event_count = 3;
  r.created_at = t0;
  r.last_seen_at = t0 + 60'000'000;
  r.next_fire_at = t0 + 300'000'000;
  r.version = 4;
  return r;
}

} // namespace

TEST_CASE("incident response round-trips every incident field") {
  auto doc = json(render_incident_response(open_incident(), true));
  CHECK(doc["deduplicated"].GetBool());
  const auto& i = doc["incident"];
  CHECK(i["id"].GetInt64() == 42);
  CHECK(str(i["dedupKey"]) == "disk-full");
  CHECK(str(i["title"]) == "Disk \"full\" on db1");
  CHECK(str(i["severity"]) == "error");
  CHECK(str(i["status"]) == "OPEN");
  CHECK(str(i["policy"]) == "default");
  CHECK(i["currentStep"].GetInt() == 1);
  CHECK(i["loop"].GetInt() == 0);
  CHECK(i["eventCount"].GetInt64() == 3);
  CHECK(str(i["createdAt"]) == "2026-11-29T18:20:15.123Z");
  CHECK(str(i["lastSeenAt"]) == "2026-11-29T18:21:15.123Z");
  CHECK(str(i["nextFireAt"]) == "2026-11-29T18:25:15.123Z");
  CHECK(i["version"].GetInt64() == 4);
}

TEST_CASE("incident renders absent optionals as null and no internal fields") {
  incident_record r = open_incident();
  r.next_fire_at.reset();
  auto doc = json(render_incident_only(r));
  const auto& i = doc["incident"];
  for (auto name : {"nextFireAt", "ackedAt", "ackedBy", "ackedVia", "resolvedAt",
                    "resolvedBy", "resolvedVia", "exhaustedAt", "integration",
                    "maintenanceUntil", "priority", "snoozedUntil"}) {
    INFO(name);
    REQUIRE(i.HasMember(name));
    CHECK(i[name].IsNull());
  }
  CHECK_FALSE(i.HasMember("orgId"));
  CHECK_FALSE(i.HasMember("shadow"));
  // with reopenCount and inMaintenance (docs/guarantees.md#maintenance-windows),
  // alertCount and firingCount (docs/guarantees.md#alerts-and-grouping), priority,
  // snoozedUntil and assignedTo (docs/guarantees.md#working-an-incident)
  CHECK(i.MemberCount() == 29);
  CHECK(std::string{i["assignedTo"]["policy"].GetString()} == r.policy);
  CHECK_FALSE(doc.HasMember("deduplicated"));
}

TEST_CASE("an acknowledged and exhausted incident shows who and when") {
  incident_record r = open_incident();
  r.status = status_acknowledged;
  r.acked_at = t0 + 1000;
  r.acked_by = "alice";
  r.exhausted_at = t0;
  auto i = json(render_incident_only(r));
  CHECK(str(i["incident"]["status"]) == "ACKNOWLEDGED");
  CHECK(str(i["incident"]["ackedAt"]) == "2026-11-29T18:20:15.124Z");
  CHECK(str(i["incident"]["ackedBy"]) == "alice");
  CHECK(str(i["incident"]["exhaustedAt"]) == "2026-11-29T18:20:15.123Z");
}

TEST_CASE("an answered incident shows how it was acknowledged and who resolved it how") {
  incident_record r = open_incident();
  r.status = status_resolved;
  r.acked_at = t0;
  r.acked_by = "alice";
  r.acked_via = "sms";
  r.resolved_at = t0 + 1000;
  r.resolved_by = "bob";
  r.resolved_via = "slack";
  auto i = json(render_incident_only(r));
  CHECK(str(i["incident"]["ackedVia"]) == "sms");
  CHECK(str(i["incident"]["resolvedBy"]) == "bob");
  CHECK(str(i["incident"]["resolvedVia"]) == "slack");
}

TEST_CASE("incident list carries the next cursor or null") {
  auto page = json(render_incident_list({open_incident(), open_incident()}, "41"));
  CHECK(page["incidents"].Size() == 2);
  CHECK(page["incidents"][1]["id"].GetInt64() == 42);
  CHECK(str(page["next"]) == "41");
  auto last = json(render_incident_list({}, std::nullopt));
  CHECK(last["incidents"].Empty());
  CHECK(last["next"].IsNull());
}

TEST_CASE("incident detail embeds timeline details as objects and every delivery field") {
  timeline_entry created{t0, "created", R"({"severity":"error","n":[1,2]})"};
  delivery_record d;
  d.id = 9;
  d.incident_id = 42;
  d.loop = 1;
  d.step = 2;
  d.channel = "ops-hook";
  d.target = "#ops";
  d.idempotency_key = "42:1:2:ops-hook:#ops";
  d.status = "PENDING";
  d.attempts = 2;
  d.next_attempt_at = t0 + 30'000'000;
  d.last_error = "HTTP 503";
  d.ambiguous = true;
  d.failover_from = 8;
  d.created_at = t0;
  auto doc = json(render_incident_detail(open_incident(), {created}, {d}));
  CHECK(doc["incident"]["id"].GetInt64() == 42);
  const auto& entry = doc["timeline"][0];
  CHECK(str(entry["at"]) == "2026-11-29T18:20:15.123Z");
  CHECK(str(entry["kind"]) == "created");
  REQUIRE(entry["detail"].IsObject());
  CHECK(str(entry["detail"]["severity"]) == "error");
  CHECK(entry["detail"]["n"][1].GetInt() == 2);
  const auto& delivery = doc["deliveries"][0];
  CHECK(delivery["id"].GetInt64() == 9);
  CHECK(delivery["loop"].GetInt() == 1);
  CHECK(delivery["step"].GetInt() == 2);
  CHECK(str(delivery["channel"]) == "ops-hook");
  CHECK(str(delivery["target"]) == "#ops");
  CHECK(str(delivery["idempotencyKey"]) == "42:1:2:ops-hook:#ops");
  CHECK(str(delivery["status"]) == "PENDING");
  CHECK(delivery["attempts"].GetInt() == 2);
  CHECK(str(delivery["nextAttemptAt"]) == "2026-11-29T18:20:45.123Z");
  CHECK(str(delivery["lastError"]) == "HTTP 503");
  CHECK(delivery["ambiguous"].GetBool());
  CHECK(delivery["failoverFrom"].GetInt64() == 8);
  CHECK(delivery["sentAt"].IsNull());
  CHECK(str(delivery["createdAt"]) == "2026-11-29T18:20:15.123Z");
  CHECK(delivery["heldBy"].IsNull()); // storms (docs/architecture.md#storms) added two
  CHECK(delivery["bundle"].IsNull());
  CHECK(delivery.MemberCount() == 16);
}

TEST_CASE("a delivery without error or failover renders them as null") {
  delivery_record d;
  d.status = "SENT";
  d.sent_at = t0;
  auto doc = json(render_incident_detail(open_incident(), {}, {d}));
  const auto& delivery = doc["deliveries"][0];
  CHECK(delivery["lastError"].IsNull());
  CHECK(delivery["failoverFrom"].IsNull());
  CHECK(delivery["nextAttemptAt"].IsNull());
  CHECK(str(delivery["sentAt"]) == "2026-11-29T18:20:15.123Z");
  CHECK(delivery["heldBy"].IsNull());
  CHECK(delivery["bundle"].IsNull());
}

TEST_CASE("a damaged timeline detail still yields valid JSON") {
  timeline_entry broken{t0, "duplicate", "{not json"};
  auto doc = json(render_incident_detail(open_incident(), {broken}, {}));
  CHECK(str(doc["timeline"][0]["detail"]["unparsed"]) == "{not json");
}

TEST_CASE("dead letters render with ids and failure time") {
  dead_letter_record dl{5, 9, 42, "ops-hook", "#ops", "HTTP 404 after 1 attempt", t0};
  auto doc = json(render_dead_letters({dl}));
  const auto& d = doc["deadLetters"][0];
  CHECK(d["id"].GetInt64() == 5);
  CHECK(d["deliveryId"].GetInt64() == 9);
  CHECK(d["incidentId"].GetInt64() == 42);
  CHECK(str(d["channel"]) == "ops-hook");
  CHECK(str(d["target"]) == "#ops");
  CHECK(str(d["reason"]) == "HTTP 404 after 1 attempt");
  CHECK(str(d["failedAt"]) == "2026-11-29T18:20:15.123Z");
  CHECK(json(render_dead_letters({}))["deadLetters"].Empty());
}

TEST_CASE("strings survive rendering byte for byte, NUL and Unicode included") {
  incident_record r = open_incident();
  r.title = std::string("a\0b \xc3\xa9 \n", 7);
  auto doc = json(render_incident_only(r));
  CHECK(str(doc["incident"]["title"]) == r.title);
}

TEST_CASE("the detail shows an incident's alerts, their cursor and its evidence") {
  auto r = open_incident();
  r.alert_count = 500;
  r.firing_count = 3;
  alert_record a{9, "fp-9", "FIRING", "Node down", "critical", t0, t0 + 1'000'000, 2};
  auto doc = json(render_incident_detail(
      r, {}, {}, {}, {}, {}, {{a}, std::string{"9"}, R"([{"n":2},{"n":1}])"}));
  CHECK(doc["incident"]["alertCount"].GetInt() == 500);
  CHECK(doc["incident"]["firingCount"].GetInt() == 3);
  REQUIRE(doc["alerts"].Size() == 1);
  auto& shown = doc["alerts"][0];
  CHECK(str(shown["key"]) == "fp-9");
  CHECK(str(shown["status"]) == "FIRING");
  CHECK(str(shown["title"]) == "Node down");
  CHECK(str(shown["severity"]) == "critical");
  CHECK(str(shown["firstSeenAt"]) == "2026-11-29T18:20:15.123Z");
  CHECK(str(shown["lastSeenAt"]) == "2026-11-29T18:20:16.123Z");
  CHECK(shown["eventCount"].GetInt64() == 2);
  CHECK(shown.MemberCount() == 7);
  CHECK(str(doc["alertsNext"]) == "9");
  REQUIRE(doc["evidence"].Size() == 2);
  CHECK(doc["evidence"][0]["n"].GetInt() == 2);

  auto page = json(render_alert_page({a}, std::nullopt));
  CHECK(page["alerts"].Size() == 1);
  CHECK(page["next"].IsNull());
}

TEST_CASE("a page held by its contact's throttle says so, and a bundled one names its "
          "bundle",
          "[storms]") {
  delivery_record held;
  held.status = "PENDING";
  held.held_by = "throttle";
  held.next_attempt_at = t0;
  delivery_record bundled;
  bundled.status = "SENT";
  bundled.bundle_id = 77;
  auto doc = json(render_incident_detail(open_incident(), {}, {held, bundled}));
  CHECK(str(doc["deliveries"][0]["heldBy"]) == "throttle");
  CHECK(str(doc["deliveries"][0]["nextAttemptAt"]) == "2026-11-29T18:20:15.123Z");
  CHECK(doc["deliveries"][1]["bundle"].GetInt64() == 77);
  CHECK(doc["deliveries"][1]["heldBy"].IsNull());
}
