// storage/contacts.cpp (docs/architecture.md#storms): a throttling, bundling channel's
// claims on a real database — one message per contact while its throttle allows,
// every waiting page in the next, G4 per member, and a bundle's retries and dead
// letters.
#include "storage/contacts.hpp"
#include "storage/incidents.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

constexpr micros second = 1'000'000;
constexpr micros t0 = 1'800'000'000 * second;

// An sms channel letting one message a minute through to each contact, bundling, two
// attempts per message.
const std::string sms_org = R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
  "channels":[{"name":"sms","type":"sms","url":"http://127.0.0.1:9/twilio",
               "account":"AC1","secret":"s","from":"+15550001111","maxAttempts":2,
               "throttle":[{"count":1,"seconds":60}]}],
  "policies":[{"name":"default","steps":[{"delaySeconds":0,
               "targets":[{"channel":"sms","to":"+15550002222"}]}]}]}]})";

struct storm {
  test::test_database db;
  int64_t org = 0;
  channel_config channel;
  std::vector<int64_t> incidents;

  explicit storm(int n) {
    db.provision(sms_org);
    org = db.org_id("acme");
    for (auto& ch : storage::load_channels(db.sql()))
      if (ch.org_id == org)
        channel = ch;
    std::vector<storage::trigger_event> events;
    for (int k = 0; k < n; ++k)
      events.push_back({{org, "key-" + std::to_string(k),
                         "Disk full " + std::to_string(k), "critical", "default"},
                        t0,
                        {"node", t0 + 300 * second}});
    // One page a second: the first goes alone, the others find the throttle closed.
    micros at = t0;
    for (auto& opened : storage::upsert_triggers(db.sql(), events)) {
      auto id = opened.held.incident.id;
      incidents.push_back(id);
      page(id, "+15550002222", at);
      at += second;
    }
    REQUIRE(claim(t0).pages.size() == 1);
  }

  // A page of incident `id` to `to`, due at `at`.
  void page(int64_t id, const std::string& to, micros at, const std::string& round = "") {
    db.sql().query(
        "INSERT INTO delivery (org_id, incident_id, loop, step, channel, "
        "target, idempotency_key, status, next_attempt_at, created_at) "
        "VALUES ($1, $2::bigint, 0, 0, 'sms', $3, $2::text || ':0:0:sms:' || $3 || $5, "
        "'PENDING', "
        "belay_ts($4), belay_ts($4))",
        org, id, to, at, round);
  }

  storage::contact_claim claim(micros at) {
    storage::contact_request r;
    r.claim = {org, "sms", "node", at, at + 300 * second, 64};
    r.page_windows = channel.throttle;
    r.update_windows = channel.status_throttle;
    r.bundle = channel.bundle;
    return storage::claim_contacts(db.sql(), r);
  }

  void settle(const std::string& id_list, const std::string& status) {
    db.sql().exec("UPDATE incident SET status = '" + status + "' WHERE id IN (" +
                  id_list + ")");
  }

  storage::checked_bundle recheck(const storage::claimed_bundle& b, micros at) {
    return storage::recheck_bundle(db.sql(), {b, "node", at, at + 300 * second});
  }

  std::vector<storage::recorded_outcome> fail(const storage::claimed_bundle& b,
                                              micros at) {
    storage::bundle_outcome o{org, b.id, "PENDING", "503", at, {}};
    for (auto& m : b.members) {
      o.members.push_back(
          storage::outcome_of(m, channel, "node", {false, false, false, "503"}, at));
      if (o.members.back().status == "DEAD")
        o.status = "DEAD";
    }
    return storage::record_bundle_outcome(db.sql(), o);
  }
};

} // namespace

