// The storms fields refused at start (docs/guarantees.md#storms, "Bad input"): `belay
// serve
// --provision` with an unknown grouping root, a throttle window counting less than one
// message or spanning no time, or a bundle on a channel that cannot bundle stops,
// naming the field, and the database keeps what it had. How each is parsed is
// tests/protocol/storm_provisioning_test.cpp; this is the whole binary's answer.
#include "support/belay_process.hpp"
#include "support/served_belay.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

// Org "acme" with an sms channel, a webhook channel and an Alertmanager integration;
// `sms`, `hook` and `grouping` are spliced into them.
std::string storm_org(const std::string& sms, const std::string& hook,
                      const std::string& grouping) {
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[
      {"name":"sms","type":"sms","url":"http://127.0.0.1:9/twilio","account":"AC1",
       "secret":"s","from":"+15550001111")" +
         sms + R"(},
      {"name":"hook","type":"webhook","url":"http://127.0.0.1:9/hook")" +
         hook + R"(}],
    "policies":[{"name":"default","steps":[{"delaySeconds":0,
      "targets":[{"channel":"hook","to":"#ops"}]}]}],
    "integrations":[{"name":"prom","type":"alertmanager","key":"acme-am",
      "policy":"default","grouping":{"by":[)" +
         grouping + R"(]}}]}]})";
}

// Every org, channel and integration row as text: what a provisioning run could change.
std::string provisioned_rows(test::test_database& db) {
  return db.sql()
      .query("SELECT coalesce(string_agg(t, E'\\n' ORDER BY t), '') FROM ("
             "SELECT o::text AS t FROM org o UNION ALL SELECT c::text FROM channel c "
             "UNION ALL SELECT i::text FROM integration i) rows")
      .str(0, 0);
}

} // namespace

TEST_CASE("belay serve refuses a provisioning file with a bad grouping root, throttle "
          "window or bundle, naming the field, and writes nothing",
          "[storms]") {
  test::test_database db;
  db.provision(storm_org("", "", R"("labels.alertname")"));
  const auto before = provisioned_rows(db);
  REQUIRE(before.find("acme") != std::string::npos);

  struct bad_input {
    std::string file;
    std::string field;
  };
  const std::vector<bad_input> cases{
      {storm_org("", "", R"("labels.alertname","payload.source")"),
       "orgs[0].integrations[0].grouping.by[1]"},
      {storm_org(R"(,"throttle":[{"count":0,"seconds":60}])", "", R"("labels.team")"),
       "orgs[0].channels[0].throttle[0].count"},
      {storm_org(R"(,"statusThrottle":[{"count":1,"seconds":0}])", "",
                 R"("labels.team")"),
       "orgs[0].channels[0].statusThrottle[0].seconds"},
      {storm_org(R"(,"throttle":[{"count":1,"seconds":-5}])", "", R"("labels.team")"),
       "orgs[0].channels[0].throttle[0].seconds"},
      {storm_org("", R"(,"bundle":true)", R"("labels.team")"),
       "orgs[0].channels[1].bundle"}};
  for (auto& c : cases) {
    INFO(c.field);
    test::temp_file file{c.file};
    test::belay_process serve{
        {"serve", "--database-url", db.url(), "--provision", file.path()}};
    CHECK(serve.wait_exit() > 0); // not -1: it stopped on its own
    INFO(serve.log());
    CHECK(serve.log().find(c.field) != std::string::npos);
    CHECK(provisioned_rows(db) == before);
  }
}
