// A page on a channel that provisioning removed
// (docs/guarantees.md#nothing-waits-for-ever): an incident's ladder is written when it
// opens, so its later steps may still name the channel; no channel actor will ever claim
// those pages, and they must not wait for ever.
#include "support/database_fixture.hpp"
#include "support/http_sink.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

namespace {

// Org "acme": policy "default" posts to "hook" at once and to "backup" 300 s later;
// without `backup`, the same org with "default" posting only to "hook".
std::string acme(const test::http_sink& sink, bool backup) {
  std::string channels =
      R"({"name":"hook","type":"webhook","url":")" + sink.url("/hook") + R"("})";
  std::string steps = R"({"delaySeconds":0,"targets":[{"channel":"hook","to":"#ops"}]})";
  if (backup) {
    channels +=
        R"(,{"name":"backup","type":"webhook","url":")" + sink.url("/backup") + R"("})";
    steps += R"(,{"delaySeconds":300,"targets":[{"channel":"backup","to":"lead"}]})";
  }
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],"channels":[)" + channels +
         R"(],"policies":[{"name":"default","steps":[)" + steps + "]}]}]}";
}

} // namespace

TEST_CASE_METHOD(
    test::database_fixture,
    "a page due on a channel provisioning removed ends as a dead letter saying "
    "so, not pending for ever") {
  test::http_sink sink;
  db.provision(acme(sink, true));
  org = db.org_id("acme");
  test::test_node node{db};
  node.adopt(); // the orphan sweep starts once the node has adopted
  auto id = node.trigger(org, "removed-channel").incident.id;
  node.run();
  REQUIRE(sink.requests().size() == 1);

  // "backup" is gone; the incident's ladder, written when it opened, still names it.
  db.provision(acme(sink, false));
  node.advance(300s); // its second step fires
  node.advance(60s);  // and the orphan sweep (every 60 s on the test node) passes
  auto r =
      db.sql().query("SELECT d.status, l.reason FROM delivery d LEFT JOIN dead_letter l "
                     "ON l.org_id = d.org_id AND l.delivery_id = d.id "
                     "WHERE d.incident_id = $1 AND d.channel = 'backup'",
                     id);
  REQUIRE(r.rows() == 1);
  CHECK(r.str(0, 0) == "DEAD");
  CHECK(r.str(0, 1) == "channel 'backup' no longer exists (provisioning removed it)");
  CHECK(sink.requests().size() == 1); // nothing sent to the removed endpoint
}
