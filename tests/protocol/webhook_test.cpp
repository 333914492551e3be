#include "pages.hpp"
#include "protocol/webhook.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

page sample_page() {
  page p;
  p.incident = incident_in("OPEN");
  p.incident.dedup_key = "disk-full/db-1";
  p.step = 1;
  p.attempt = 2;
  p.target = "primary";
  return p;
}

} // namespace

TEST_CASE("the webhook body is the same bytes for the same page") {
  auto p = sample_page();

  CHECK(webhook_body(p) == webhook_body(p));
  CHECK(webhook_body(p) ==
        R"({"id":42,"dedupKey":"disk-full/db-1","title":"Disk full on db-1",)"
        R"("severity":"critical","status":"OPEN","loop":0,"step":1,"target":"primary",)"
        R"("attempt":2})");
}

TEST_CASE("a webhook status update says what happened, by whom and how") {
  auto p = sample_page();
  p.incident.status = "ACKNOWLEDGED";
  p.incident.acked_by = "alice";
  p.incident.acked_via = "link";
  p.update = "acknowledged";
  CHECK(ends_with(webhook_body(p),
                  R"("attempt":2,"update":"acknowledged","by":"alice","via":"link"})"));
}
