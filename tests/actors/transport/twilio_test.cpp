#include "actors/transport/transport.hpp"
#include "tests/actors/transport/fixtures.hpp"
#include "tests/support/http_sink.hpp"

#include <catch2/catch.hpp>

using namespace std::chrono_literals;
using namespace belay;
using namespace belay::transport;
using namespace belay::transport::testing;

namespace {

const std::string account = "AC0123456789";
const std::string auth_token = "twilio-auth-token-42";
// base64("AC0123456789:twilio-auth-token-42")
const std::string basic_auth = "Basic QUMwMTIzNDU2Nzg5OnR3aWxpby1hdXRoLXRva2VuLTQy";

} // namespace

TEST_CASE("sms: posts To, From and Body to the Messages resource with basic auth") {
  test::http_sink sink;
  sink.set_default_status(201);
  auto p = sample_page("lead-sms", "+15559998888");

  auto r = send(twilio_channel("sms", sink.url("/"), account, auth_token), p);

  CHECK(r.result == outcome::sent);
  CHECK(r.http_status == 201);
  REQUIRE(sink.count() == 1);
  auto req = sink.requests()[0];
  CHECK(req.method == "POST");
  CHECK(req.path == "/2010-04-01/Accounts/AC0123456789/Messages.json");
  CHECK(req.header("Content-Type") == "application/x-www-form-urlencoded");
  CHECK(req.header("Authorization") == basic_auth);
  CHECK(req.header("Idempotency-Key") == "42:0:1:lead-sms:+15559998888");
  CHECK(req.header("I-Twilio-Idempotency-Token") == "42:0:1:lead-sms:+15559998888");
  auto form = form_fields(req.body);
  CHECK(form["To"] == "+15559998888");
  CHECK(form["From"] == "+15550001111");
  CHECK(form["Body"] == "[belay] CRITICAL Disk full on db-1 - incident 42, step 2");
  CHECK(form.size() == 3);
}

TEST_CASE("voice: posts To, From and TwiML to the Calls resource with basic auth") {
  test::http_sink sink;
  sink.set_default_status(201);
  auto p = sample_page("lead-voice", "+15559998888");
  p.incident.title = "R&D <db-1> down";

  auto r = send(twilio_channel("voice", sink.url("/"), account, auth_token), p);

  CHECK(r.result == outcome::sent);
  REQUIRE(sink.count() == 1);
  auto req = sink.requests()[0];
  CHECK(req.path == "/2010-04-01/Accounts/AC0123456789/Calls.json");
  CHECK(req.header("Authorization") == basic_auth);
  CHECK(req.header("I-Twilio-Idempotency-Token") == "42:0:1:lead-voice:+15559998888");
  auto form = form_fields(req.body);
  CHECK(form["To"] == "+15559998888");
  CHECK(form["From"] == "+15550001111");
  CHECK(form["Twiml"] ==
        "<Response><Say>belay page. CRITICAL. R&amp;D &lt;db-1&gt; down. "
        "Incident 42, step 2.</Say></Response>");
}

TEST_CASE("sms: a base URL with a path and a trailing slash is joined cleanly") {
  test::http_sink sink;
  auto c = twilio_channel("sms", sink.url("/"), account, auth_token);
  c.url = sink.url("/twilio/");

  REQUIRE(send(c, sample_page("lead-sms", "+15559998888")).result == outcome::sent);

  CHECK(sink.requests()[0].path ==
        "/twilio/2010-04-01/Accounts/AC0123456789/Messages.json");
}

TEST_CASE("sms: Twilio's 400 is permanent, 429 and 503 are retried") {
  test::http_sink sink;
  sink.script({400, 429, 503});
  auto p = sample_page("lead-sms", "+15559998888");

  CHECK(send(twilio_channel("sms", sink.url("/"), account, auth_token), p).result ==
        outcome::permanent);
  CHECK(send(twilio_channel("sms", sink.url("/"), account, auth_token), p).result ==
        outcome::retry);
  CHECK(send(twilio_channel("sms", sink.url("/"), account, auth_token), p).result ==
        outcome::retry);
}

TEST_CASE("sms: the auth token never appears in an error") {
  test::http_sink sink;
  sink.script_response(test::sink_response{401, 0ms, "bad credentials " + auth_token});

  auto r = send(twilio_channel("sms", sink.url("/"), account, auth_token),
                sample_page("lead-sms", "+15559998888"));

  CHECK(r.result == outcome::permanent);
  CHECK(r.error.find("HTTP 401 from twilio sms") == 0);
  CHECK(r.error.find(auth_token) == std::string::npos);
}

TEST_CASE("sms and voice: a channel without account SID is permanent, not sent") {
  test::http_sink sink;
  for (const char* type : {"sms", "voice"}) {
    auto c = twilio_channel(type, sink.url("/"), account, auth_token);
    c.account.clear();
    auto r = send(c, sample_page("lead", "+15559998888"));
    CHECK(r.result == outcome::permanent);
    CHECK(r.error.find("account SID") != std::string::npos);
  }
  CHECK(sink.count() == 0);
}

TEST_CASE("sms: a non-http API base is refused") {
  test::http_sink sink;
  auto c = twilio_channel("sms", sink.url("/"), account, auth_token);
  c.url = "file:///tmp/twilio";

  auto r = send(c, sample_page("lead-sms", "+15559998888"));

  CHECK(r.result == outcome::permanent);
  CHECK(r.error == "twilio sms: refusing 'file' URL, only http or https allowed");
}
