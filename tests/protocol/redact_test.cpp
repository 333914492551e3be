#include "protocol/json_document.hpp"
#include "protocol/redact.hpp"

#include <catch2/catch.hpp>

using belay::protocol::compact_json_without_secrets;
using belay::protocol::is_secret_field;

TEST_CASE("a secret word anywhere in a member name makes it secret, whatever its case "
          "and separators") {
  for (auto name : {"routing_key", "Authorization", "X-API-Key", "apiKey", "db_password",
                    "PASSWD", "oauth-token-v2", "Set-Cookie", "client_secret",
                    "aws_access_key_id", "bearer", "my-Private_Key", "credentials"})
    CHECK(is_secret_field(name));
}

TEST_CASE("names that only look like a secret word are kept") {
  for (auto name : {"", "dedupKey", "title", "severity", "keys", "pass", "tok", "route",
                    "secre", "author", "cook", "credit"})
    CHECK_FALSE(is_secret_field(name));
}

TEST_CASE("a long member name is checked to its end") {
  std::string name(200, 'x');
  CHECK_FALSE(is_secret_field(name));
  CHECK(is_secret_field(name + "_token"));
  CHECK(is_secret_field(std::string(70, '_') + "secret"));
}

TEST_CASE("a payload loses its secret-named members at any depth, values and all") {
  rapidjson::Document d;
  REQUIRE_FALSE(belay::protocol::parse_json(
      d,
      R"({"a":1,"token":{"x":[1,2]},"b":{"Api-Key":"k","c":[{"password":"p","d":2}]}})",
      "payload"));
  CHECK(compact_json_without_secrets(d) == R"({"a":1,"b":{"c":[{"d":2}]}})");
}

TEST_CASE("a logged path keeps everything but the key or token it carries") {
  using belay::protocol::loggable_path;
  CHECK(loggable_path("/hb/k3y") == "/hb/\u2026");
  CHECK(loggable_path("/hb/k3y/start") == "/hb/\u2026/start");
  CHECK(loggable_path("/hb/k3y/1") == "/hb/\u2026/1");
  CHECK(loggable_path("/a/t0ken") == "/a/\u2026");
  CHECK(loggable_path("/a/") == "/a/\u2026");
  CHECK(loggable_path("/api/v1/incidents/7/ack") == "/api/v1/incidents/7/ack");
  CHECK(loggable_path("/api/v1/integrations/twilio/voice") ==
        "/api/v1/integrations/twilio/voice");
  CHECK(loggable_path("/hbx/k3y") == "/hbx/k3y");
}
