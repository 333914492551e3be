#include "actors/transport/transport.hpp"
#include "protocol/hash.hpp"
#include "protocol/webhook.hpp"
#include "tests/actors/transport/fixtures.hpp"
#include "tests/support/http_sink.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

using namespace std::chrono_literals;
using namespace belay;
using namespace belay::transport;
using namespace belay::transport::testing;

namespace {

channel_config webhook(const test::http_sink& sink, const std::string& secret = "") {
  auto c = make_channel("ops-hook", "webhook", sink.url("/hook"));
  c.secret = secret;
  return c;
}

} // namespace

TEST_CASE("webhook: a 200 answer is sent, with JSON body and idempotency key") {
  test::http_sink sink;
  auto p = sample_page("ops-hook", "primary");

  auto r = send(webhook(sink, "s3cret"), p);

  CHECK(r.result == outcome::sent);
  CHECK(r.http_status == 200);
  CHECK_FALSE(r.ambiguous);
  CHECK(r.error.empty());
  auto received = sink.requests();
  REQUIRE(received.size() == 1);
  const auto& req = received[0];
  CHECK(req.method == "POST");
  CHECK(req.path == "/hook");
  CHECK(req.header("Content-Type") == "application/json");
  CHECK(req.header("Idempotency-Key") == "42:0:1:ops-hook:primary");
  CHECK(req.body == webhook_body(p));

  rapidjson::Document json;
  json.Parse(req.body.c_str());
  REQUIRE(json.IsObject());
  CHECK(json["id"].GetInt64() == 42);
  CHECK(std::string(json["dedupKey"].GetString()) == "disk-full/db-1");
  CHECK(std::string(json["title"].GetString()) == "Disk full on db-1");
  CHECK(std::string(json["severity"].GetString()) == "critical");
  CHECK(std::string(json["status"].GetString()) == "OPEN");
  CHECK(json["loop"].GetInt() == 0);
  CHECK(json["step"].GetInt() == 1);
  CHECK(std::string(json["target"].GetString()) == "primary");
  CHECK(json["attempt"].GetInt() == 2);
}

TEST_CASE("webhook: the signature is the HMAC-SHA256 of the received body") {
  test::http_sink sink;
  auto p = sample_page("ops-hook", "primary");
  p.incident.title = "quotes \" and unicode \xc3\xa9 survive";

  REQUIRE(send(webhook(sink, "s3cret"), p).result == outcome::sent);

  auto req = sink.requests().at(0);
  CHECK(req.header("X-Belay-Signature") ==
        "sha256=" + hmac_sha256_hex("s3cret", req.body));
  CHECK(req.header("X-Belay-Signature") !=
        "sha256=" + hmac_sha256_hex("other", req.body));
}

TEST_CASE("webhook: without a secret there is no signature header") {
  test::http_sink sink;

  REQUIRE(send(webhook(sink), sample_page("ops-hook", "primary")).result ==
          outcome::sent);

  CHECK_FALSE(sink.requests().at(0).has_header("X-Belay-Signature"));
}

TEST_CASE("webhook: the idempotency key is identical on every attempt") {
  test::http_sink sink;
  sink.script({503});
  auto p = sample_page("ops-hook", "primary");

  CHECK(send(webhook(sink), p).result == outcome::retry);
  p.attempt = 3;
  CHECK(send(webhook(sink), p).result == outcome::sent);

  auto received = sink.requests();
  REQUIRE(received.size() == 2);
  CHECK(received[0].header("Idempotency-Key") == received[1].header("Idempotency-Key"));
}

TEST_CASE("webhook: a 500 answer is retried") {
  test::http_sink sink;
  sink.set_default_status(500);

  auto r = send(webhook(sink), sample_page("ops-hook", "primary"));

  CHECK(r.result == outcome::retry);
  CHECK(r.http_status == 500);
  CHECK_FALSE(r.ambiguous);
  CHECK(r.error.find("HTTP 500") != std::string::npos);
}

TEST_CASE("webhook: a 400 answer is permanent") {
  test::http_sink sink;
  sink.script_response(test::sink_response{400, 0ms, "missing field"});

  auto r = send(webhook(sink), sample_page("ops-hook", "primary"));

  CHECK(r.result == outcome::permanent);
  CHECK(r.http_status == 400);
  CHECK(r.error == "HTTP 400 from webhook: missing field");
}

TEST_CASE("webhook: 404 and 401 are permanent, 408 and 429 are retried") {
  test::http_sink sink;
  sink.script({404, 401, 408, 429});
  auto p = sample_page("ops-hook", "primary");

  CHECK(send(webhook(sink), p).result == outcome::permanent);
  CHECK(send(webhook(sink), p).result == outcome::permanent);
  auto timeout = send(webhook(sink), p);
  CHECK(timeout.result == outcome::retry);
  CHECK(timeout.http_status == 408);
  auto throttled = send(webhook(sink), p);
  CHECK(throttled.result == outcome::retry);
  CHECK(throttled.http_status == 429);
}

