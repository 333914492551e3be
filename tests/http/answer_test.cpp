// Answering the page (docs/guarantees.md#answering-the-page), end to end: the real binary
// pages real local servers (SMTP, a Twilio-like API, a Slack webhook, a webhook), and the
// answers come back over HTTP as a person, Twilio or Slack would send them. Inbound
// signatures are computed by Python's hmac and hashlib (tests/http/inbound_sign.py), not
// by belay.
#include "support/answering.hpp"
#include "support/form.hpp"
#include "support/http_sink.hpp"
#include "support/json.hpp"
#include "support/served_belay.hpp"
#include "support/shell.hpp"
#include "support/smtp_sink.hpp"
#include "support/text.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

using namespace belay;
using namespace std::chrono_literals;
using test::base_url;
using test::contains;
using test::form_body;
using test::percent_encode;
using test::post_form;
using test::python_signature;
using test::received;
using test::twilio_sms_path;

namespace {

const std::string twilio_number = "+15550001111";
const std::string bob_phone = "+15550002222";
const std::string twilio_token = "twilio-auth-token";
const std::string slack_secret = "slack-signing-secret";

struct sinks {
  test::smtp_sink mail;
  test::http_sink http; // Twilio's API, the Slack webhook and the webhook, by path
};

// These tests page one contact several times within seconds: no throttle (storms have
// their own tests, tests/http/storm_test.cpp).
const std::string unthrottled = R"("throttle":[],"statusThrottle":[])";

// Org "alpha": alice is mailed, bob texted; policy "mail" mails alice and, 6 s later,
// posts to the webhook for "lead"; "sms" texts bob; "slack" posts to #ops (and to #leads
// a day later); "hook"
// posts to the webhook for #ops.
std::string answer_org(const sinks& s) {
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[
      {"name":"mail","type":"email","url":")" +
         s.mail.url() + R"(","from":"belay@example.com",)" + unthrottled + R"(},
      {"name":"sms","type":"sms","url":")" +
         s.http.url("/twilio") + R"(","account":"AC0123","secret":")" + twilio_token +
         R"(","from":")" + twilio_number + R"(",)" + unthrottled + R"(},
      {"name":"slack","type":"slack","url":")" +
         s.http.url("/slack") + R"(","signingSecret":")" + slack_secret + R"("},
      {"name":"hook","type":"webhook","url":")" +
         s.http.url("/hook") + R"("},
      {"name":"voice","type":"voice","url":")" +
         s.http.url("/twilio") + R"(","account":"AC0123","secret":")" + twilio_token +
         R"(","from":")" + twilio_number + R"(",)" + unthrottled + R"(}],
    "users":[
      {"name":"alice","contacts":[{"name":"mail","channel":"mail","to":"alice@example.com"}],
       "rules":[{"contact":"mail"}]},
      {"name":"bob","contacts":[{"name":"phone","channel":"sms","to":")" +
         bob_phone + R"("}], "rules":[{"contact":"phone"}]},
      {"name":"dave","contacts":[{"name":"phone","channel":"sms","to":"+15550004444",
                                  "statusUpdates":true}], "rules":[{"contact":"phone"}]}],
    "policies":[
      {"name":"mail","steps":[{"delaySeconds":0,"targets":[{"user":"alice"}]},
                              {"delaySeconds":6,"targets":[{"channel":"hook","to":"lead"}]}]},
      {"name":"sms","steps":[{"delaySeconds":0,"targets":[{"user":"bob"}]}]},
      {"name":"updates","steps":[{"delaySeconds":0,"targets":[{"user":"bob"},{"user":"dave"}]}]},
      {"name":"slack","steps":[{"delaySeconds":0,"targets":[{"channel":"slack","to":"#ops"}]},
        {"delaySeconds":86400,"targets":[{"channel":"slack","to":"#leads"}]}]},
      {"name":"hook","steps":[{"delaySeconds":0,"targets":[{"channel":"hook","to":"#ops"}]}]},
      {"name":"voice","steps":[{"delaySeconds":0,"targets":[{"channel":"voice","to":"+15550003333"}]}]}
    ]}]})";
}

