// G1 and G2 through the running binary: the database arbitrates creation, across
// threads and processes, and a resolved incident frees its key.
#include "support/served_belay.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <set>
#include <thread>

using namespace belay;
using test::id_of;

namespace {

struct burst_outcome {
  int created = 0;      // 201 with deduplicated=false
  int deduplicated = 0; // 200 with deduplicated=true
  std::vector<std::string> other;
  std::set<int64_t> ids;
};

// `threads` threads each send `per_thread` triggers of `key`, spread over the nodes,
// released together so that they race.
burst_outcome burst(test::served_belay& belay, const std::string& key, int threads,
                    int per_thread, int nodes) {
  burst_outcome out;
  std::mutex mutex;
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ++ready;
      while (ready < threads)
        std::this_thread::yield();
      for (int i = 0; i < per_thread; ++i) {
        auto r = belay.trigger(key, "alpha-key", (t + i) % nodes);
        std::lock_guard lock{mutex};
        bool shaped = r.json.IsObject() && r.json.HasMember("incident") &&
                      r.json.HasMember("deduplicated");
        if (shaped)
          out.ids.insert(r.json["incident"]["id"].GetInt64());
        if (shaped && r.status == 201 && !r.json["deduplicated"].GetBool())
          ++out.created;
        else if (shaped && r.status == 200 && r.json["deduplicated"].GetBool())
          ++out.deduplicated;
        else
          out.other.push_back(std::to_string(r.status) + " " + r.body);
      }
    });
  }
  for (auto& th : pool)
    th.join();
  return out;
}

void check_one_incident(test::served_belay& belay, const std::string& key, int events) {
  auto rows = belay.db.sql().query(
      "SELECT count(*), max(event_count) FROM incident WHERE dedup_key = $1", key);
  CHECK(rows.int64(0, 0) == 1);
  CHECK(rows.int64(0, 1) == events);
  auto notes = belay.db.sql().query(
      "SELECT count(*) FILTER (WHERE kind = 'created'), count(*) FILTER (WHERE kind = "
      "'duplicate') FROM timeline t JOIN incident i ON i.id = t.incident_id "
      "WHERE i.dedup_key = $1",
      key);
  CHECK(notes.int64(0, 0) == 1);
  CHECK(notes.int64(0, 1) == events - 1);
}

// The status of the incident an answer shows.
std::string status_in(const test::reply& r) {
  REQUIRE(r.json.IsObject());
  return r.json["incident"]["status"].GetString();
}

} // namespace

TEST_CASE("50 concurrent triggers of one key answer one 201 and open one incident") {
  test::served_belay belay;
  auto out = burst(belay, "race-one-node", 10, 5, 1);
  INFO("unexpected answers: " << out.other.size()
                              << (out.other.empty() ? "" : ", first: " + out.other[0]));
  CHECK(out.other.empty());
  CHECK(out.created == 1);
  CHECK(out.deduplicated == 49);
  CHECK(out.ids.size() == 1);
  check_one_incident(belay, "race-one-node", 50);
}

TEST_CASE(
    "50 concurrent triggers of one key across two belay processes open one incident") {
  test::served_belay belay{test::two_orgs(), 2};
  auto out = burst(belay, "race-two-nodes", 10, 5, 2);
  INFO("unexpected answers: " << out.other.size()
                              << (out.other.empty() ? "" : ", first: " + out.other[0]));
  CHECK(out.other.empty());
  CHECK(out.created == 1);
  CHECK(out.deduplicated == 49);
  CHECK(out.ids.size() == 1);
  check_one_incident(belay, "race-two-nodes", 50);
}

TEST_CASE("a trigger after resolve opens a new incident and pages again") {
  test::served_belay belay;
  auto first = belay.trigger("after-resolve");
  REQUIRE(first.status == 201);
  auto first_id = id_of(first);
  belay.wait_settled(first_id);

  auto resolved = belay.post("/api/v1/incidents/" + std::to_string(first_id) + "/resolve",
                             "", "alpha-key");
  REQUIRE(resolved.status == 200);
  CHECK(status_in(resolved) == "RESOLVED");

  auto again = belay.trigger("after-resolve");
  REQUIRE(again.status == 201);
  CHECK_FALSE(again.json["deduplicated"].GetBool());
  auto second_id = id_of(again);
  CHECK(second_id != first_id);
  CHECK(status_in(again) == "OPEN");
  CHECK(again.json["incident"]["eventCount"].GetInt64() == 1);
  belay.wait_settled(second_id); // the new incident pages: its first step fired

  CHECK(belay.count("SELECT count(*) FROM incident WHERE dedup_key = 'after-resolve'") ==
        2);
  CHECK(belay.count("SELECT count(*) FROM incident WHERE dedup_key = 'after-resolve' AND "
                    "status = 'RESOLVED'") == 1);
  CHECK(belay.count("SELECT count(*) FROM delivery WHERE incident_id = " +
                    std::to_string(second_id)) == 1);
}

TEST_CASE("duplicates while acknowledged join the same incident") {
  test::served_belay belay;
  auto opened = belay.trigger("while-acked");
  REQUIRE(opened.status == 201);
  auto id = id_of(opened);
  belay.wait_settled(id);

  auto acked = belay.post("/api/v1/incidents/" + std::to_string(id) + "/ack",
                          R"({"by":"alice"})", "alpha-key");
  REQUIRE(acked.status == 200);
  CHECK(status_in(acked) == "ACKNOWLEDGED");
  auto deliveries = belay.count("SELECT count(*) FROM delivery");

  for (int n = 2; n <= 4; ++n) {
    auto dup = belay.trigger("while-acked");
    REQUIRE(dup.status == 200);
    CHECK(dup.json["deduplicated"].GetBool());
    CHECK(id_of(dup) == id);
    CHECK(status_in(dup) == "ACKNOWLEDGED");
    CHECK(dup.json["incident"]["eventCount"].GetInt64() == n);
    CHECK(dup.json["incident"]["ackedBy"] == "alice");
  }
  CHECK(belay.count("SELECT count(*) FROM incident WHERE dedup_key = 'while-acked'") ==
        1);
  CHECK(belay.count("SELECT count(*) FROM delivery") == deliveries); // no new page
}

TEST_CASE("concurrent resolves of one incident all succeed and resolve it once") {
  test::served_belay belay;
  auto opened = belay.trigger("resolve-race");
  REQUIRE(opened.status == 201);
  auto id = id_of(opened);
  belay.wait_settled(id);

  // Alertmanager runs as an HA pair: both send the same resolved notification at once,
  // and a PagerDuty client may retry. Every one of them must get its 2xx.
  const int threads = 8;
  std::atomic<int> ready{0};
  std::mutex mutex;
  std::vector<std::string> answers;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ++ready;
      while (ready < threads)
        std::this_thread::yield();
      test::reply r;
      if (t % 2)
        r = belay.post("/api/v1/incidents/" + std::to_string(id) + "/resolve", "{}",
                       "alpha-key");
      else
        r = belay.enqueue("resolve", "resolve-race");
      std::lock_guard lock{mutex};
      answers.push_back(std::to_string(r.status) + " " + r.body);
    });
  }
  for (auto& th : pool)
    th.join();
  for (auto& a : answers) {
    INFO(a);
    CHECK((a.rfind("200 ", 0) == 0 || a.rfind("202 ", 0) == 0));
  }
  CHECK(belay.count("SELECT count(*) FROM timeline WHERE kind = 'resolved'") == 1);
  CHECK(belay.count("SELECT count(*) FROM incident WHERE status = 'RESOLVED'") == 1);
}
