#include "actors/transport/transport.hpp"
#include "tests/actors/transport/fixtures.hpp"
#include "tests/support/http_sink.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

using namespace std::chrono_literals;
using namespace belay;
using namespace belay::transport;
using namespace belay::transport::testing;

namespace {

// The path of a Slack incoming-webhook URL is the credential.
const std::string secret_path = "/services/T0001/B0002/XyZsecretTOKENabc123";

channel_config slack(const std::string& url) {
  return make_channel("ops-slack", "slack", url);
}

} // namespace

TEST_CASE("slack: the body is incoming-webhook JSON with text and a mrkdwn section") {
  test::http_sink sink;
  auto p = sample_page("ops-slack", "#ops");

  auto r = send(slack(sink.url(secret_path)), p);

  CHECK(r.result == outcome::sent);
  REQUIRE(sink.count() == 1);
  auto req = sink.requests()[0];
  CHECK(req.method == "POST");
  CHECK(req.path == secret_path);
  CHECK(req.header("Content-Type") == "application/json");
  CHECK(req.header("Idempotency-Key") == "42:0:1:ops-slack:#ops");

  rapidjson::Document json;
  json.Parse(req.body.c_str());
  REQUIRE(json.IsObject());
  std::string text = json["text"].GetString();
  CHECK(text == "[CRITICAL] Disk full on db-1 (incident 42, step 2)");
  CHECK(std::string(json["channel"].GetString()) == "#ops");
  REQUIRE(json["blocks"].IsArray());
  REQUIRE(json["blocks"].Size() == 1);
  const auto& section = json["blocks"][0];
  CHECK(std::string(section["type"].GetString()) == "section");
  CHECK(std::string(section["text"]["type"].GetString()) == "mrkdwn");
  std::string mrkdwn = section["text"]["text"].GetString();
  CHECK(mrkdwn.find("*CRITICAL*") != std::string::npos);
  CHECK(mrkdwn.find("Disk full on db-1") != std::string::npos);
  CHECK(mrkdwn.find("Incident *42*") != std::string::npos);
  CHECK(mrkdwn.find("step 2") != std::string::npos);
}

TEST_CASE("slack: markup characters in the title are escaped") {
  test::http_sink sink;
  auto p = sample_page("ops-slack", "#ops");
  p.incident.title = "<!channel> R&D disk > 90%";

  REQUIRE(send(slack(sink.url(secret_path)), p).result == outcome::sent);

  rapidjson::Document json;
  json.Parse(sink.requests()[0].body.c_str());
  std::string mrkdwn = json["blocks"][0]["text"]["text"].GetString();
  CHECK(mrkdwn.find("&lt;!channel&gt; R&amp;D disk &gt; 90%") != std::string::npos);
  CHECK(mrkdwn.find("<!channel>") == std::string::npos);
}

TEST_CASE("slack: the webhook URL never appears in an error") {
  test::http_sink sink;
  // Slack's own answers are short words; a proxy might echo the path back.
  sink.script_response(test::sink_response{404, 0ms, "no_service for " + secret_path});
  sink.script_response(test::sink_response{500, 0ms, "oops"});
  auto p = sample_page("ops-slack", "#ops");

  auto not_found = send(slack(sink.url(secret_path)), p);
  auto failed = send(slack(sink.url(secret_path)), p);
  auto refused =
      send(slack("http://127.0.0.1:" + std::to_string(closed_port()) + secret_path), p);
  sink.set_delay(2s);
  auto timeout_channel = slack(sink.url(secret_path));
  timeout_channel.timeout_seconds = 0.2;
  auto timed_out = send(timeout_channel, p);

  CHECK(not_found.result == outcome::permanent);
  CHECK(failed.result == outcome::retry);
  CHECK(failed.error == "HTTP 500 from slack webhook: oops");
  CHECK(refused.result == outcome::retry);
  CHECK(timed_out.ambiguous);
  for (const auto& r : {not_found, failed, refused, timed_out}) {
    INFO(r.error);
    CHECK(r.error.find("slack webhook") != std::string::npos);
    CHECK(r.error.find("XyZsecretTOKENabc123") == std::string::npos);
    CHECK(r.error.find("/services/") == std::string::npos);
  }
}

TEST_CASE("slack: a non-http URL is refused without naming it") {
  auto r = send(slack("ftp://hooks.example.com" + secret_path),
                sample_page("ops-slack", "#ops"));

  CHECK(r.result == outcome::permanent);
  CHECK(r.error == "slack webhook: refusing 'ftp' URL, only http or https allowed");
}
