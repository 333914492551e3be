// Several belay processes on one database (docs/architecture.md#ownership): whichever
// node an event reaches, it acts on the incident the database says is current.
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>

using namespace belay;

// A node-local map from dedup key to incident goes stale once another node resolves
// the incident and opens the next one for the same key: the acknowledge would reach
// the old incident (409 inside, 202 outside) and be lost. Keys are resolved in SQL.
TEST_CASE(
    "an acknowledge by dedup key reaches the current incident whichever node holds it") {
  test::served_belay belay{test::two_orgs(), 2};
  // Node 0 opens the first incident and holds its actor.
  auto first = belay.trigger("moved-on", "alpha-key", 0);
  REQUIRE(first.status == 201);
  auto first_id = test::id_of(first);
  belay.wait_settled(first_id);
  // Node 1 resolves it and, the key being free, opens the next one.
  REQUIRE(belay
              .post("/api/v1/incidents/" + std::to_string(first_id) + "/resolve", "{}",
                    "alpha-key", 1)
              .status == 200);
  auto second = belay.trigger("moved-on", "alpha-key", 1);
  REQUIRE(second.status == 201);
  auto second_id = test::id_of(second);
  belay.wait_settled(second_id);

  // The acknowledge reaches node 0, which still remembers the first incident's key.
  REQUIRE(belay.enqueue("acknowledge", "moved-on").status == 202);
  CHECK(belay.db.incident_status(second_id) == "ACKNOWLEDGED");
  REQUIRE(belay.enqueue("resolve", "moved-on").status == 202);
  CHECK(belay.db.incident_status(second_id) == "RESOLVED");
}

// A registry that spawned an actor for every incident an upsert returns would start a
// second ladder on node 1 for node 0's incident. The step compare-and-set would keep
// it from paging twice, but two nodes would run one incident's timers
// (docs/architecture.md#ownership).
TEST_CASE("a duplicate through another node leaves the incident held by one node") {
  test::served_belay belay{test::two_orgs(), 2};
  auto first = belay.trigger("held-once", "alpha-key", 0);
  REQUIRE(first.status == 201);
  belay.wait_settled(test::id_of(first));
  REQUIRE(belay.trigger("held-once", "alpha-key", 1).status == 200);

  size_t holders = 0;
  for (int node = 0; node < 2; ++node) {
    auto view = belay.get("/api/v1/inspector", "alpha-key", node);
    INFO("node " << node << ": " << view.body);
    REQUIRE(view.status == 200);
    holders += view.json["incidents"].Size();
  }
  CHECK(holders == 1);
  CHECK(belay.count("SELECT count(DISTINCT owner) FROM incident") == 1);
}

// An acknowledge or resolve committed through another node reaches the holder's actor at
// once (LISTEN/NOTIFY), not when its next step is due a day later: the holder's console
// shows the incident acknowledged, and once resolved the actor is gone. The holder's
// listening session is killed in between: it must listen again by itself.
TEST_CASE("an acknowledge through another node reaches the holding actor at once") {
  test::served_belay belay{test::two_orgs(), 2};
  auto opened = belay.trigger("told", "alpha-key", 0);
  REQUIRE(opened.status == 201);
  auto id = test::id_of(opened);
  belay.wait_settled(id);
  REQUIRE(belay.held_status() == "OPEN");

  auto path = "/api/v1/incidents/" + std::to_string(id);
  REQUIRE(belay.post(path + "/ack", R"({"by":"alice"})", "alpha-key", 1).status == 200);
  CHECK(test::eventually([&] { return belay.held_status() == "ACKNOWLEDGED"; },
                         std::chrono::seconds{5}));

  // Kill the holder's listening session; it must come back as a new one by itself. (Its
  // last query is LISTEN or, after 5 s, the listener's probe: the name tells it.)
  auto listening = "SELECT pid FROM pg_stat_activity WHERE application_name = "
                   "'belay listener " +
                   std::to_string(belay.process(0).pid()) + "'";
  auto killed = belay.count(listening);
  REQUIRE(belay.count("SELECT count(*) FROM pg_terminate_backend(" +
                      std::to_string(killed) + ") WHERE pg_terminate_backend") == 1);
  REQUIRE(test::eventually(
      [&] {
        return belay.count("SELECT count(*) FROM (" + listening + ") l WHERE pid <> " +
                           std::to_string(killed)) == 1;
      },
      std::chrono::seconds{5}));
  REQUIRE(belay.post(path + "/resolve", "{}", "alpha-key", 1).status == 200);
  CHECK(test::eventually([&] { return belay.held_status() == "none held"; },
                         std::chrono::seconds{5}));
}
