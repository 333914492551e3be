// A page on a channel that provisioning removed
// (docs/guarantees.md#provisioning-fails-closed): an incident's ladder is written when
// it opens, so its later steps may still name the channel; no channel actor will ever
// claim those pages: they are cancelled with the reason `channel removed`, never left
// pending for ever.
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

TEST_CASE_METHOD(test::database_fixture,
                 "a page due on a channel provisioning removed is cancelled with the "
                 "reason 'channel removed', not pending for ever") {
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
  auto r = db.sql().query("SELECT status, last_error FROM delivery "
                          "WHERE incident_id = $1 AND channel = 'backup'",
                          id);
  REQUIRE(r.rows() == 1);
  CHECK(r.str(0, 0) == "CANCELLED");
  CHECK(r.str(0, 1) == "channel removed");
  CHECK(db.count("SELECT count(*) FROM dead_letter") == 0);
  CHECK(db.count("SELECT count(*) FROM timeline WHERE kind = 'delivery_cancelled' AND "
                 "detail->>'channel' = 'backup' AND detail->>'reason' = "
                 "'channel removed'") == 1);
  CHECK(sink.requests().size() == 1); // nothing sent to the removed endpoint
}

TEST_CASE_METHOD(test::database_fixture,
                 "a page waiting for its retry on a channel provisioning removes is "
                 "cancelled by the same change") {
  test::http_sink sink;
  sink.set_default_status(503);
  db.provision(acme(sink, true));
  org = db.org_id("acme");
  test::test_node node{db};
  node.adopt();
  auto id = node.trigger(org, "removed-while-retrying").incident.id;
  node.run();
  REQUIRE(sink.requests().size() == 1);
  REQUIRE(db.count("SELECT count(*) FROM delivery WHERE status = 'PENDING' AND "
                   "channel = 'hook'") == 1); // its retry is 30 s away

  std::string without_hook = acme(sink, false);
  auto at = without_hook.find(R"({"name":"hook")");
  without_hook.replace(at, without_hook.find('}', at) + 1 - at,
                       R"({"name":"log","type":"log"})");
  at = without_hook.find(R"("channel":"hook")");
  without_hook.replace(at, 16, R"("channel":"log")");
  db.provision(without_hook);
  auto r = db.sql().query("SELECT status, last_error FROM delivery "
                          "WHERE incident_id = $1 AND channel = 'hook'",
                          id);
  REQUIRE(r.rows() == 1);
  CHECK(r.str(0, 0) == "CANCELLED");
  CHECK(r.str(0, 1) == "channel removed");
}