TEST_CASE("a contact's throttle lets one page through, the others wait, held, and the "
          "next message is one bundle of them all and of the first, still open",
          "[storms]") {
  storm s{5};
  REQUIRE(s.channel.per_contact());
  auto first = s.claim(t0 + 5 * second);
  CHECK(first.pages.empty());
  CHECK(first.bundles.empty());
  CHECK(first.held == 4);
  REQUIRE(first.opens_at);
  CHECK(*first.opens_at == t0 + 60 * second);
  CHECK(s.db.count("SELECT count(*) FROM delivery WHERE status = 'PENDING' AND held_by = "
                   "'throttle' AND next_attempt_at = belay_ts($1)",
                   t0 + 60 * second) == 4);

  CHECK(s.claim(t0 + 59 * second).bundles.empty()); // nothing due before it opens

  auto next = s.claim(t0 + 60 * second);
  CHECK(next.pages.empty());
  REQUIRE(next.bundles.size() == 1);
  auto& b = next.bundles[0];
  CHECK(b.members.size() == 4);
  REQUIRE(b.carried.size() == 1);
  CHECK(b.carried[0].id == s.incidents[0]);
  CHECK(b.target == "+15550002222");
  CHECK(next.held == 0);
  CHECK(s.db.count("SELECT count(*) FROM delivery WHERE bundle_id = $1 AND status = "
                   "'CLAIMED'",
                   b.id) == 4);
  // A page for another number is its own contact, with its own throttle.
  s.page(s.incidents[1], "+15550003333", t0 + 61 * second);
  CHECK(s.claim(t0 + 61 * second).pages.size() == 1);
}

TEST_CASE(
    "a member acknowledged before its bundle leaves is taken out, and a bundle left "
    "without members is not sent and gives its throttle slot back",
    "[storms]") {
  storm s{4};
  s.claim(t0 + 5 * second); // held: a storm
  auto b = s.claim(t0 + 60 * second).bundles.at(0);
  REQUIRE(b.members.size() == 3);
  s.settle(std::to_string(b.members[0].incident.id), "ACKNOWLEDGED");
  auto checked = s.recheck(b, t0 + 61 * second);
  CHECK(checked.live_members.size() == 2);
  CHECK(checked.open_carried == std::vector<int64_t>{s.incidents[0]});
  CHECK(s.db.count("SELECT count(*) FROM delivery WHERE id = $1 AND status = 'CANCELLED'",
                   b.members[0].delivery.id) == 1);
  CHECK(s.db.count("SELECT count(*) FROM timeline WHERE kind = 'delivery_cancelled'") ==
        1);

  s.settle(std::to_string(b.members[1].incident.id) + "," +
               std::to_string(b.members[2].incident.id),
           "RESOLVED");
  CHECK(s.recheck(b, t0 + 62 * second).cancelled());
  CHECK(s.db.count("SELECT count(*) FROM bundle WHERE id = $1 AND status = 'CANCELLED'",
                   b.id) == 1);
  // Its slot is free again: a new page goes at once.
  CHECK(s.db.count("SELECT cardinality(page_sends) FROM contact") == 0);
  s.page(s.incidents[0], "+15550002222", t0 + 63 * second, ":r1");
  auto after = s.claim(t0 + 63 * second);
  CHECK(after.pages.size() == 1); // held until t0 + 120 s had the slot stayed taken
  CHECK(after.held == 0);
}

TEST_CASE("a failed bundle is retried whole, and one out of attempts gives each member "
          "its own dead letter",
          "[storms]") {
  storm s{3};
  s.claim(t0 + 5 * second);
  auto b = s.claim(t0 + 60 * second).bundles.at(0);
  REQUIRE(b.members.size() == 2);
  auto first = s.fail(b, t0 + 61 * second);
  REQUIRE(first.size() == 2);
  CHECK(first[0].status == "PENDING");
  // A new page to the same number meanwhile waits: the retry carries the bundle's own.
  s.page(s.incidents[0], "+15550002222", t0 + 62 * second, ":r1");
  auto retry = s.claim(t0 + 200 * second);
  REQUIRE(retry.bundles.size() == 1);
  auto& again = retry.bundles[0];
  CHECK(again.id == b.id);
  CHECK(again.members.size() == 2);
  CHECK(s.db.count("SELECT attempts FROM bundle WHERE id = $1", b.id) == 2);
  auto dead = s.fail(again, t0 + 201 * second);
  CHECK(dead[0].status == "DEAD");
  CHECK(dead[1].status == "DEAD");
  CHECK(s.db.count("SELECT count(*) FROM dead_letter") == 2);
  CHECK(s.db.count("SELECT count(*) FROM bundle WHERE id = $1 AND status = 'DEAD'",
                   b.id) == 1);
}