test::reply incident(test::served_belay& belay, int64_t id) {
  auto r = belay.get("/api/v1/incidents/" + std::to_string(id), "alpha-key");
  REQUIRE(r.status == 200);
  return r;
}

std::string field(const test::reply& r, const char* name) {
  auto& v = r.json["incident"][name];
  return v.IsString() ? v.GetString() : "";
}

// The status the API shows for incident `id` now.
std::string shown_status(test::served_belay& belay, int64_t id) {
  return field(incident(belay, id), "status");
}

bool wait_received(const test::http_sink& sink, const std::string& path, size_t n) {
  return test::eventually([&] { return received(sink, path).size() >= n; });
}

// Waits until the incident's pages of step 0 were all sent (recorded SENT).
void wait_sent(test::served_belay& belay, int64_t id) {
  REQUIRE(test::eventually([&] {
    return belay.count("SELECT count(*) FROM delivery WHERE incident_id = " +
                       std::to_string(id) + " AND status <> 'SENT'") == 0 &&
           belay.count("SELECT count(*) FROM delivery WHERE incident_id = " +
                       std::to_string(id)) > 0;
  }));
}

// The ackUrl of the webhook body the sink received last on /hook.
std::string webhook_ack_url(const test::http_sink& sink) {
  auto hooks = received(sink, "/hook");
  REQUIRE(!hooks.empty());
  auto body = test::json(hooks.back().body);
  REQUIRE(body.IsObject());
  REQUIRE(body.HasMember("ackUrl"));
  return body["ackUrl"].GetString();
}

// A Twilio SMS webhook from `from` to belay's number, signed with `token`.
test::reply sms_reply(test::served_belay& belay, const std::string& from,
                      const std::string& text, const std::string& token) {
  return test::sms_reply(belay, from, twilio_number, text, token);
}

} // namespace

TEST_CASE("an emailed link, opened and posted, acknowledges as the paged user and the "
          "next step never pages") {
  sinks s;
  test::served_belay belay{answer_org(s)};
  const auto id = belay.open("mail-1", "mail");
  REQUIRE(s.mail.wait_for(1, 10s));
  wait_sent(belay, id);
  const auto mail = s.mail.messages().front();
  CHECK(contains(mail.header("Content-Type"), "multipart/alternative"));
  const auto text = mail.body();
  const std::string intro = "Acknowledge or resolve it here:\r\n";
  REQUIRE(contains(text, intro));
  const auto start = text.find(intro) + intro.size();
  const auto link = text.substr(start, text.find("\r\n", start) - start);
  INFO("link: " << link);
  REQUIRE(link.rfind(base_url(belay) + "/a/", 0) == 0);
  const auto path = link.substr(base_url(belay).size());
  CHECK(contains(text, "Content-Type: text/html")); // the HTML part is there too

  // Opening the link (as a mail scanner would) changes nothing.
  const auto before = belay.row_counts();
  auto page = belay.get(path, "");
  CHECK(page.status == 200);
  CHECK(contains(page.body, "Disk full on mail-1"));
  CHECK(contains(page.body, "value=\"ack\""));
  CHECK(contains(page.body, "alice"));
  auto again = belay.get(path, "");
  CHECK(again.status == 200);
  CHECK(belay.row_counts() == before);
  CHECK(shown_status(belay, id) == "OPEN");

  // Posting its form acknowledges, as alice, via the link.
  auto answered = post_form(belay, path, "action=ack");
  CHECK(answered.status == 200);
  CHECK(contains(answered.body, "Acknowledged by alice"));
  auto now = incident(belay, id);
  CHECK(field(now, "status") == "ACKNOWLEDGED");
  CHECK(field(now, "ackedBy") == "alice");
  CHECK(field(now, "ackedVia") == "link");
  CHECK(belay.count(
            "SELECT count(*) FROM timeline WHERE incident_id = " + std::to_string(id) +
            " AND kind = 'acknowledged' AND detail->>'by' = 'alice' AND "
            "detail->>'via' = 'link'") == 1);

  // Step 1 was due 6 s after the trigger: it never fires, the webhook never hears.
  std::this_thread::sleep_for(7s);
  CHECK(received(s.http, "/hook").empty());
  CHECK(belay.count("SELECT count(*) FROM delivery WHERE incident_id = " +
                    std::to_string(id) + " AND step = 1") == 0);
}

