// How a status update and a responder's request read on each channel
// (docs/guarantees.md#working-an-incident).
#include "pages.hpp"
#include "protocol/email.hpp"
#include "protocol/slack_message.hpp"
#include "protocol/sms.hpp"
#include "protocol/twiml.hpp"
#include "protocol/webhook.hpp"
#include "protocol/wording.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

page status_update(const std::string& message) {
  auto p = update_of(incident_in("ACKNOWLEDGED"), "status_update");
  p.message = message;
  return p;
}

} // namespace

TEST_CASE("a status update says its words on every channel") {
  auto p = status_update("failing over to db-2");
  const std::string said =
      "[belay] Update on #42 Disk full on db-1: failing over to db-2";
  CHECK(sms_text(p) == said);
  CHECK(contains(slack_body(p), said));
  CHECK(contains(email_content(p).text, said));
  CHECK(contains(voice_twiml(p), "Update on #42"));
  auto body = webhook_body(p);
  CHECK(contains(body, R"("message":"failing over to db-2","update":"status_update"})"));
  CHECK_FALSE(contains(body, R"("by")")); // not the acknowledge's or the resolve's
}

TEST_CASE("a page to a requested responder carries what they are asked") {
  auto p = answerable(incident_in("ACKNOWLEDGED"), "T", "https://belay.example/a/T");
  p.message = "need the DBA on db-1";
  CHECK(contains(sms_text(p), "\nYou are asked to help: need the DBA on db-1\nReply 1"));
  CHECK(contains(slack_body(p), "You are asked to help: need the DBA on db-1"));
  CHECK(contains(email_content(p).text, "You are asked to help: need the DBA on db-1"));
  CHECK(contains(voice_twiml(p), "You are asked to help: need the DBA on db-1."));
  CHECK(contains(webhook_body(p), R"("message":"need the DBA on db-1")"));
  // Without a request, the page reads as it always has.
  p.message.clear();
  CHECK_FALSE(contains(sms_text(p), "asked to help"));
}
