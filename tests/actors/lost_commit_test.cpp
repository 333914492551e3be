// docs/guarantees.md#every-accepted-event-pages: the
// connection to PostgreSQL is lost while a trigger batch commits
// (tests/support/fault_proxy between the node and the cluster). The storage worker must
// read back what was written, not assume: every incident the batch opened gets its actor
// and pages its first step exactly once, and every event is answered as written (201
// created, not 200 deduplicated).
#include "storage/db.hpp"
#include "support/ladder_fixture.hpp"
#include "support/postgres_proxy.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

namespace {

using test::fired;

const std::vector<std::string> new_keys{"lost-new-1", "lost-new-2", "lost-new-3"};

struct lost_commit_fixture : test::ladder_fixture {
  test::postgres_proxy pg;
  test::test_node node{db, test::simulated_epoch, "node-a",
                       [this](node_options& o) { o.database_url = pg.url(db); }};
  micros t0 = node.now();

  trigger_command command(const std::string& key) {
    trigger_command cmd;
    cmd.org_id = org;
    cmd.dedup_key = key;
    cmd.title = "incident " + key;
    cmd.policy = "default";
    return cmd;
  }

  // Sends every operation to the worker of the trigger lane before it runs any: they
  // reach its mailbox together and it writes them as one batch.
  std::vector<trigger_reply> one_batch(const std::vector<std::string>& keys,
                                       std::optional<transition_command> also = {}) {
    auto replies =
        std::make_shared<std::vector<std::optional<trigger_reply>>>(keys.size());
    auto worker = caf::actor_cast<caf::actor>(node.n.triggers.worker_for(org, keys[0]));
    for (size_t i = 0; i < keys.size(); ++i)
      node.sys.spawn(
          [replies, i](caf::event_based_actor* self, caf::actor w, trigger_command cmd) {
            self->request(w, caf::infinite, atom::trigger_v, std::move(cmd))
                .then([replies, i](trigger_reply& r) { (*replies)[i] = std::move(r); },
                      [](caf::error&) {});
          },
          worker, command(keys[i]));
    if (also) {
      auto shard = incident_shard(org, keys[0]);
      node.sys.spawn(
          [](caf::event_based_actor* self, caf::actor w, uint64_t shard,
             transition_command cmd, micros at) {
            self->request(w, caf::infinite, atom::apply_transition_v, shard,
                          std::move(cmd), at)
                .then([](transition_reply&) {}, [](caf::error&) {});
          },
          worker, shard, *also, node.now());
    }
    node.run();
    std::vector<trigger_reply> out;
    for (auto& r : *replies) {
      REQUIRE(r); // answered, and not with an error
      out.push_back(std::move(*r));
    }
    return out;
  }

  int64_t incident_id(const std::string& key) {
    return db.sql()
        .query("SELECT id FROM incident WHERE dedup_key = $1 AND status <> 'RESOLVED'",
               key)
        .int64(0, 0);
  }

  // After a lost reply: the batch's acknowledge took effect, every new key was answered
  // as created, is held by an actor (with the open one: 4) and pages step 0 exactly once.
  void check_batch_settled(const std::vector<trigger_reply>& replies, int64_t acked) {
    for (size_t i = 0; i < new_keys.size(); ++i) {
      INFO(new_keys[i]);
      CHECK(replies[i].code == reply_code::ok);
      CHECK(replies[i].created);
    }
    CHECK(incident_status(acked) == "ACKNOWLEDGED");
    CHECK(node.stats().held == 4);
    node.advance(std::chrono::seconds{1});
    for (auto& key : new_keys) {
      INFO(key);
      CHECK(deliveries(incident_id(key), t0) == fired{{0, 0, 0}});
    }
  }

  // Marks that a read-back wrote because the batch's own never committed.
  int64_t fences() {
    return db.sql()
        .exec("SELECT count(*) FROM trigger_mark WHERE touched IS NULL")
        .int64(0, 0);
  }
};

} // namespace

