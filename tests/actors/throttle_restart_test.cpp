// Pages held by a contact's throttle are rows, not timers (docs/architecture.md#storms):
// a node that stops while they wait loses nothing, and the next node on the database
// sends them, as one bundle, when the throttle opens.
#include "support/database_fixture.hpp"
#include "support/form.hpp"
#include "support/http_sink.hpp"
#include "support/sms_org.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

namespace {

const std::string messages_path = "/twilio/2010-04-01/Accounts/AC0123/Messages.json";

} // namespace

TEST_CASE_METHOD(test::database_fixture,
                 "pages held by the throttle survive a restart of the node and go out as "
                 "one bundle, once, when the window opens",
                 "[storms]") {
  test::http_sink twilio;
  db.provision(test::sms_org(twilio.url("/twilio")));
  org = db.org_id("acme");
  const auto t0 = test::simulated_epoch;
  std::vector<int64_t> ids;
  {
    test::test_node first{db, t0, "node-a"};
    for (int k = 0; k < 6; ++k)
      ids.push_back(first.trigger(org, "held-" + std::to_string(k)).incident.id);
    first.advance(10s);
    REQUIRE(twilio.count() == 1);
    REQUIRE(count("SELECT count(*) FROM delivery WHERE held_by = 'throttle' AND status "
                  "= 'PENDING'") == 5);
  } // node-a stops with five pages waiting for the minute to pass

  test::test_node second{db, t0 + 20'000'000, "node-b"};
  second.adopt();
  second.advance(39s);
  CHECK(twilio.count() == 1); // the window is still closed
  second.advance(1s);         // t0 + 60 s: it opens
  REQUIRE(twilio.count() == 2);
  auto text = test::form_fields(twilio.requests().back().body)["Body"];
  CHECK(text.find("belay: 6 incidents need you") == 0);
  for (auto id : ids)
    CHECK(text.find("#" + std::to_string(id) + " ") != std::string::npos);
  CHECK(count("SELECT count(*) FROM bundle WHERE status = 'SENT'") == 1);
  CHECK(count("SELECT count(*) FROM delivery WHERE status = 'SENT' AND bundle_id = "
              "(SELECT id FROM bundle)") == 5);
  CHECK(count("SELECT count(*) FROM delivery WHERE status <> 'SENT'") == 0);

  second.advance(2h);
  CHECK(twilio.count() == 2);
}
