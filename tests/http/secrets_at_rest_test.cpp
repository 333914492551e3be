// No key at rest in clear (docs/guarantees.md#no-key-at-rest-in-clear): after belay has
// provisioned every channel type and paged through them, a dump of its database holds
// none of the credentials, keys or the answer-link signing secret.
#include "storage/sealed.hpp"
#include "support/answering.hpp"
#include "support/belay_process.hpp"
#include "support/eventually.hpp"
#include "support/http_sink.hpp"
#include "support/served_belay.hpp"
#include "support/smtp_sink.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

// Every secret a channel can carry, each spelled so that a dump can be searched for it.
std::string every_channel_org(const test::http_sink& http, const test::smtp_sink& mail) {
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[
      {"name":"log","type":"log"},
      {"name":"hook","type":"webhook","url":")" +
         http.url("/hook-url-token-7f3a") + R"(","secret":"webhook-hmac-secret-7f3a"},
      {"name":"sms","type":"sms","url":")" +
         http.url("/twilio-sms-url-7f3a") + R"(","account":"AC0123",)" +
         R"("secret":"twilio-sms-auth-token-7f3a","from":"+15550001111"},
      {"name":"voice","type":"voice","url":")" +
         http.url("/twilio-voice-url-7f3a") + R"(","account":"AC0123",)" +
         R"("secret":"twilio-voice-auth-token-7f3a","from":"+15550001112"},
      {"name":"mail","type":"email","url":")" +
         mail.url() + R"(","account":"mailer","secret":"smtp-password-7f3a",)" +
         R"("from":"belay@example.com"},
      {"name":"slack","type":"slack","url":")" +
         http.url("/slack-webhook-url-7f3a") +
         R"(","signingSecret":"slack-signing-secret-7f3a"}],
    "policies":[{"name":"default","steps":[{"delaySeconds":0,"targets":[
      {"channel":"log","to":"#ops"},{"channel":"hook","to":"#ops"},
      {"channel":"sms","to":"+15550002222"},{"channel":"voice","to":"+15550002223"},
      {"channel":"mail","to":"alice@example.com"},{"channel":"slack","to":"#ops"}]}]}],
    "integrations":[
      {"name":"pd","type":"events","key":"alpha-routing","policy":"default"},
      {"name":"prom","type":"alertmanager","key":"alpha-am","policy":"default"}],
    "heartbeats":[{"name":"nightly","key":"alpha-heartbeat-key-7f3a","policy":"default",
                   "periodSeconds":3600}]}]})";
}

} // namespace

TEST_CASE("a dump of the database after paging through every channel type holds no "
          "channel credential and no answer-link signing secret") {
  test::http_sink http;
  test::smtp_sink mail;
  test::served_belay belay{every_channel_org(http, mail)};
  REQUIRE(belay.trigger("disk").status == 201);
  // The page reached the webhook at its URL: the sealed URL was opened on the way out.
  REQUIRE(test::eventually(
      [&] { return !test::received(http, "/hook-url-token-7f3a").empty(); }));
  auto ping = belay.client().Get("/hb/alpha-heartbeat-key-7f3a");
  REQUIRE(ping);
  REQUIRE(ping->status == 200);

  auto stored = belay.db.sql().exec("SELECT secret FROM signing_secret").str(0, 0);
  storage::keyring keys;
  keys.current = storage::read_data_key_file(test::test_key_file(), "test key");
  auto answer_secret = storage::open(keys, stored);
  REQUIRE(answer_secret.size() >= 32);

  auto dump = belay.db.dump();
  INFO(dump.substr(0, 2000));
  REQUIRE(dump.find("CREATE TABLE") != std::string::npos);
  REQUIRE(dump.find("AC0123") != std::string::npos); // the channels are in it
  for (auto secret :
       {"hook-url-token-7f3a", "webhook-hmac-secret-7f3a", "twilio-sms-url-7f3a",
        "twilio-sms-auth-token-7f3a", "twilio-voice-url-7f3a",
        "twilio-voice-auth-token-7f3a", "smtp-password-7f3a", "slack-webhook-url-7f3a",
        "slack-signing-secret-7f3a", "alpha-key", "alpha-routing", "alpha-am",
        "alpha-heartbeat-key-7f3a"})
    CHECK(dump.find(secret) == std::string::npos);
  CHECK(dump.find(answer_secret) == std::string::npos);
}
