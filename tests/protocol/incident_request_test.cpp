#include "parsed_helpers.hpp"
#include "protocol/incident_request.hpp"

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

std::string trigger_with(const std::string& field, const std::string& json_value) {
  std::string body = R"({"dedupKey":"disk-full","title":"Disk full","policy":"default")";
  return body + ",\"" + field + "\":" + json_value + "}";
}

} // namespace

TEST_CASE("trigger request carries every field, details compacted") {
  auto r = value_of(parse_trigger_request(R"({
    "dedupKey": "disk-full/db1", "title": "Disk full on db1", "policy": "default",
    "severity": "warning", "details": { "free": "1%", "mounts": ["/", "/var"] } })"));
  CHECK(r.dedup_key == "disk-full/db1");
  CHECK(r.title == "Disk full on db1");
  CHECK(r.policy == "default");
  CHECK(r.severity == "warning");
  CHECK(r.details_json == R"({"free":"1%","mounts":["/","/var"]})");
}

TEST_CASE("trigger request defaults to critical and empty details") {
  auto r =
      value_of(parse_trigger_request(R"({"dedupKey":"k","title":"t","policy":"p"})"));
  CHECK(r.severity == "critical");
  CHECK(r.details_json == "{}");
}

TEST_CASE("trigger request ignores unknown fields and treats null as absent") {
  auto r = value_of(parse_trigger_request(
      R"({"dedupKey":"k","title":"t","policy":"p","severity":null,"details":null,"x":[1]})"));
  CHECK(r.severity == "critical");
  CHECK(r.details_json == "{}");
}

TEST_CASE("malformed JSON is invalid_json saying where parsing stopped") {
  auto e =
      error_of(parse_trigger_request("{\n  \"dedupKey\": \"k\",\n  \"title\" \"t\"\n}"));
  CHECK(e.status == 400);
  CHECK(e.code == "invalid_json");
  CHECK(e.field.empty());
  CHECK_THAT(e.message, Catch::Contains("line 3, column 11"));
}

TEST_CASE("an empty trigger body is invalid_json") {
  auto e = error_of(parse_trigger_request(""));
  CHECK(e.code == "invalid_json");
  CHECK_THAT(e.message, Catch::Contains("empty"));
}

TEST_CASE("invalid UTF-8 is invalid_json, never stored") {
  auto e = error_of(
      parse_trigger_request("{\"dedupKey\":\"k\xff\",\"title\":\"t\",\"policy\":\"p\"}"));
  CHECK(e.code == "invalid_json");
}

