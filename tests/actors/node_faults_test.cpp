// docs/guarantees.md#every-accepted-event-pages, through
// the real binary against a real PostgreSQL: the reply to a trigger batch's commit lost
// on the network, and a node killed mid-ladder with a second node taking over.
#include "support/postgres_proxy.hpp"
#include "support/served_belay.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

using namespace belay;

namespace {

// Org "alpha" (key "alpha-key") with a log channel and policy "default": step 0 at once,
// step 1 `step_seconds` later, step 2 `step_seconds` after that.
std::string three_step_org(int step_seconds) {
  auto delay = std::to_string(step_seconds);
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[{"name":"log","type":"log"}],
    "policies":[{"name":"default","steps":[
      {"delaySeconds":0,"targets":[{"channel":"log","to":"#ops"}]},
      {"delaySeconds":)" +
         delay + R"(,"targets":[{"channel":"log","to":"oncall"}]},
      {"delaySeconds":)" +
         delay + R"(,"targets":[{"channel":"log","to":"lead"}]}]}]}]})";
}

} // namespace

TEST_CASE("a trigger batch whose commit reply is lost: every 2xx'd event exists and "
          "every new incident pages its first step once") {
  test::test_database db;
  test::postgres_proxy pg;
  test::temp_file provisioning{test::two_orgs()};
  auto belay = test::belay_process::serve(
      pg.url(db), {"--provision", provisioning.path(), "--node-id", "node-0"});

  // Concurrent triggers share batches; the first statement that writes any of them
  // commits, and its reply is lost.
  pg.proxy.drop_reply_after(test::statement_naming("lost-e2e-"));
  constexpr int clients = 12;
  std::vector<test::reply> replies(clients);
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i)
    threads.emplace_back([&, i] {
      auto http = belay.client();
      replies[i] = test::to_reply(http.Post(
          "/api/v1/incidents", {{"Authorization", "Bearer alpha-key"}},
          test::trigger_body("lost-e2e-" + std::to_string(i)), "application/json"));
    });
  for (auto& t : threads)
    t.join();
  REQUIRE(pg.proxy.drops() == 1);

  int accepted = 0;
  for (int i = 0; i < clients; ++i) {
    INFO("lost-e2e-" << i << ": " << replies[i].status << " " << replies[i].body);
    if (replies[i].status / 100 != 2)
      continue;
    ++accepted;
    CHECK(replies[i].status == 201); // each key is new: "deduplicated" would be a guess
    auto id = test::id_of(replies[i]);
    CHECK(db.count("SELECT count(*) FROM incident WHERE id = " + std::to_string(id)) ==
          1);
  }
  CHECK(accepted == clients); // the read-back answers them all; nothing needs a retry

  // Every incident written, answered or not, pages its first step, exactly once.
  auto incidents = "SELECT count(*) FROM incident WHERE dedup_key LIKE 'lost-e2e-%'";
  auto paged_once = "SELECT count(*) FROM incident i WHERE dedup_key LIKE 'lost-e2e-%' "
                    "AND (SELECT count(*) FROM delivery d WHERE d.incident_id = i.id AND "
                    "d.step = 0 AND d.status = 'SENT') = 1";
  REQUIRE(db.count(incidents) == clients);
  INFO(belay.log());
  CHECK(test::eventually([&] { return db.count(paged_once) == clients; }));
  CHECK(db.count("SELECT count(*) FROM delivery WHERE step = 0") == clients);
}

TEST_CASE("a node killed mid-ladder: another node runs the rest, each step paging once") {
  constexpr int step_seconds = 4;
  test::served_belay belay{three_step_org(step_seconds), 2, {"--lease-seconds", "1.5"}};
  auto opened = belay.trigger("killed-mid-ladder", "alpha-key", 0);
  REQUIRE(opened.status == 201);
  auto id = std::to_string(test::id_of(opened));
  auto sent = [&](int step) {
    return belay.count("SELECT count(*) FROM delivery WHERE incident_id = " + id +
                       " AND step = " + std::to_string(step) + " AND status = 'SENT'");
  };
  REQUIRE(test::eventually([&] { return sent(0) == 1; }));
  REQUIRE(belay.count("SELECT count(*) FROM incident WHERE id = " + id +
                      " AND owner = 'node-0' AND current_step = 1") == 1);

  belay.process(0).kill(); // step 1 is due in 4 s; node-0's lease lapses in 1.5 s

  INFO(belay.process(1).log());
  CHECK(test::eventually([&] { return sent(1) == 1 && sent(2) == 1; },
                         std::chrono::seconds{3 * step_seconds + 10}));
  CHECK(belay.count("SELECT count(*) FROM incident WHERE id = " + id +
                    " AND owner = 'node-1'") == 1);
  std::this_thread::sleep_for(std::chrono::seconds{1}); // nothing more goes out
  CHECK(belay.count("SELECT count(*) FROM delivery WHERE incident_id = " + id) == 3);
  CHECK(sent(0) == 1);
  CHECK(sent(1) == 1);
  CHECK(sent(2) == 1);
}

// "Nothing waits for ever": every connection belay holds goes silent at once, the way a
// network path that died without a word would leave it (fresh connections work).
TEST_CASE("connections that go silent are given up after the reply timeout: triggers "
          "and /readyz carry on over fresh ones") {
  test::test_database db;
  test::postgres_proxy pg;
  test::temp_file provisioning{test::two_orgs()};
  auto belay = test::belay_process::serve(
      pg.url(db),
      {"--provision", provisioning.path(), "--node-id", "node-0",
       "--db-statement-timeout-seconds", "1", "--listener-grace-seconds", "2"});
  auto http = belay.client();
  http.set_read_timeout(30, 0);
  auto post = [&](const std::string& key) {
    return test::to_reply(http.Post("/api/v1/incidents",
                                    {{"Authorization", "Bearer alpha-key"}},
                                    test::trigger_body(key), "application/json"));
  };
  for (int i = 0; i < 8; ++i) // every storage worker and pooled connection is open
    REQUIRE(post("silent-warm-" + std::to_string(i)).status == 201);
  REQUIRE(http.Get("/readyz")->status == 200);

  pg.proxy.stall_open();
  // Written on a silent connection, this one is settled by reading back after the reply
  // timeout (1 s + 5 s): 201 if it committed, 503 if the database cannot tell.
  auto during = post("silent-during");
  INFO(belay.log());
  CHECK((during.status == 201 || during.status == 503));
  if (during.status == 201)
    CHECK(db.count("SELECT count(*) FROM incident WHERE dedup_key = 'silent-during'") ==
          1);

  // Every shard answers again, on fresh connections: a connection first used after it
  // went silent costs its caller one 503 at most.
  auto started = std::chrono::steady_clock::now();
  int in_a_row = 0, failed = 0;
  for (int i = 0; in_a_row < 8 && failed <= 4; ++i) {
    auto r = post("silent-after-" + std::to_string(i));
    in_a_row = r.status == 201 ? in_a_row + 1 : 0;
    failed += r.status == 201 ? 0 : 1;
  }
  CHECK(in_a_row == 8);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds{25});
  CHECK(test::eventually([&] { return http.Get("/readyz")->status == 200; },
                         std::chrono::seconds{15}));
  // Each of the incidents pages, the stalled one included if it was written.
  CHECK(test::eventually(
      [&] {
        return db.count("SELECT count(*) FROM incident i WHERE NOT EXISTS (SELECT 1 FROM "
                        "delivery d WHERE d.incident_id = i.id AND d.step = 0 AND "
                        "d.status = 'SENT')") == 0;
      },
      std::chrono::seconds{20}));
}
