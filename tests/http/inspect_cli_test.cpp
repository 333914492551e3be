#include "http/inspect_cli.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

using belay::render_inspector_table;

namespace {

const char* const sample = R"({
  "node":{"id":"host","version":"0.1.0","startedAt":"2026-03-01T12:00:00.000Z",
          "uptimeSeconds":754.5,"now":"2026-03-01T12:12:34.500Z"},
  "registry":{"held":3,"created":10,"deduplicated":42,"respawned":1},
  "incidents":[
    {"actorId":"21","upSince":"2026-03-01T12:00:01.000Z","mailbox":0,"nextTimerDue":null,
     "incident":{"id":4,"dedupKey":"cert","title":"TLS certificate expires","severity":"warning",
       "status":"ACKNOWLEDGED","policy":"default","currentStep":1,"loop":0,"eventCount":17,
       "createdAt":"2026-03-01T12:00:01.000Z","lastSeenAt":"2026-03-01T12:10:00.000Z",
       "nextFireAt":null,"ackedAt":"2026-03-01T12:05:00.000Z","ackedBy":"alice",
       "resolvedAt":null,"exhaustedAt":null,"version":3}},
    {"actorId":"17","upSince":"2026-03-01T12:00:02.000Z","mailbox":2,
     "nextTimerDue":"2026-03-01T12:17:39.500Z",
     "incident":{"id":3,"dedupKey":"api","title":"API latency high","severity":"error",
       "status":"OPEN","policy":"default","currentStep":0,"loop":0,"eventCount":5,
       "createdAt":"2026-03-01T12:00:02.000Z","lastSeenAt":"2026-03-01T12:12:00.000Z",
       "nextFireAt":"2026-03-01T12:17:39.500Z","ackedAt":null,"ackedBy":null,
       "resolvedAt":null,"exhaustedAt":null,"version":2}},
    {"actorId":"9","upSince":"2026-03-01T12:00:03.000Z","mailbox":0,
     "nextTimerDue":"2026-03-01T12:12:30.000Z",
     "incident":{"id":12,"dedupKey":"disk","title":"Disk full on db1","severity":"critical",
       "status":"OPEN","policy":"pager","currentStep":2,"loop":1,"eventCount":1,
       "createdAt":"2026-03-01T12:00:03.000Z","lastSeenAt":"2026-03-01T12:00:03.000Z",
       "nextFireAt":"2026-03-01T12:12:30.000Z","ackedAt":null,"ackedBy":null,
       "resolvedAt":null,"exhaustedAt":null,"version":7}}],
  "channels":[
    {"name":"ops-hook","type":"webhook","queued":2,"inFlight":1,"sent":10,"failed":3,"deadLetters":1,
     "retriesScheduled":[{"deliveryId":5,"incidentId":3,"target":"#ops","attempt":2,
                          "dueAt":"2026-03-01T12:13:04.500Z"}]},
    {"name":"log","type":"log","queued":0,"inFlight":0,"sent":4,"failed":0,"deadLetters":0,
     "retriesScheduled":[]}],
  "deadLetters":[{"id":1,"deliveryId":2,"incidentId":3,"channel":"ops-hook","target":"lead",
                  "reason":"HTTP 404 from the hook","failedAt":"2026-03-01T12:10:34.500Z"}],
  "storage":{"workers":4,"poolSize":4,"poolBusy":1}})";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

} // namespace

TEST_CASE("belay inspect renders every part of a snapshot as aligned tables") {
  // Relative times count from node.now (12:12:34.500): the output is the JSON's alone.
  const std::string expected =
      R"(node host · belay 0.1.0 · up 12m 34s · started 2026-03-01T12:00:00.000Z · now 2026-03-01T12:12:34.500Z
registry: 3 held · 10 created · 42 deduplicated · 1 respawned
storage: 4 workers · pool 1/4 busy

INCIDENTS (3)
ID  STATUS                 STEP  LOOP  NEXT TIMER  DUE AT                    VERSION  MAILBOX  EVENTS  ACTOR  TITLE
12  OPEN                      2     1  overdue 4s  2026-03-01T12:12:30.000Z        7        0       1      9  Disk full on db1
 3  OPEN                      0     0  in 5m 05s   2026-03-01T12:17:39.500Z        2        2       5     17  API latency high
 4  ACKNOWLEDGED by alice     1     0  -           -                               3        0      17     21  TLS certificate expires

CHANNELS (2)
NAME      TYPE     HEALTH   QUEUED  IN FLIGHT  RETRIES  SENT  FAILED  DEAD
ops-hook  webhook  FAILING       2          1        1    10       3     1
log       log      ok            0          0        0     4       0     0

RETRIES SCHEDULED (1)
CHANNEL   DELIVERY  INCIDENT  TARGET  ATTEMPT  DUE     DUE AT
ops-hook         5         3  #ops          2  in 30s  2026-03-01T12:13:04.500Z

DEAD LETTERS (1)
ID  DELIVERY  INCIDENT  CHANNEL   TARGET  FAILED      FAILED AT                 REASON
 1         2         3  ops-hook  lead    2m 00s ago  2026-03-01T12:10:34.500Z  HTTP 404 from the hook
)";
  CHECK(render_inspector_table(sample) == expected);
}

TEST_CASE("belay inspect sorts incidents by next timer due, timerless ones last") {
  auto text = render_inspector_table(sample);
  auto disk = text.find("Disk full on db1");
  auto api = text.find("API latency high");
  auto cert = text.find("TLS certificate expires");
  REQUIRE(disk != std::string::npos);
  CHECK(disk < api);
  CHECK(api < cert);
}

TEST_CASE("belay inspect shows control characters in titles as '?', never raw") {
  auto text = render_inspector_table(
      R"({"node":{"now":"2026-03-01T12:00:00.000Z"},"incidents":[{"actorId":"1","mailbox":0,)"
      R"("nextTimerDue":null,"incident":{"id":1,"status":"OPEN","title":"evil\u001b[2Jtitle\u0085!"}}]})");
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find("\xc2\x85") == std::string::npos);
  CHECK(text.find("evil?[2Jtitle?!") != std::string::npos);
}

TEST_CASE("belay inspect says plainly when nothing is held") {
  auto lines = lines_of(render_inspector_table(
      R"({"node":{"id":"n","version":"0.1.0","uptimeSeconds":1,"now":"2026-03-01T12:00:00.000Z"},
        "registry":{"held":0,"created":0,"deduplicated":0,"respawned":0},
        "incidents":[],"channels":[],"deadLetters":[],
        "storage":{"workers":1,"poolSize":2,"poolBusy":0}})"));
  CHECK(std::find(lines.begin(), lines.end(),
                  "INCIDENTS (0): no incident actor, nothing is paging") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(),
                  "CHANNELS (0): no channel actor on this node") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "DEAD LETTERS (0): none") != lines.end());
}

TEST_CASE("belay inspect refuses an answer that is not a JSON object") {
  CHECK_THROWS_AS(render_inspector_table("<html>proxy error</html>"),
                  std::invalid_argument);
  CHECK_THROWS_AS(render_inspector_table("[1,2]"), std::invalid_argument);
}
