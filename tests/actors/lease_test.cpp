// Node leases on the simulated clock against a real PostgreSQL
// (docs/architecture.md#ownership): a node that stops renewing its lease hands its
// incidents to a live node, which runs their ladders on (G5); a live node keeps its own
// however old they are; and a node that comes back after its lease lapsed lets go of what
// the others took.
#include "support/ladder_fixture.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>
#include <map>

using namespace belay;
using namespace std::chrono_literals;

namespace {

using test::fired;
using test::one_second;

struct lease_fixture : test::ladder_fixture {
  std::string version_of(int64_t id) {
    return db.sql().query("SELECT xmin::text FROM incident WHERE id = $1", id).str(0, 0);
  }
};

} // namespace

TEST_CASE_METHOD(lease_fixture,
                 "a node whose lease lapses hands its incidents to a live node") {
  micros t0;
  int64_t id;
  {
    test::test_node a{db, test::simulated_epoch, "node-a"};
    a.adopt();
    t0 = a.now();
    id = a.trigger(org, "disk-full").incident.id; // step 0 at once, step 1 at 300 s
    a.advance(20s); // renewed at 10 and 20 s: the lease runs until 50 s
  }                 // node-a dies without a word
  test::test_node b{db, t0 + 20 * one_second, "node-b"};
  CHECK(b.adopt() == 0);
  b.advance(20s);
  CHECK(owner(id) == "node-a"); // at 40 s its lease still holds
  b.advance(20s);
  CHECK(owner(id) == "node-b"); // taken over at the first renewal after 50 s
  CHECK(b.stats().held == 1);
  b.advance(240s);
  CHECK(deliveries(id, t0) == fired{{0, 0, 0}, {1, 0, 300}});
}

TEST_CASE_METHOD(lease_fixture, "a live node keeps its incidents however old they are") {
  test::test_node a{db, test::simulated_epoch, "node-a"};
  a.adopt();
  auto t0 = a.now();
  auto id = a.trigger(org, "kept").incident.id;
  a.advance(10min); // the incident's own lease lapsed at 30 s; the node's is renewed
  test::test_node b{db, t0 + 600 * one_second, "node-b"};
  CHECK(b.adopt() == 0);
  for (int i = 0; i < 6; ++i) { // both run for another minute, side by side
    a.advance(10s);
    b.advance(10s);
  }
  CHECK(owner(id) == "node-a");
  CHECK(a.stats().held == 1);
  CHECK(b.stats().held == 0);
  CHECK(deliveries(id, t0) == fired{{0, 0, 0}, {1, 0, 300}});
}

TEST_CASE_METHOD(lease_fixture,
                 "a node back from a pause lets go of the incidents another node took") {
  test::test_node a{db, test::simulated_epoch, "node-a"};
  a.adopt();
  auto t0 = a.now();
  auto id = a.trigger(org, "paused").incident.id;
  test::test_node b{db, t0, "node-b"};
  b.adopt();
  b.advance(60s); // node-a is paused: its lease lapses at 30 s and node-b takes over
  REQUIRE(owner(id) == "node-b");
  REQUIRE(a.stats().held == 1);
  a.advance(60s); // node-a catches up: its next renewal finds the lease lost
  CHECK(a.stats().held == 0);
  for (int i = 0; i < 24; ++i) { // side by side to 300 s, when step 1 is due
    a.advance(10s);
    b.advance(10s);
  }
  CHECK(deliveries(id, t0) == fired{{0, 0, 0}, {1, 0, 300}}); // once, on node-b
  CHECK(owner(id) == "node-b");
  CHECK(a.stats().held == 0);
}

TEST_CASE_METHOD(
    lease_fixture,
    "a node restarting adopts its open incidents a page at a time, each once") {
  micros t0;
  std::vector<int64_t> open;
  {
    test::test_node a{db, test::simulated_epoch, "node-a"};
    a.adopt();
    t0 = a.now();
    for (int i = 0; i < 9; ++i) {
      auto id = a.trigger(org, "page-" + std::to_string(i)).incident.id;
      if (i % 3 == 1)
        a.resolve(org, id); // resolved ones lie between the pages' open ones
      else
        open.push_back(id);
    }
  } // node-a stops and starts again, with pages of 3: 3, 3, then an empty one
  // Its own rows are read, not rewritten (a row's xmin is the transaction that wrote
  // it); an unowned one is taken.
  db.sql().query("UPDATE incident SET owner = NULL WHERE id = $1", open.front());
  std::map<int64_t, std::string> written_by;
  for (auto id : open)
    written_by[id] = version_of(id);
  test::test_node again{db, t0 + one_second, "node-a",
                        [](node_options& o) { o.adopt_page_size = 3; }};
  CHECK(again.adopt() == open.size());
  CHECK(again.stats().held == open.size());
  CHECK(owner(open.front()) == "node-a");
  CHECK(version_of(open.front()) != written_by[open.front()]);
  for (auto id : open)
    if (id != open.front())
      CHECK(version_of(id) == written_by[id]);
  again.advance(300s);
  for (auto id : open)
    CHECK(deliveries(id, t0) == fired{{0, 0, 0}, {1, 0, 300}});
}
