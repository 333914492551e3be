#include "pages.hpp"
#include "protocol/twiml.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;
using namespace belay::protocol::test;

TEST_CASE("TwiML replies escape their text", "[signing]") {
  CHECK(render_twiml_message("Acknowledged by <alice> & \"bob\"") ==
        "<Response><Message>Acknowledged by &lt;alice&gt; &amp; &quot;bob&quot;"
        "</Message></Response>");
  CHECK(render_twiml_say("Resolved by alice") ==
        "<Response><Say>Resolved by alice</Say></Response>");
}

TEST_CASE("a call gathers one key and posts it to the voice callback", "[signing]") {
  belay::incident_record incident = incident_in("OPEN");
  incident.title = "Disk <full> & \"hot\"\x01";
  const std::string twiml = voice_twiml(
      answerable(incident, "T", "https://belay.example.com/a/T",
                 "https://belay.example.com/api/v1/integrations/twilio/voice?t=T&x=1"));
  CHECK(twiml.rfind("<Response><Gather numDigits=\"1\" "
                    "action=\"https://belay.example.com/api/v1/integrations/twilio/"
                    "voice?t=T&amp;x=1\" method=\"POST\"><Say>",
                    0) == 0);
  CHECK(contains(twiml, "Disk &lt;full&gt; &amp; &quot;hot&quot; . Incident 42."));
  CHECK(contains(twiml, "Press 1 to acknowledge, 2 to resolve.</Say></Gather>"));
  CHECK(ends_with(twiml, "</Response>"));
}

TEST_CASE("a call without the way back reads out the incident and its step") {
  page p;
  p.incident = incident_in("OPEN");
  p.incident.title = "R&D 'db-1' down";
  p.step = 1;
  p.loop = 2;
  CHECK(voice_twiml(p) == "<Response><Say>belay page. CRITICAL. R&amp;D &#39;db-1&#39; "
                          "down. Incident 42, step 2 (repeat 2).</Say></Response>");
}

TEST_CASE("a status update call says who answered") {
  auto incident = incident_in("RESOLVED");
  incident.resolved_by = "dave";
  CHECK(
      voice_twiml(update_of(incident, "resolved")) ==
      "<Response><Say>[belay] Resolved by dave: #42 Disk full on db-1</Say></Response>");
}
