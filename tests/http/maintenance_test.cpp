// Maintenance windows and change events through the running binary
// (docs/guarantees.md#maintenance-windows, docs/guarantees.md#change-events).
#include "protocol/time.hpp"
#include "support/json.hpp"
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

using namespace belay;
using test::str;

namespace {

std::string in_hours(double hours) {
  auto now = std::chrono::duration_cast<std::chrono::microseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  return protocol::rfc3339(now + static_cast<micros>(hours * 3600e6));
}

int del(test::served_belay& belay, const std::string& path, const std::string& key) {
  httplib::Headers auth{{"Authorization", "Bearer " + key}};
  auto r = belay.client().Delete(path.c_str(), auth);
  return r ? r->status : 0;
}

} // namespace

TEST_CASE("maintenance windows are created, listed and ended early") {
  test::served_belay belay;
  auto made = belay.post("/api/v1/maintenance",
                         R"({"policy":"default","end":")" + in_hours(1) +
                             R"(","reason":"db migration"})",
                         "alpha-key");
  REQUIRE(made.status == 201);
  auto& m = made.json["maintenance"];
  CHECK(m["id"].IsInt64());
  CHECK(str(m["policy"]) == "default");
  CHECK(m["integration"].IsNull());
  CHECK(str(m["reason"]) == "db migration");
  CHECK(m["start"].IsString());
  CHECK(m["createdAt"].IsString());
  auto later = belay.post("/api/v1/maintenance",
                          R"({"integration":"pd","start":")" + in_hours(2) +
                              R"(","end":")" + in_hours(3) + R"("})",
                          "alpha-key");
  REQUIRE(later.status == 201);

  auto listed = belay.get("/api/v1/maintenance", "alpha-key");
  REQUIRE(listed.status == 200);
  REQUIRE(listed.json["maintenance"].Size() == 2); // active and future
  CHECK(str(listed.json["maintenance"][1]["integration"]) == "pd");
  CHECK(belay.get("/api/v1/maintenance", "beta-key").json["maintenance"].Size() == 0);

  auto path = "/api/v1/maintenance/" + std::to_string(m["id"].GetInt64());
  CHECK(del(belay, path, "beta-key") == 404); // another org's
  CHECK(del(belay, path, "alpha-key") == 204);
  CHECK(del(belay, path, "alpha-key") == 404); // over already
  CHECK(del(belay, "/api/v1/maintenance/999999", "alpha-key") == 404);
  CHECK(del(belay, "/api/v1/maintenance/x", "alpha-key") == 404);
  CHECK(belay.get("/api/v1/maintenance", "alpha-key").json["maintenance"].Size() == 1);
}

TEST_CASE("a maintenance window with bad input is refused, naming the field, and "
          "nothing is written") {
  test::served_belay belay;
  auto refused = [&](const std::string& body) {
    auto r = belay.post("/api/v1/maintenance", body, "alpha-key");
    CHECK(r.status == 400);
    return test::error_field(r);
  };
  auto end = in_hours(1);
  CHECK(refused(R"({"policy":"default","start":")" + end + R"(","end":")" + end +
                R"("})") == "end");
  CHECK(refused(R"({"policy":"default","start":")" + in_hours(2) + R"(","end":")" + end +
                R"("})") == "end");
  CHECK(refused(R"({"end":")" + end + R"("})") == "policy");
  CHECK(refused(R"({"policy":"default","integration":"pd","end":")" + end + R"("})") ==
        "integration");
  CHECK(refused(R"({"policy":"nope","end":")" + end + R"("})") == "policy");
  CHECK(refused(R"({"integration":"nope","end":")" + end + R"("})") == "integration");
  CHECK(refused(R"({"policy":"default"})") == "end");
  CHECK(belay
            .post("/api/v1/maintenance", R"({"policy":"default","end":")" + end + R"("})",
                  "nobody-key")
            .status == 401);
  CHECK(belay.count("SELECT count(*) FROM maintenance") == 0);
}