TEST_CASE("SMS replies: a signed 1 acknowledges, a bad signature or a stranger changes "
          "nothing, resolve <id> resolves that incident") {
  sinks s;
  test::served_belay belay{answer_org(s)};
  const auto first = belay.open("sms-1", "sms");
  REQUIRE(wait_received(s.http, "/twilio/2010-04-01/Accounts/AC0123/Messages.json", 1));
  wait_sent(belay, first);
  {
    auto sms = received(s.http, "/twilio/2010-04-01/Accounts/AC0123/Messages.json");
    auto body = sms.front().body;
    CHECK(contains(body, "Reply%201%20to%20acknowledge%2C%202%20to%20resolve"));
    CHECK(contains(body, percent_encode(base_url(belay) + "/a/")));
  }
  const auto before = belay.row_counts();

  auto forged = sms_reply(belay, bob_phone, "1", "not-the-auth-token");
  CHECK(forged.status == 403);
  auto unsigned_reply =
      post_form(belay, twilio_sms_path,
                form_body({{"From", bob_phone}, {"To", twilio_number}, {"Body", "1"}}));
  CHECK(unsigned_reply.status == 403);
  auto stranger = sms_reply(belay, "+15559990000", "1", twilio_token);
  CHECK(stranger.status == 200);
  CHECK(contains(stranger.body, "<Response><Message>No open incident paged this "
                                "number.</Message></Response>"));
  CHECK(belay.row_counts() == before);
  CHECK(shown_status(belay, first) == "OPEN");

  auto ack = sms_reply(belay, bob_phone, "1", twilio_token);
  CHECK(ack.status == 200);
  CHECK(contains(ack.body,
                 "<Response><Message>Acknowledged by bob: #" + std::to_string(first)));
  auto acked = incident(belay, first);
  CHECK(field(acked, "status") == "ACKNOWLEDGED");
  CHECK(field(acked, "ackedBy") == "bob");
  CHECK(field(acked, "ackedVia") == "sms");

  // A second incident pages bob; "resolve <first>" resolves the first, not the latest.
  const auto second = belay.open("sms-2", "sms");
  REQUIRE(wait_received(s.http, "/twilio/2010-04-01/Accounts/AC0123/Messages.json", 2));
  wait_sent(belay, second);
  auto not_paged =
      sms_reply(belay, "+15559990000", "resolve " + std::to_string(second), twilio_token);
  CHECK(contains(not_paged.body, "did not page this number"));
  CHECK(shown_status(belay, second) == "OPEN");
  auto resolve =
      sms_reply(belay, bob_phone, "resolve " + std::to_string(first), twilio_token);
  CHECK(resolve.status == 200);
  CHECK(contains(resolve.body, "Resolved by bob: #" + std::to_string(first)));
  auto resolved = incident(belay, first);
  CHECK(field(resolved, "status") == "RESOLVED");
  CHECK(field(resolved, "resolvedBy") == "bob");
  CHECK(field(resolved, "resolvedVia") == "sms");
  CHECK(shown_status(belay, second) == "OPEN");
}