TEST_CASE("webhook: a redirect is not followed and is permanent") {
  test::http_sink sink;
  sink.script({301});

  auto r = send(webhook(sink), sample_page("ops-hook", "primary"));

  CHECK(r.result == outcome::permanent);
  CHECK(r.error.find("redirects are not followed") != std::string::npos);
  CHECK(sink.count() == 1);
}

TEST_CASE("webhook: connection refused is retried and not ambiguous") {
  auto c = make_channel("ops-hook", "webhook",
                        "http://127.0.0.1:" + std::to_string(closed_port()) + "/hook");

  auto r = send(c, sample_page("ops-hook", "primary"));

  CHECK(r.result == outcome::retry);
  CHECK_FALSE(r.ambiguous);
  CHECK(r.http_status == 0);
  CHECK_FALSE(r.error.empty());
}

TEST_CASE("webhook: a peer slower than the timeout is retried and ambiguous") {
  test::http_sink sink;
  sink.set_delay(3s);
  auto c = webhook(sink);
  c.timeout_seconds = 0.3;

  auto started = std::chrono::steady_clock::now();
  auto r = send(c, sample_page("ops-hook", "primary"));
  auto took = std::chrono::steady_clock::now() - started;

  CHECK(r.result == outcome::retry);
  CHECK(r.ambiguous);
  CHECK(r.http_status == 0);
  CHECK(r.error.find("may have acted") != std::string::npos);
  CHECK(took >= 250ms);
  CHECK(took < 2s);
  // The peer did get the whole request: exactly why a retry may page twice.
  REQUIRE(sink.count() == 1);
  CHECK(sink.requests()[0].body == webhook_body(sample_page("ops-hook", "primary")));
}

TEST_CASE("webhook: a fractional timeout is honoured to the millisecond") {
  test::http_sink sink;
  sink.set_delay(1200ms);
  auto c = webhook(sink);

  c.timeout_seconds = 1.5; // whole seconds would cut this to 1 s and time out
  CHECK(send(c, sample_page("ops-hook", "primary")).result == outcome::sent);
  c.timeout_seconds = 0.05; // whole seconds would make this 0: no timeout at all
  auto r = send(c, sample_page("ops-hook", "primary"));
  CHECK(r.result == outcome::retry);
  CHECK(r.ambiguous);
}

TEST_CASE("webhook: URL schemes other than http and https are refused") {
  auto p = sample_page("ops-hook", "primary");
  for (const char* url : {"ftp://127.0.0.1/hook", "file:///etc/passwd",
                          "smtp://127.0.0.1:25", "127.0.0.1:8080/hook", ""}) {
    INFO(url);
    auto r = send(make_channel("ops-hook", "webhook", url), p);
    CHECK(r.result == outcome::permanent);
    CHECK_FALSE(r.error.empty());
  }
  auto r = send(make_channel("ops-hook", "webhook", "ftp://127.0.0.1/hook"), p);
  CHECK(r.error == "webhook: refusing 'ftp' URL, only http or https allowed");
  CHECK(send(make_channel("ops-hook", "webhook", "HTTP://127.0.0.1:1/"), p).result ==
        outcome::retry);
}

TEST_CASE("webhook: the secret never appears in an error") {
  const std::string secret = "whsec-9f8e7d6c5b4a";
  test::http_sink sink;
  // A peer that echoes what it was given must not smuggle the secret into last_error.
  sink.script_response(test::sink_response{400, 0ms, "bad signature, key was " + secret});
  sink.script_response(test::sink_response{500, 0ms, "upstream " + secret});

  auto c = webhook(sink, secret);
  auto first = send(c, sample_page("ops-hook", "primary"));
  auto second = send(c, sample_page("ops-hook", "primary"));

  CHECK(first.result == outcome::permanent);
  CHECK(second.result == outcome::retry);
  for (const auto& error : {first.error, second.error}) {
    CHECK_FALSE(error.empty());
    CHECK(error.find(secret) == std::string::npos);
    CHECK(error.find("[redacted]") != std::string::npos);
  }
}

TEST_CASE("webhook: a control character in the key cannot inject a header") {
  test::http_sink sink;
  auto p = sample_page("ops-hook", "evil\r\nX-Injected: 1");

  REQUIRE(send(webhook(sink), p).result == outcome::sent);

  auto req = sink.requests().at(0);
  CHECK_FALSE(req.has_header("X-Injected"));
  // Sent as "evil%0D%0AX-Injected: 1"; cpp-httplib percent-decodes header values.
  CHECK(req.header("Idempotency-Key") == p.idempotency_key);
}