TEST_CASE("during maintenance an incident opens marked, pages nobody and can be "
          "acknowledged, and ended early a held ladder pages") {
  test::served_belay belay;
  auto made =
      belay.post("/api/v1/maintenance",
                 R"({"policy":"default","end":")" + in_hours(1) + R"("})", "alpha-key");
  REQUIRE(made.status == 201);
  auto first = belay.trigger("disk");
  REQUIRE(first.status == 201);
  CHECK(first.json["incident"]["inMaintenance"].GetBool());
  CHECK(first.json["incident"]["maintenanceUntil"].IsString());
  CHECK(belay.trigger("disk").status == 200); // deduplicated as usual
  auto id = test::id_of(first);
  auto acked = belay.post("/api/v1/incidents/" + std::to_string(id) + "/ack",
                          R"({"by":"alice"})", "alpha-key");
  CHECK(acked.status == 200);
  CHECK(str(acked.json["incident"]["status"]) == "ACKNOWLEDGED");
  // beta's incidents are not covered by alpha's window.
  auto other = belay.trigger("disk", "beta-key");
  REQUIRE(other.status == 201);
  CHECK_FALSE(other.json["incident"]["inMaintenance"].GetBool());
  auto held = belay.trigger("cpu");
  auto held_id = test::id_of(held);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK(belay.count("SELECT count(*) FROM delivery WHERE org_id = (SELECT id FROM org "
                    "WHERE name = 'alpha')") == 0);
  auto path =
      "/api/v1/maintenance/" + std::to_string(made.json["maintenance"]["id"].GetInt64());
  CHECK(del(belay, path, "alpha-key") == 204);
  // A held ladder asks every 10 s whether its window ended early.
  CHECK(test::eventually(
      [&] {
        return belay.count("SELECT count(*) FROM delivery WHERE incident_id = " +
                           std::to_string(held_id) + " AND status = 'SENT'") == 1;
      },
      std::chrono::seconds{15}));
  auto shown = belay.get("/api/v1/incidents/" + std::to_string(held_id), "alpha-key");
  CHECK_FALSE(shown.json["incident"]["inMaintenance"].GetBool());
  CHECK(belay.count("SELECT count(*) FROM delivery WHERE incident_id = " +
                    std::to_string(id)) == 0);
}

TEST_CASE("change events are recorded without their keys, listed newest first and "
          "shown with the incidents opened after them; they never page") {
  test::served_belay belay;
  auto before = belay.row_counts();
  auto sent = belay.post("/v2/change/enqueue",
                         R"({"routing_key":"alpha-routing",
      "payload":{"summary":"deploy web 1.2.3","source":"ci","timestamp":")" +
                             in_hours(-0.5) + R"(",
        "custom_details":{"commit":"abc","deploy_token":"hunter2"}},
      "links":[{"href":"https://ci.example/1","text":"build 1"}]})",
                         "");
  REQUIRE(sent.status == 202);
  CHECK(str(sent.json["status"]) == "success");
  CHECK(str(sent.json["message"]) == "Change event processed");
  auto old = belay.post("/v2/change/enqueue",
                        R"({"routing_key":"alpha-routing",
      "payload":{"summary":"config push","timestamp":")" +
                            in_hours(-2) + R"("}})",
                        "");
  REQUIRE(old.status == 202);
  CHECK(belay.row_counts() == before); // no incident, timeline or delivery

  auto listed = belay.get("/api/v1/changes", "alpha-key");
  REQUIRE(listed.status == 200);
  auto& changes = listed.json["changes"];
  REQUIRE(changes.Size() == 2);
  CHECK(str(changes[0]["summary"]) == "config push"); // newest first, as received
  CHECK(str(changes[1]["summary"]) == "deploy web 1.2.3");
  CHECK(str(changes[1]["source"]) == "ci");
  CHECK(str(changes[1]["integration"]) == "pd");
  CHECK(str(changes[1]["details"]["commit"]) == "abc");
  CHECK_FALSE(changes[1]["details"].HasMember("deploy_token"));
  CHECK(str(changes[1]["links"][0]["href"]) == "https://ci.example/1");
  CHECK(listed.json["next"].IsNull());
  auto page = belay.get("/api/v1/changes?limit=1", "alpha-key");
  REQUIRE(page.json["changes"].Size() == 1);
  REQUIRE(page.json["next"].IsString());
  auto rest =
      belay.get("/api/v1/changes?limit=1&after=" + str(page.json["next"]), "alpha-key");
  REQUIRE(rest.json["changes"].Size() == 1);
  CHECK(str(rest.json["changes"][0]["summary"]) == "deploy web 1.2.3");
  CHECK(belay.get("/api/v1/changes", "beta-key").json["changes"].Size() == 0);
  CHECK(belay.count(
            "SELECT count(*) FROM change_event WHERE details::text LIKE '%hunter2%' "
            "OR details::text LIKE '%alpha-routing%'") == 0);

  // Opened within the hour after the deploy, not the config push two hours ago.
  auto inc = belay.trigger("after-deploy");
  REQUIRE(inc.status == 201);
  auto shown =
      belay.get("/api/v1/incidents/" + std::to_string(test::id_of(inc)), "alpha-key");
  REQUIRE(shown.status == 200);
  REQUIRE(shown.json["changes"].Size() == 1);
  CHECK(str(shown.json["changes"][0]["summary"]) == "deploy web 1.2.3");
}

TEST_CASE("an invalid change event gets PagerDuty's invalid-event body and writes "
          "nothing") {
  test::served_belay belay;
  auto invalid = belay.post("/v2/change/enqueue",
                            R"({"routing_key":"alpha-routing","payload":{}})", "");
  CHECK(invalid.status == 400);
  CHECK(str(invalid.json["status"]) == "invalid event");
  CHECK(invalid.json["errors"].Size() == 1);
  auto unknown = belay.post("/v2/change/enqueue",
                            R"({"routing_key":"nope","payload":{"summary":"s"}})", "");
  CHECK(unknown.status == 400);
  CHECK(str(unknown.json["errors"][0]) == "Invalid routing key");
  CHECK(belay.count("SELECT count(*) FROM change_event") == 0);
}