TEST_CASE("a signed SMS reply sent again is a replay: it answers that it was already "
          "answered and acts on nothing, not even on the incident that paged since") {
  sinks s;
  test::served_belay belay{answer_org(s)};
  const auto messages = "/twilio/2010-04-01/Accounts/AC0123/Messages.json";
  const auto first = belay.open("replay-1", "sms");
  REQUIRE(wait_received(s.http, messages, 1));
  wait_sent(belay, first);
  auto resolve =
      test::sms_reply(belay, bob_phone, twilio_number, "2", twilio_token, "SMreplayed");
  CHECK(contains(resolve.body, "Resolved by bob: #" + std::to_string(first)));

  // The captured reply, replayed once a second incident has paged bob: today's "2"
  // would resolve it, whoever sent it.
  const auto second = belay.open("replay-2", "sms");
  REQUIRE(wait_received(s.http, messages, 2));
  wait_sent(belay, second);
  const auto before = belay.row_counts();
  auto replay =
      test::sms_reply(belay, bob_phone, twilio_number, "2", twilio_token, "SMreplayed");
  CHECK(replay.status == 200);
  CHECK(contains(replay.body,
                 "<Response><Message>This reply was already answered; nothing "
                 "more was done.</Message></Response>"));
  CHECK(shown_status(belay, second) == "OPEN");
  CHECK(belay.row_counts() == before);

  // A new message from bob still answers.
  auto fresh = sms_reply(belay, bob_phone, "1", twilio_token);
  CHECK(contains(fresh.body, "Acknowledged by bob: #" + std::to_string(second)));
}

TEST_CASE("a Slack button click with a valid signature acknowledges, a stale or forged "
          "one is refused") {
  sinks s;
  test::served_belay belay{answer_org(s)};
  const auto id = belay.open("slack-1", "slack");
  REQUIRE(wait_received(s.http, "/slack", 1));
  wait_sent(belay, id);
  const auto token =
      test::slack_button_value(received(s.http, "/slack").front().body, "Acknowledge");
  REQUIRE(!token.empty());

  const auto body = test::slack_click_body("belay_ack", token);
  auto click = [&](const std::string& secret, long long timestamp) {
    return test::slack_click(belay, body, secret, timestamp);
  };
  const long long now = test::unix_seconds_now();
  const auto before = belay.row_counts();
  CHECK(click(slack_secret, now - 6 * 60).status == 403); // older than 5 minutes
  CHECK(click("another-secret", now).status == 403);
  CHECK(belay.row_counts() == before);
  CHECK(shown_status(belay, id) == "OPEN");

  auto ok = click(slack_secret, now);
  CHECK(ok.status == 200);
  auto acked = incident(belay, id);
  CHECK(field(acked, "status") == "ACKNOWLEDGED");
  CHECK(field(acked, "ackedBy") == "carol");
  CHECK(field(acked, "ackedVia") == "slack");
}

TEST_CASE("Slack's Snooze 1 h acknowledges and snoozes as the clicker, and Escalate "
          "reopens it at once, each refused unsigned") {
  sinks s;
  test::served_belay belay{answer_org(s)};
  const auto id = belay.open("slack-2", "slack");
  REQUIRE(wait_received(s.http, "/slack", 1));
  wait_sent(belay, id);
  const auto page = received(s.http, "/slack").front().body;
  const auto token = test::slack_button_value(page, "Snooze 1 h");
  REQUIRE(!token.empty());
  CHECK(test::slack_button_value(page, "Escalate") == token);
  const long long now = test::unix_seconds_now();
  auto click = [&](const char* action_id, const std::string& secret) {
    return test::slack_click(belay, test::slack_click_body(action_id, token), secret,
                             now);
  };
  const auto before = belay.row_counts();
  CHECK(click("belay_snooze_1h", "another-secret").status == 403);
  CHECK(click("belay_escalate", "another-secret").status == 403);
  CHECK(belay.row_counts() == before);

  auto snoozed = click("belay_snooze_1h", slack_secret);
  CHECK(snoozed.status == 200);
  CHECK(contains(snoozed.body, "snoozed for 1 hour by carol"));
  auto after = incident(belay, id);
  CHECK(field(after, "status") == "ACKNOWLEDGED");
  CHECK(field(after, "ackedBy") == "carol");
  CHECK(field(after, "ackedVia") == "slack");
  CHECK(!field(after, "snoozedUntil").empty());

  auto escalated = click("belay_escalate", slack_secret);
  CHECK(escalated.status == 200);
  CHECK(contains(escalated.body, "escalated by carol"));
  CHECK(field(incident(belay, id), "status") == "OPEN");
  CHECK(belay.count("SELECT count(*) FROM audit WHERE action IN ('incident.snooze', "
                    "'incident.escalate') AND actor = 'carol' AND via = 'slack'") == 2);
}

