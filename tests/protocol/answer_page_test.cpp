#include "pages.hpp"
#include "protocol/answer_page.hpp"
#include "protocol/markup.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

const std::string hostile = "<script>alert(\"x\")</script> & 'y'";
const std::string hostile_escaped =
    "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;";

const std::string ack_button = "name=\"action\" value=\"ack\"";
const std::string resolve_button = "name=\"action\" value=\"resolve\"";

} // namespace

TEST_CASE("escape_html escapes markup, quotes and control characters", "[signing]") {
  CHECK(escape_html(hostile) == hostile_escaped);
  CHECK(escape_html("a\x01"
                    "b\x7f"
                    "c\td\r\ne") == "a b c\td\r\ne");
  CHECK(escape_html("ünïcode") == "ünïcode");
  CHECK(escape_slack("<@U123> & <!channel> \"q\"") ==
        "&lt;@U123&gt; &amp; &lt;!channel&gt; \"q\"");
}

TEST_CASE("the answer page is a complete HTML5 page for phones, without script",
          "[signing]") {
  const std::string page = render_answer_page(incident_in("OPEN"), "alice");
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(page, "<meta charset=\"utf-8\">"));
  CHECK(contains(page, "<meta name=\"viewport\" content=\"width=device-width"));
  CHECK(contains(page, "<meta name=\"referrer\" content=\"no-referrer\">"));
  CHECK(contains(page, "<style>"));
  CHECK_FALSE(contains(page, "<script"));
  CHECK_FALSE(contains(page, "src="));
  CHECK(contains(page, "<h1>Disk full on db-1</h1>"));
  CHECK(contains(page, "critical"));
  CHECK(contains(page, "OPEN"));
  CHECK(contains(page, "alice"));
  CHECK(contains(page, "#42"));
  CHECK(contains(page, "</html>"));
}

TEST_CASE("the answer page posts its buttons back to its own URL", "[signing]") {
  const std::string page = render_answer_page(incident_in("OPEN"), "alice");
  CHECK(contains(page, "<form method=\"post\">"));
  CHECK_FALSE(contains(page, "action=\""));
  CHECK(contains(page, ack_button));
  CHECK(contains(page, resolve_button));
}

TEST_CASE("the answer page offers only the answers the status allows", "[signing]") {
  for (const char* status : {"OPEN", "EXHAUSTED"}) {
    INFO(status);
    const std::string page = render_answer_page(incident_in(status), "alice");
    CHECK(contains(page, ack_button));
    CHECK(contains(page, resolve_button));
  }
  const std::string acked = render_answer_page(incident_in("ACKNOWLEDGED"), "alice");
  CHECK_FALSE(contains(acked, ack_button));
  CHECK(contains(acked, resolve_button));
  const std::string resolved = render_answer_page(incident_in("RESOLVED"), "alice");
  CHECK_FALSE(contains(resolved, "<form"));
  CHECK_FALSE(contains(resolved, "<button"));
}

TEST_CASE("every string on the answer page is escaped", "[signing]") {
  belay::incident_record incident = incident_in("ACKNOWLEDGED");
  incident.title = hostile;
  incident.severity = "critical\" onclick=\"x";
  incident.acked_by = hostile;
  const std::string page = render_answer_page(incident, hostile);
  CHECK_FALSE(contains(page, "<script"));
  CHECK_FALSE(contains(page, "onclick=\""));
  CHECK(contains(page, "<title>belay: " + hostile_escaped + "</title>"));
  CHECK(contains(page, "<h1>" + hostile_escaped + "</h1>"));
  CHECK(contains(page, "ACKNOWLEDGED by " + hostile_escaped));
  CHECK(contains(page, "<dd>" + hostile_escaped + "</dd>")); // paged
  const std::string confirmation =
      render_answer_confirmation(incident, hostile, answer_outcome::resolved, hostile);
  CHECK_FALSE(contains(confirmation, "<script"));
  CHECK(contains(confirmation, "Resolved by " + hostile_escaped));
}

TEST_CASE("the confirmation says what came of the answer", "[signing]") {
  belay::incident_record acked = incident_in("ACKNOWLEDGED");
  acked.acked_by = "alice";
  const std::string page =
      render_answer_confirmation(acked, "alice", answer_outcome::acknowledged, "alice");
  CHECK(contains(page, ">Acknowledged by alice</p>"));
  // Resolving is still open to the person who acknowledged.
  CHECK_FALSE(contains(page, ack_button));
  CHECK(contains(page, resolve_button));

  belay::incident_record acked_by_bob = acked;
  acked_by_bob.acked_by = "bob";
  CHECK(
      contains(render_answer_confirmation(acked_by_bob, "alice",
                                          answer_outcome::already_acknowledged, "alice"),
               ">Already acknowledged by bob</p>"));

  const std::string resolved = render_answer_confirmation(
      incident_in("RESOLVED"), "alice", answer_outcome::already_resolved, "alice");
  CHECK(contains(resolved, ">Already resolved</p>"));
  CHECK_FALSE(contains(resolved, "<form"));

  const std::string failed = render_answer_confirmation(
      incident_in("OPEN"), "alice", answer_outcome::unavailable, "alice");
  CHECK(contains(failed, "class=\"notice problem\""));
  CHECK(contains(failed, ack_button));
}

TEST_CASE("the not-found page names nothing", "[signing]") {
  const std::string page = render_answer_not_found();
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(page, "not valid"));
  CHECK_FALSE(contains(page, "<form"));
  CHECK_FALSE(contains(page, "<script"));
}