TEST_CASE("nesting deeper than the limit is refused before parsing") {
  std::string deep = "{\"dedupKey\":\"k\",\"title\":\"t\",\"policy\":\"p\",\"details\":";
  deep += repeat("[", 100'000);
  auto e = error_of(parse_trigger_request(deep));
  CHECK(e.code == "invalid_json");
  CHECK_THAT(e.message, Catch::Contains("deeper than 64"));
}

TEST_CASE("a body that is not an object is wrong_type") {
  auto e = error_of(parse_trigger_request("[1,2]"));
  CHECK(e.code == "wrong_type");
  CHECK_THAT(e.message, Catch::Contains("an array"));
}

TEST_CASE("each required trigger field is reported as missing_field by name") {
  auto field =
      GENERATE(std::string{"dedupKey"}, std::string{"title"}, std::string{"policy"});
  auto doc = json(R"({"dedupKey":"k","title":"t","policy":"p"})");
  doc.RemoveMember(field.c_str());
  auto e = error_of(parse_trigger_request(text_of(doc)));
  CHECK(e.code == "missing_field");
  CHECK(e.field == field);
  CHECK_THAT(e.message, Catch::Contains(field));
}

TEST_CASE("a trigger field of the wrong JSON type is wrong_type") {
  auto e = error_of(parse_trigger_request(R"({"dedupKey":"k","title":42,"policy":"p"})"));
  CHECK(e.code == "wrong_type");
  CHECK(e.field == "title");
  CHECK_THAT(e.message, Catch::Contains("a number"));
}

TEST_CASE("details must be an object") {
  auto e = error_of(parse_trigger_request(trigger_with("details", "[1]")));
  CHECK(e.code == "wrong_type");
  CHECK(e.field == "details");
}

TEST_CASE("an unknown severity is invalid_value listing the allowed ones") {
  auto e = error_of(parse_trigger_request(trigger_with("severity", "\"urgent\"")));
  CHECK(e.code == "invalid_value");
  CHECK(e.field == "severity");
  CHECK_THAT(e.message, Catch::Contains("critical, error, warning, info"));
}

TEST_CASE("a blank dedupKey is invalid_value") {
  auto e =
      error_of(parse_trigger_request(R"({"dedupKey":"  ","title":"t","policy":"p"})"));
  CHECK(e.code == "invalid_value");
  CHECK(e.field == "dedupKey");
}

TEST_CASE("dedupKey may be 255 characters, not 256") {
  auto at_limit =
      "{\"dedupKey\":\"" + repeat("k", 255) + "\",\"title\":\"t\",\"policy\":\"p\"}";
  CHECK(value_of(parse_trigger_request(at_limit)).dedup_key.size() == 255);
  auto over =
      "{\"dedupKey\":\"" + repeat("k", 256) + "\",\"title\":\"t\",\"policy\":\"p\"}";
  auto e = error_of(parse_trigger_request(over));
  CHECK(e.code == "too_long");
  CHECK(e.field == "dedupKey");
  CHECK_THAT(e.message, Catch::Contains("255"));
}

TEST_CASE("limits count characters, not bytes") {
  auto body =
      "{\"dedupKey\":\"" + repeat("é", 255) + "\",\"title\":\"t\",\"policy\":\"p\"}";
  CHECK(value_of(parse_trigger_request(body)).dedup_key.size() == 510);
}

TEST_CASE("title may be 1024 characters, not 1025") {
  auto body = [](std::size_t n) {
    return "{\"dedupKey\":\"k\",\"title\":\"" + repeat("t", n) + "\",\"policy\":\"p\"}";
  };
  CHECK(std::holds_alternative<trigger_request>(parse_trigger_request(body(1024))));
  auto e = error_of(parse_trigger_request(body(1025)));
  CHECK(e.code == "too_long");
  CHECK(e.field == "title");
}

TEST_CASE("policy may be 255 characters, not 256") {
  auto e = error_of(parse_trigger_request(
      "{\"dedupKey\":\"k\",\"title\":\"t\",\"policy\":\"" + repeat("p", 256) + "\"}"));
  CHECK(e.code == "too_long");
  CHECK(e.field == "policy");
}

TEST_CASE("NUL characters are refused where PostgreSQL could not store them") {
  auto in_title = error_of(
      parse_trigger_request(R"({"dedupKey":"k","title":"a\u0000b","policy":"p"})"));
  CHECK(in_title.code == "invalid_value");
  CHECK(in_title.field == "title");
  auto in_details =
      error_of(parse_trigger_request(trigger_with("details", R"({"a":{"b":"\u0000"}})")));
  CHECK(in_details.code == "invalid_value");
  CHECK(in_details.field == "details.a.b");
}

TEST_CASE("ack names who acknowledged") {
  CHECK(value_of(parse_ack_request(R"({"by":"alice"})")).by == "alice");
}

TEST_CASE("ack and resolve say they came through the API unless the console says so") {
  CHECK(value_of(parse_ack_request(R"({"by":"alice"})")).via == "api");
  CHECK(value_of(parse_ack_request(R"({"by":"alice","via":"console"})")).via ==
        "console");
  CHECK(value_of(parse_resolve_request("")).via == "api");
  CHECK(value_of(parse_resolve_request(R"({"via":"console"})")).via == "console");
  // Only belay's own answers say link, sms, voice or slack.
  auto forged = error_of(parse_ack_request(R"({"by":"alice","via":"sms"})"));
  CHECK(forged.code == "invalid_value");
  CHECK(forged.field == "via");
}

TEST_CASE("ack without by is missing_field, also for an empty body") {
  for (auto body : {"", "{}", R"({"by":null})"}) {
    auto e = error_of(parse_ack_request(body));
    CHECK(e.code == "missing_field");
    CHECK(e.field == "by");
  }
}

TEST_CASE("ack by is limited to 255 characters and must be a string") {
  auto too_long = error_of(parse_ack_request("{\"by\":\"" + repeat("a", 256) + "\"}"));
  CHECK(too_long.code == "too_long");
  CHECK(too_long.field == "by");
  auto wrong = error_of(parse_ack_request(R"({"by":["alice"]})"));
  CHECK(wrong.code == "wrong_type");
  CHECK(wrong.field == "by");
}

TEST_CASE("ack with malformed JSON is invalid_json") {
  CHECK(error_of(parse_ack_request("{by:alice}")).code == "invalid_json");
}

TEST_CASE("resolve accepts an empty body, {} and a name") {
  CHECK(value_of(parse_resolve_request("")).by.empty());
  CHECK(value_of(parse_resolve_request(" \n")).by.empty());
  CHECK(value_of(parse_resolve_request("{}")).by.empty());
  CHECK(value_of(parse_resolve_request(R"({"by":"bob"})")).by == "bob");
}

TEST_CASE("resolve refuses a by that is not a non-blank string") {
  auto wrong = error_of(parse_resolve_request(R"({"by":7})"));
  CHECK(wrong.code == "wrong_type");
  CHECK(wrong.field == "by");
  auto blank = error_of(parse_resolve_request(R"({"by":""})"));
  CHECK(blank.code == "invalid_value");
  CHECK(blank.field == "by");
}