TEST_CASE("a tampered answer token gets the same plain 404 and changes nothing") {
  sinks s;
  test::served_belay belay{answer_org(s)};
  const auto id = belay.open("hook-1", "hook");
  REQUIRE(wait_received(s.http, "/hook", 1));
  wait_sent(belay, id);
  const auto link = webhook_ack_url(s.http);
  REQUIRE(link.rfind(base_url(belay) + "/a/", 0) == 0);
  const auto path = link.substr(base_url(belay).size());
  CHECK(belay.get(path, "").status == 200);

  const auto before = belay.row_counts();
  const auto not_found = belay.get("/a/not-a-token", "").body;
  for (size_t at : {path.size() - 1, path.size() - 40, size_t{5}}) {
    auto tampered = path;
    tampered[at] = tampered[at] == 'A' ? 'B' : 'A';
    INFO("tampered: " << tampered);
    auto looked = belay.get(tampered, "");
    CHECK(looked.status == 404);
    CHECK(looked.body == not_found);
    CHECK_FALSE(contains(looked.body, "hook-1"));
    auto posted = post_form(belay, tampered, "action=ack");
    CHECK(posted.status == 404);
    CHECK(posted.body == not_found);
  }
  CHECK(belay.row_counts() == before);
  CHECK(shown_status(belay, id) == "OPEN");
}

// Every node shares the signing secret through the database, and an answer through any
// node reaches the node holding the incident at once, as an API acknowledge does.
TEST_CASE("an answer link posted to another node acknowledges at the holding node at "
          "once, and resolves there") {
  sinks s;
  test::served_belay belay{answer_org(s), 2};
  const auto id = belay.open("hook-2", "hook"); // node 0 holds it
  REQUIRE(wait_received(s.http, "/hook", 1));
  wait_sent(belay, id);
  const auto path = webhook_ack_url(s.http).substr(base_url(belay).size());
  REQUIRE(belay.held_status() == "OPEN");

  auto on_other = [&](const std::string& action) {
    auto http = belay.client(1);
    return test::to_reply(
        http.Post(path.c_str(), "action=" + action, "application/x-www-form-urlencoded"));
  };
  auto acked = on_other("ack");
  CHECK(acked.status == 200);
  CHECK(contains(acked.body, "Acknowledged by #ops"));
  CHECK(test::eventually([&] { return belay.held_status() == "ACKNOWLEDGED"; }, 5s));
  auto resolved = on_other("resolve");
  CHECK(resolved.status == 200);
  CHECK(contains(resolved.body, "Resolved by #ops"));
  CHECK(test::eventually([&] { return belay.held_status() == "none held"; }, 5s));
  CHECK(field(incident(belay, id), "resolvedVia") == "link");
}

