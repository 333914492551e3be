// Working an incident through the real binary (docs/http.md#working-an-incident): notes,
// escalate, snooze, reassign and priority, each attributed to the credential and audited;
// bad input answered precisely with nothing written.
#include "support/eventually.hpp"
#include "support/json.hpp"
#include "support/people.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using test::str;

namespace {

struct working {
  test::served_belay belay{test::people_orgs()};
  int64_t id = test::id_of(belay.trigger("disk"));
  std::string path(const std::string& action, int64_t which = 0) {
    return "/api/v1/incidents/" + std::to_string(which ? which : id) + "/" + action;
  }
  test::reply act(const std::string& action, const std::string& body,
                  const std::string& key = "alpha-pager") {
    return belay.post(path(action), body, key);
  }
  int64_t deliveries_to(const std::string& target) {
    return belay.count("SELECT count(*) FROM delivery WHERE target = '" + target + "'");
  }
  std::string audit() {
    return belay.db.sql()
        .query("SELECT string_agg(action || ' ' || actor, ', ' ORDER BY id) FROM audit "
               "WHERE action LIKE 'incident.%'")
        .str(0, 0);
  }
};

} // namespace

TEST_CASE("notes, priority, escalate, snooze and reassign through the API, each "
          "attributed to the credential and in the audit log") {
  working w;
  auto note = w.act("notes", R"({"text":"looking at the disk","by":"someone else"})");
  REQUIRE(note.status == 200);
  CHECK(w.belay.db.sql()
            .query("SELECT detail->>'by' || ' ' || (detail->>'text') FROM timeline WHERE "
                   "kind = 'note_added'")
            .str(0, 0) ==
        "key:pager looking at the disk"); // a responder key names itself
  // An admin key may say whom it acts for.
  REQUIRE(w.act("notes", R"({"text":"for ada","by":"ada"})", "alpha-ops").status == 200);

  auto p2 = w.act("priority", R"({"priority":"P2"})");
  REQUIRE(p2.status == 200);
  CHECK(str(p2.json["incident"]["priority"]) == "P2");
  CHECK(w.belay.get("/api/v1/incidents?priority=P2", "alpha-reader")
            .json["incidents"]
            .Size() == 1);
  CHECK(w.belay.get("/api/v1/incidents?priority=P1", "alpha-reader")
            .json["incidents"]
            .Size() == 0);

  // Step 1 is a day away; escalate pages "lead" now.
  REQUIRE(test::eventually([&] { return w.deliveries_to("#ops") == 1; }));
  auto escalated = w.act("escalate", "");
  REQUIRE(escalated.status == 200);
  CHECK(str(escalated.json["incident"]["status"]) == "OPEN");
  CHECK(test::eventually([&] { return w.deliveries_to("lead") == 1; }));

  REQUIRE(w.act("ack", "{}").status == 200);
  auto snoozed = w.act("snooze", R"({"seconds":3600})");
  REQUIRE(snoozed.status == 200);
  CHECK(str(snoozed.json["incident"]["status"]) == "ACKNOWLEDGED");
  CHECK(snoozed.json["incident"]["snoozedUntil"].IsString());

  auto reassigned = w.act("reassign", R"({"user":"rita"})");
  REQUIRE(reassigned.status == 200);
  CHECK(str(reassigned.json["incident"]["status"]) == "OPEN");
  CHECK(str(reassigned.json["incident"]["assignedTo"]["user"]) == "rita");
  CHECK(reassigned.json["incident"]["snoozedUntil"].IsNull());
  CHECK(test::eventually([&] { return w.deliveries_to("rita") == 1; }));

  CHECK(w.audit() == "incident.note key:pager, incident.note ada, incident.priority "
                     "key:pager, incident.escalate key:pager, incident.ack key:pager, "
                     "incident.snooze key:pager, incident.reassign key:pager");
  auto detail = w.belay.get("/api/v1/incidents/" + std::to_string(w.id), "alpha-reader");
  std::string kinds;
  for (auto& e : detail.json["timeline"].GetArray())
    if (str(e["kind"]).rfind("delivery_", 0) != 0) // deliveries interleave as they go
      kinds += str(e["kind"]) + " ";
  INFO(kinds);
  CHECK(kinds.find("note_added note_added priority_changed") != std::string::npos);
  CHECK(kinds.find("escalated step_fired acknowledged snoozed reassigned step_fired") !=
        std::string::npos);
  // A viewer's key may read but not act.
  CHECK(w.act("notes", R"({"text":"x"})", "alpha-reader").status == 403);
}