TEST_CASE_METHOD(
    lost_commit_fixture,
    "a trigger batch whose commit reply is lost pages each new incident once") {
  node.adopt();
  auto open = node.trigger(org, "lost-open").incident.id;
  node.run();
  REQUIRE(node.stats().held == 1);

  // Triggers alone are one statement, committed on its own: its reply is lost.
  pg.proxy.drop_reply_after(test::statement_naming("lost-new-"));
  auto keys = new_keys;
  keys.push_back("lost-open"); // a duplicate in the same batch
  auto replies = one_batch(keys);
  REQUIRE(pg.proxy.drops() == 1);

  for (size_t i = 0; i < new_keys.size(); ++i) {
    INFO(new_keys[i]);
    CHECK(replies[i].code == reply_code::ok);
    CHECK(replies[i].created); // as written: the rerun would call them duplicates
    CHECK(replies[i].incident.id == incident_id(new_keys[i]));
  }
  CHECK(replies[3].code == reply_code::ok);
  CHECK_FALSE(replies[3].created);
  CHECK(replies[3].incident.id == open);
  CHECK(count("SELECT event_count FROM incident WHERE id = $1", open) == 2);

  CHECK(node.stats().held == 4);
  node.advance(1s);
  for (auto& key : new_keys) {
    INFO(key);
    CHECK(deliveries(incident_id(key), t0) == fired{{0, 0, 0}}); // step 0, once
  }
  CHECK(deliveries(open, t0) == fired{{0, 0, 0}});
  CHECK(fences() == 0); // the batch's own mark was there: nothing to fence
}

TEST_CASE_METHOD(lost_commit_fixture,
                 "a batch with other work whose COMMIT reply is lost is settled by "
                 "reading back") {
  node.adopt();
  auto open = node.trigger(org, "lost-open").incident.id;
  node.run();

  // Triggers and an acknowledge: BEGIN, the statements, COMMIT, whose reply is lost.
  pg.proxy.drop_after_commit();
  auto replies =
      one_batch(new_keys, transition_command{org, open, {}, transition::ack, "alice"});
  REQUIRE(pg.proxy.drops() == 1);
  check_batch_settled(replies, open);
}

TEST_CASE_METHOD(lost_commit_fixture,
                 "a batch lost before its COMMIT is fenced and written again") {
  node.adopt();
  auto open = node.trigger(org, "lost-open").incident.id;
  node.run();

  // The triggers' statement runs inside the batch's transaction and its reply is lost:
  // the server rolls back when the connection goes. The read-back's fence must wait for
  // that, find nothing written, and the triggers are written again.
  pg.proxy.drop_reply_after(test::statement_naming("lost-new-"));
  auto replies =
      one_batch(new_keys, transition_command{org, open, {}, transition::ack, "alice"});
  REQUIRE(pg.proxy.drops() == 1);
  check_batch_settled(replies, open);
  for (auto& key : new_keys) {
    INFO(key);
    CHECK(count("SELECT count(*) FROM timeline WHERE incident_id = $1 AND kind = "
                "'created'",
                incident_id(key)) == 1);
  }
  CHECK(fences() == 1);
}

TEST_CASE_METHOD(
    lost_commit_fixture,
    "a batch of duplicates whose commit reply is lost counts each event once") {
  node.adopt();
  auto open = node.trigger(org, "lost-open").incident.id;
  node.run();
  node.trigger(org, "lost-open"); // a duplicate: the worker's hints now know the key
  node.run();

  // The reply lost is the duplicate statement's: the proxy passed its PREPARE first.
  auto prepared = std::make_shared<bool>(false);
  pg.proxy.drop_reply_after([prepared](std::string_view bytes) {
    if (bytes.find("belay_all_updated") != std::string_view::npos)
      *prepared = true;
    return *prepared && bytes.find("lost-open") != std::string_view::npos &&
           test::ends_statement(bytes);
  });
  auto replies = one_batch({"lost-open", "lost-open"});
  REQUIRE(pg.proxy.drops() == 1);

  for (auto& r : replies) {
    CHECK(r.code == reply_code::ok);
    CHECK_FALSE(r.created);
    CHECK(r.incident.id == open);
  }
  CHECK(replies[1].incident.event_count == 4);
  // Read back, not written again: 2 + 2 events, one timeline entry each.
  CHECK(count("SELECT event_count FROM incident WHERE id = $1", open) == 4);
  CHECK(count("SELECT count(*) FROM timeline WHERE incident_id = $1 AND kind = "
              "'duplicate'",
              open) == 3);
  CHECK(node.stats().held == 1);
  CHECK(fences() == 0);
}