TEST_CASE("a key pressed during the call, signed, acknowledges, and a forged one changes "
          "nothing") {
  sinks s;
  test::served_belay belay{answer_org(s)};
  const auto id = belay.open("voice-1", "voice");
  const std::string calls = "/twilio/2010-04-01/Accounts/AC0123/Calls.json";
  REQUIRE(wait_received(s.http, calls, 1));
  wait_sent(belay, id);
  // The Twiml field: its <Gather action="…"> is the callback.
  auto call = test::form_fields(received(s.http, calls).front().body);
  REQUIRE(call.count("Twiml") == 1);
  const auto twiml = call["Twiml"];
  INFO("twiml: " << twiml);
  const auto url = test::gather_action(twiml);
  REQUIRE(url.rfind(base_url(belay) + "/api/v1/integrations/twilio/voice?t=", 0) == 0);
  const auto path = url.substr(base_url(belay).size());
  const auto body = form_body({{"AccountSid", "AC0123"},
                               {"CallSid", "CA0001"},
                               {"Digits", "1"},
                               {"From", twilio_number},
                               {"To", "+15550003333"}});
  auto press = [&](const std::string& token) {
    return post_form(
        belay, path, body,
        {{"X-Twilio-Signature", python_signature("twilio", token, url, body)}});
  };
  const auto before = belay.row_counts();
  CHECK(press("not-the-auth-token").status == 403);
  CHECK(belay.row_counts() == before);
  CHECK(shown_status(belay, id) == "OPEN");

  auto pressed = press(twilio_token);
  CHECK(pressed.status == 200);
  CHECK(contains(pressed.body, "<Response><Say>Acknowledged by +15550003333"));
  auto acked = incident(belay, id);
  CHECK(field(acked, "status") == "ACKNOWLEDGED");
  CHECK(field(acked, "ackedBy") == "+15550003333");
  CHECK(field(acked, "ackedVia") == "voice");
}

// docs/guarantees.md#on-call: a contact with statusUpdates gets one message when an
// incident it was paged for is acknowledged or resolved, saying by whom and how; others
// do not.
TEST_CASE("a contact with statusUpdates hears once of the acknowledge and once of the "
          "resolve, by whom and via what") {
  sinks s;
  test::served_belay belay{answer_org(s), 1, {"--poll-seconds", "0.2"}};
  const std::string messages = "/twilio/2010-04-01/Accounts/AC0123/Messages.json";
  const auto id = belay.open("updates-1", "updates");
  REQUIRE(wait_received(s.http, messages, 2));
  wait_sent(belay, id);
  auto texts_to = [&](const std::string& number) {
    std::vector<std::string> out;
    for (auto& r : received(s.http, messages))
      if (contains(r.body, "To=" + percent_encode(number)))
        out.push_back(r.body);
    return out;
  };
  const auto tag = percent_encode(": #" + std::to_string(id) + " ");

  REQUIRE(belay
              .post("/api/v1/incidents/" + std::to_string(id) + "/ack",
                    R"({"by":"erin"})", "alpha-key")
              .status == 200);
  REQUIRE(test::eventually([&] { return texts_to("+15550004444").size() == 2; }));
  CHECK(contains(texts_to("+15550004444")[1],
                 percent_encode("[belay] Acknowledged by erin via api") + tag));

  // dave answers by SMS himself: the resolve is told to him too, once.
  auto resolve = sms_reply(belay, "+15550004444", "2", twilio_token);
  CHECK(contains(resolve.body, "Resolved by dave"));
  REQUIRE(test::eventually([&] { return texts_to("+15550004444").size() == 3; }));
  CHECK(contains(texts_to("+15550004444")[2],
                 percent_encode("[belay] Resolved by dave via sms") + tag));
  std::this_thread::sleep_for(1s); // a second update would be out by now
  CHECK(texts_to("+15550004444").size() == 3);
  CHECK(texts_to(bob_phone).size() == 1); // bob asked for no updates
  CHECK(belay.count(
            "SELECT count(*) FROM delivery WHERE incident_id = " + std::to_string(id) +
            " AND update_of IS NOT NULL AND status = 'SENT'") == 2);
}