TEST_CASE("working an incident with bad input is refused precisely and writes nothing") {
  working w;
  auto beta = test::id_of(w.belay.trigger("disk", "beta-key"));
  // Both first pages sent and their outcomes written: nothing else writes meanwhile.
  REQUIRE(test::eventually([&] {
    return w.belay.count("SELECT count(*) FROM timeline WHERE kind = 'delivery_sent'") ==
           2;
  }));
  auto rows = w.belay.row_counts();
  auto audit_rows = w.belay.count("SELECT count(*) FROM audit");
  auto refused = [&](const std::string& action, const std::string& body, int status,
                     const std::string& code, int64_t which = 0) {
    auto r = w.belay.post(w.path(action, which), body, "alpha-pager");
    CHECK(r.status == status);
    CHECK(test::error_code(r) == code);
    return test::error_field(r);
  };
  CHECK(refused("notes", "{}", 400, "missing_field") == "text");
  CHECK(refused("notes", R"({"text":")" + std::string(4001, 'x') + R"("})", 400,
                "too_long") == "text");
  CHECK(refused("notes", "{not json", 400, "invalid_json").empty());
  refused("notes", R"({"text":"x"})", 404, "not_found", 999999);
  refused("notes", R"({"text":"x"})", 404, "not_found", beta); // another org's
  refused("snooze", R"({"seconds":600})", 409, "not_acknowledged");
  CHECK(refused("snooze", "{}", 400, "missing_field") == "until");
  CHECK(refused("snooze", R"({"seconds":600,"until":"2030-01-01T00:00:00Z"})", 400,
                "missing_field") == "until");
  CHECK(refused("snooze", R"({"seconds":"soon"})", 400, "wrong_type") == "seconds");
  CHECK(refused("snooze", R"({"seconds":86401})", 400, "invalid_value") == "seconds");
  CHECK(refused("snooze", R"({"until":"2020-01-01T00:00:00Z"})", 400, "invalid_value") ==
        "until");
  CHECK(refused("snooze", R"({"until":"tomorrow"})", 400, "invalid_value") == "until");
  CHECK(refused("reassign", "{}", 400, "missing_field") == "policy");
  CHECK(refused("reassign", R"({"policy":"default","user":"rita"})", 400,
                "invalid_value") == "policy");
  CHECK(refused("reassign", R"({"policy":"nope"})", 400, "unknown_policy") == "policy");
  CHECK(refused("reassign", R"({"user":"nobody"})", 400, "unknown_user") == "user");
  CHECK(refused("reassign", R"({"schedule":"none"})", 400, "unknown_schedule") ==
        "schedule");
  CHECK(refused("priority", "{}", 400, "missing_field") == "priority");
  CHECK(refused("priority", R"({"priority":"P7"})", 400, "invalid_value") == "priority");
  CHECK(w.belay.get("/api/v1/incidents?priority=P0", "alpha-key").status == 400);
  CHECK(w.belay.row_counts() == rows);
  CHECK(w.belay.count("SELECT count(*) FROM audit") == audit_rows);

  // At 2,000 notes an incident takes no more.
  w.belay.db.sql().query(
      "INSERT INTO timeline (org_id, incident_id, at, kind, detail) SELECT org_id, id, "
      "now(), 'note_added', '{}' FROM incident, generate_series(1, 2000) WHERE id = $1",
      w.id);
  refused("notes", R"({"text":"one more"})", 409, "too_many_notes");
  REQUIRE(w.act("resolve", "{}").status == 200);
  refused("escalate", "", 409, "invalid_transition");
  refused("reassign", R"({"policy":"default"})", 409, "invalid_transition");
}

