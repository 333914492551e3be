// GET /metrics speaks the Prometheus text format and its numbers follow what happens.
#include "support/metrics_token.hpp"
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace belay;

namespace {

// A strict reader of the text exposition format 0.0.4: every line is a comment
// (# HELP / # TYPE), blank, or `name{labels} value`; every sample belongs to a family
// declared by # TYPE. Returns series -> value, or fails the test on a bad line.
std::map<std::string, double> parse_prometheus(const std::string& text) {
  static const std::regex help{R"(# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*)"};
  static const std::regex type{
      R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram))"};
  static const std::regex sample{
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? ([-+0-9.eE]+|\+Inf|-Inf|NaN))"};
  std::map<std::string, double> out;
  std::set<std::string> families;
  std::istringstream in{text};
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    INFO("line: " << line);
    if (line.empty() || std::regex_match(line, help))
      continue;
    if (std::regex_match(line, m, type)) {
      families.insert(m[1]);
      continue;
    }
    REQUIRE(std::regex_match(line, m, sample));
    std::string name = m[1];
    auto family = std::regex_replace(name, std::regex{"_(bucket|sum|count)$"}, "");
    CHECK((families.count(name) || families.count(family)));
    out[name + m[2].str()] = std::stod(m[5]);
  }
  return out;
}

} // namespace

TEST_CASE("/metrics is valid Prometheus text and its counters move with a scenario") {
  test::served_belay belay;
  auto before = parse_prometheus(belay.get("/metrics", test::metrics_token).body);
  auto created = R"(belay_events_total{format="native",outcome="created"})";
  CHECK(before[created] == 0);

  auto r = belay.trigger("metrics-1");
  REQUIRE(r.status == 201);
  auto id = test::id_of(r);
  belay.wait_settled(id);
  REQUIRE(belay.trigger("metrics-1").status == 200);
  REQUIRE(belay.post("/api/v1/incidents", "{", "alpha-key").status == 400);
  REQUIRE(belay
              .post("/api/v1/incidents/" + std::to_string(id) + "/ack", R"({"by":"a"})",
                    "alpha-key")
              .status == 200);

  auto text = belay.get("/metrics", test::metrics_token).body;
  auto after = parse_prometheus(text);
  CHECK(after[created] == 1);
  CHECK(after[R"(belay_events_total{format="native",outcome="deduplicated"})"] == 1);
  CHECK(after[R"(belay_events_total{format="native",outcome="rejected"})"] == 1);
  CHECK(after["belay_acks_total"] == 1);
  CHECK(after["belay_steps_fired_total"] == 1);
  CHECK(after[R"(belay_deliveries_total{channel="log",outcome="sent"})"] == 1);
  CHECK(after[R"(belay_incidents{status="ACKNOWLEDGED"})"] == 1);
  CHECK(after[R"(belay_incidents{status="OPEN"})"] == 0);
  CHECK(after["belay_incident_actors"] == 1);
  CHECK(after["belay_outbox_depth"] == 0);
  CHECK(after[R"(belay_ingest_latency_seconds_count{format="native"})"] == 3);
  CHECK(after["belay_step_lateness_seconds_count"] == 1);
  CHECK(after[R"(belay_delivery_latency_seconds_count{channel="log"})"] == 1);
  CHECK(text.find("# TYPE belay_step_lateness_seconds histogram") != std::string::npos);
}

TEST_CASE("/metrics names no org, channel or user without the metrics token") {
  // Channels named after their orgs, so that any tenant name in the text is seen.
  auto org = [](const std::string& name) {
    return R"({"name":")" + name + R"(","apiKeys":[")" + name + R"(-key"],
      "channels":[{"name":")" +
           name + R"(-pager","type":"log"}],
      "policies":[{"name":"default","steps":[{"delaySeconds":0,
        "targets":[{"channel":")" +
           name + R"(-pager","to":")" + name + R"(-oncall"}]}]}]})";
  };
  test::served_belay belay{R"({"orgs":[)" + org("alpha") + "," + org("beta") + "]}"};
  for (auto key : {"alpha-key", "beta-key"}) {
    auto r = belay.trigger("tenant-metrics", key);
    REQUIRE(r.status == 201);
    belay.wait_settled(test::id_of(r));
  }

  auto stranger = belay.get("/metrics", "");
  REQUIRE(stranger.status == 200);
  for (auto name : {"alpha", "beta", "pager", "oncall", "channel="}) {
    INFO(name << " in\n" << stranger.body);
    CHECK(stranger.body.find(name) == std::string::npos);
  }
  auto series = parse_prometheus(stranger.body);
  CHECK(series[R"(belay_deliveries_total{outcome="sent"})"] == 2); // both orgs, summed
  CHECK(series["belay_delivery_latency_seconds_count"] == 2);

  auto scraper = parse_prometheus(belay.get("/metrics", test::metrics_token).body);
  CHECK(scraper[R"(belay_deliveries_total{channel="alpha-pager",outcome="sent"})"] == 1);
  CHECK(scraper[R"(belay_deliveries_total{channel="beta-pager",outcome="sent"})"] == 1);

  // A wrong token (an org's API key is one) is refused, not shown less.
  auto wrong = belay.client().Get("/metrics", {{"Authorization", "Bearer alpha-key"}});
  REQUIRE(wrong);
  CHECK(wrong->status == 401);
  CHECK(wrong->get_header_value("WWW-Authenticate") == "Bearer");
}

TEST_CASE("without --metrics-token no scrape sees per-org series") {
  test::served_belay belay{test::two_orgs(), 1, {"--metrics-token", ""}};
  auto r = belay.trigger("untokened");
  REQUIRE(r.status == 201);
  belay.wait_settled(test::id_of(r));
  auto text = belay.get("/metrics", "").body;
  CHECK(text.find("channel=") == std::string::npos);
  CHECK(belay.client().Get("/metrics", {{"Authorization", "Bearer "}})->status == 200);
  CHECK(belay.get("/metrics", "anything").status == 401);
}
