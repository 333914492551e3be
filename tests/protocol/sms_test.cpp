#include "pages.hpp"
#include "protocol/sms.hpp"
#include "protocol/twiml.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

const std::string url = "https://belay.example.com/a/TOKEN-_42";

} // namespace

TEST_CASE("an SMS page ends with how to answer and the link", "[signing]") {
  const std::string sms = sms_text(answerable(incident_in("OPEN"), "TOKEN-_42", url));
  CHECK(sms == "[belay] CRITICAL Disk full on db-1 (incident #42)\n"
               "Reply 1 to acknowledge, 2 to resolve\n" +
                   url);
}

TEST_CASE("an SMS page keeps a long or multi-line title short and on one line",
          "[signing]") {
  belay::incident_record incident = incident_in("OPEN");
  incident.title = "line one\nline two " + std::string(500, 'x');
  const std::string sms = sms_text(answerable(incident, "TOKEN-_42", url));
  CHECK(contains(sms, "line one line two xxx"));
  CHECK(contains(sms, "x... (incident #42)"));
  CHECK(sms.size() < 300);
  CHECK(ends_with(sms, "Reply 1 to acknowledge, 2 to resolve\n" + url));
}

TEST_CASE("an SMS status update says who answered, how, and which incident") {
  auto incident = incident_in("ACKNOWLEDGED");
  incident.acked_by = "alice";
  incident.acked_via = "sms";
  CHECK(sms_text(update_of(incident, "acknowledged")) ==
        "[belay] Acknowledged by alice via sms: #42 Disk full on db-1");
  incident.status = "RESOLVED";
  CHECK(sms_text(update_of(incident, "resolved")) ==
        "[belay] Resolved: #42 Disk full on db-1");
}

TEST_CASE("SMS replies say what happened", "[signing]") {
  CHECK(sms_outcome_text(answer_outcome::acknowledged, incident_in("ACKNOWLEDGED"),
                         "alice") == "Acknowledged by alice: #42 Disk full on db-1");
  CHECK(sms_incident_not_paged(123) == "Incident #123 did not page this number.");
  CHECK(render_twiml_message(sms_nothing_to_answer) ==
        "<Response><Message>No open incident paged this number.</Message></Response>");
}