TEST_CASE("responders are paged now through their own rules, while the incident is "
          "acknowledged too, and their own acknowledge marks them") {
  working w;
  REQUIRE(test::eventually([&] { return w.deliveries_to("#ops") == 1; }));
  REQUIRE(w.act("ack", "{}").status == 200);
  auto asked = w.act("responders", R"({"users":["rita"],"message":"need the DBA"})");
  REQUIRE(asked.status == 200);
  // Sent though the incident is acknowledged: rita's log contact.
  CHECK(test::eventually([&] {
    return w.belay.count("SELECT count(*) FROM delivery WHERE target = 'rita' AND "
                         "status = 'SENT' AND requested AND message = 'need the DBA'") ==
           1;
  }));
  auto detail = w.belay.get("/api/v1/incidents/" + std::to_string(w.id), "alpha-reader");
  REQUIRE(detail.json["responders"].Size() == 1);
  auto& rita = detail.json["responders"][0];
  CHECK(str(rita["user"]) == "rita");
  CHECK(str(rita["state"]) == "requested");
  CHECK(str(rita["requestedBy"]) == "key:pager");
  CHECK(str(rita["message"]) == "need the DBA");
  // The ladder is left alone: still acknowledged, no step fired since.
  CHECK(str(detail.json["incident"]["status"]) == "ACKNOWLEDGED");
  CHECK(w.belay.count("SELECT count(*) FROM timeline WHERE kind = 'step_fired'") == 1);
  // rita acknowledges too (an admin key speaking for her): she is acknowledged.
  REQUIRE(w.act("ack", R"({"by":"rita"})", "alpha-ops").status == 200);
  detail = w.belay.get("/api/v1/incidents/" + std::to_string(w.id), "alpha-reader");
  CHECK(str(detail.json["responders"][0]["state"]) == "acknowledged");
  CHECK(detail.json["responders"][0]["acknowledgedAt"].IsString());
  CHECK(w.belay.count(
            "SELECT count(*) FROM audit WHERE action = 'incident.responders'") == 1);
  // Asked again: a page of its own, not the first one's key.
  REQUIRE(w.act("responders", R"({"users":["rita"]})").status == 200);
  CHECK(test::eventually([&] { return w.deliveries_to("rita") == 2; }));
}

