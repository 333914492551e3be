#include "pages.hpp"
#include "protocol/log_line.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;
using namespace belay::protocol::test;

TEST_CASE("a log line names the incident, whom it went to and the key, on one line") {
  page p;
  p.incident = incident_in("OPEN");
  p.incident.title = "two\nlines";
  p.target = "anyone";
  p.idempotency_key = "42:0:1:audit:anyone";
  CHECK(log_line(p, "audit") == "page via log channel 'audit': incident 42 \"two lines\" "
                                "[CRITICAL] to 'anyone' (key 42:0:1:audit:anyone)");
  p.answer_token = "T";
  p.answer_url = "https://belay.example/a/T";
  CHECK_FALSE(contains(log_line(p, "audit"), "belay.example")); // a link is a credential
}

TEST_CASE("a log line of a status update says what happened") {
  auto incident = incident_in("RESOLVED");
  incident.resolved_by = "dave";
  incident.resolved_via = "api";
  auto p = update_of(incident, "resolved");
  p.target = "anyone";
  p.idempotency_key = "42:0:1:audit:anyone";
  CHECK(log_line(p, "audit") ==
        "status update via log channel 'audit': [belay] Resolved by dave via api: #42 "
        "Disk full on db-1 to 'anyone' (key 42:0:1:audit:anyone)");
}