TEST_CASE("a status update reaches every subscriber, each through its channel, and is "
          "listed in the timeline") {
  working w;
  auto none = w.act("status-updates", R"({"message":"looking"})");
  CHECK(none.status == 409);
  CHECK(test::error_code(none) == "no_subscribers");
  auto added =
      w.act("subscribers",
            R"({"users":["vera"],"channels":[{"channel":"log","to":"#status"}]})");
  REQUIRE(added.status == 200);
  CHECK(w.act("subscribers", R"({"users":["vera"]})").status ==
        200); // already: unchanged
  CHECK(w.belay.count("SELECT count(*) FROM timeline WHERE kind = 'subscribers_added'") ==
        1);
  auto detail = w.belay.get("/api/v1/incidents/" + std::to_string(w.id), "alpha-reader");
  REQUIRE(detail.json["subscribers"].Size() == 2);
  CHECK(str(detail.json["subscribers"][0]["user"]) == "vera");
  CHECK(str(detail.json["subscribers"][1]["to"]) == "#status");

  REQUIRE(w.act("status-updates", R"({"message":"failing over to db-2"})").status == 200);
  CHECK(test::eventually([&] {
    return w.belay.count(
               "SELECT count(*) FROM delivery WHERE update_of = 'status_update' "
               "AND status = 'SENT' AND message = 'failing over to db-2'") == 2;
  }));
  // The log channel renders it as every channel's status update does.
  CHECK(test::eventually([&] {
    return w.belay.process().log().find("Update on #" + std::to_string(w.id) +
                                        " disk full on disk: failing over to db-2") !=
           std::string::npos;
  }));
  CHECK(w.belay.db.sql()
            .query(
                "SELECT detail->>'recipients' FROM timeline WHERE kind = 'status_update'")
            .str(0, 0) == "2");
  // A status update goes whatever the incident's state: resolved, it still tells them.
  REQUIRE(w.act("resolve", "{}").status == 200);
  REQUIRE(w.act("status-updates", R"({"message":"fixed; postmortem tomorrow"})").status ==
          200);
  CHECK(test::eventually([&] {
    return w.belay.count(
               "SELECT count(*) FROM delivery WHERE update_of = 'status_update' "
               "AND status = 'SENT'") == 4;
  }));
}

TEST_CASE("responders, subscribers and status updates with bad input are refused "
          "precisely and write nothing") {
  working w;
  REQUIRE(test::eventually([&] {
    return w.belay.count("SELECT count(*) FROM timeline WHERE kind = 'delivery_sent'") ==
           1;
  }));
  auto rows = w.belay.row_counts();
  auto side_rows = [&] {
    return w.belay.count(
        "SELECT (SELECT count(*) FROM audit) + (SELECT count(*) FROM "
        "incident_responder) + (SELECT count(*) FROM incident_subscriber)");
  };
  auto before = side_rows();
  auto refused = [&](const std::string& action, const std::string& body,
                     const std::string& code) {
    auto r = w.act(action, body);
    CHECK(r.status == (code == "nobody_to_page" ? 409 : 400));
    CHECK(test::error_code(r) == code);
    return test::error_field(r);
  };
  CHECK(refused("responders", "{}", "missing_field") == "users");
  CHECK(refused("responders", R"({"users":["rita","nobody"]})", "unknown_user") ==
        "users[1]");
  CHECK(refused("responders", R"({"schedules":["none"]})", "unknown_schedule") ==
        "schedules[0]");
  CHECK(refused("responders", R"({"users":[""]})", "invalid_value") == "users[0]");
  CHECK(refused("responders",
                R"({"users":["rita"],"message":")" + std::string(1001, 'x') + R"("})",
                "too_long") == "message");
  CHECK(refused("subscribers", R"({"channels":[{"channel":"nope","to":"x"}]})",
                "unknown_channel") == "channels[0].channel");
  CHECK(refused("subscribers", R"({"channels":[{"channel":"log"}]})", "missing_field") ==
        "channels[0].to");
  CHECK(refused("subscribers", R"({"users":["vera","ghost"]})", "unknown_user") ==
        "users[1]");
  CHECK(refused("status-updates", "{}", "missing_field") == "message");
  CHECK(w.belay.row_counts() == rows);
  CHECK(side_rows() == before);
}

TEST_CASE("merge refuses itself, an unknown or another org's incident, and a resolved "
          "one, writing nothing") {
  working w;
  auto other = test::id_of(w.belay.trigger("cpu"));
  auto beta = test::id_of(w.belay.trigger("disk", "beta-key"));
  auto resolved = test::id_of(w.belay.trigger("old"));
  REQUIRE(w.belay.post(w.path("resolve", resolved), "{}", "alpha-pager").status == 200);
  REQUIRE(test::eventually([&] {
    return w.belay.count("SELECT count(*) FROM timeline WHERE kind = 'delivery_sent'") ==
           4;
  }));
  auto rows = w.belay.row_counts();
  auto audit_rows = w.belay.count("SELECT count(*) FROM audit");
  auto refused = [&](int64_t from, const std::string& body, int status,
                     const std::string& code) {
    auto r = w.belay.post(w.path("merge", from), body, "alpha-pager");
    CHECK(r.status == status);
    CHECK(test::error_code(r) == code);
    return test::error_field(r);
  };
  auto into = [](int64_t id) { return R"({"into":)" + std::to_string(id) + "}"; };
  CHECK(refused(w.id, into(w.id), 400, "invalid_value") == "into");
  CHECK(refused(w.id, into(999999), 400, "unknown_incident") == "into");
  CHECK(refused(w.id, into(beta), 400, "unknown_incident") == "into"); // beta's
  CHECK(refused(w.id, "{}", 400, "missing_field") == "into");
  CHECK(refused(w.id, R"({"into":"2"})", 400, "wrong_type") == "into");
  refused(w.id, into(resolved), 409, "target_resolved");
  refused(resolved, into(w.id), 409, "invalid_transition");
  refused(999999, into(w.id), 404, "not_found");
  CHECK(w.belay.row_counts() == rows);
  CHECK(w.belay.count("SELECT count(*) FROM audit") == audit_rows);
  CHECK(w.belay.count("SELECT count(*) FROM merged_key") == 0);

  auto merged = w.belay.post(w.path("merge"), into(other), "alpha-pager");
  REQUIRE(merged.status == 200);
  CHECK(str(merged.json["incident"]["status"]) == "RESOLVED");
  CHECK(str(merged.json["incident"]["resolvedVia"]) == "merge");
  auto detail = w.belay.get("/api/v1/incidents/" + std::to_string(w.id), "alpha-reader");
  CHECK(detail.json["mergedInto"].GetInt64() == other);
  // The merged key's next event answers with the incident it went into.
  auto again = w.belay.trigger("disk");
  CHECK(again.status == 200);
  CHECK(test::id_of(again) == other);
}
