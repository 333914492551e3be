#include "parsed_helpers.hpp"
#include "protocol/incident_request.hpp"
#include "protocol/json_document.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/policy_json.hpp"

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

std::string details_of(const std::string& details) {
  return value_of(parse_trigger_request(R"({"dedupKey":"k","title":"t","policy":"p",)"
                                        R"("details":)" +
                                        details + "}"))
      .details_json;
}

} // namespace

// RapidJSON 1.1.0 read these as -1.997919072202235e146, -2.191809349008403e-193 and
// -6.532100883151302e-201 in an -O2 build (found by tests/fuzz).
TEST_CASE("numbers that RapidJSON 1.1.0 misreads are read exactly") {
  CHECK(details_of(R"({"a":0e100})") == R"({"a":0.0})");
  CHECK(details_of(R"({"a":0.000000000000000000000000})") == R"({"a":0.0})");
  CHECK(details_of(R"({"a":-0e30})") == R"({"a":-0.0})");
  CHECK(details_of(R"({"a":0.184467440737095516159})") == R"({"a":0.1844674407370955})");
}

TEST_CASE("a policy delay written as 0e100 is zero seconds") {
  auto p = value_of(parse_policy(
      R"({"name":"p","steps":[{"delaySeconds":0e100,"targets":[{"channel":"c","to":"t"}]}]})"));
  CHECK(p.steps[0].delay_seconds == 0);
}

TEST_CASE("numbers keep their kind and value through parsing") {
  CHECK(details_of(R"({"i":-5,"u":18446744073709551615,"big":18446744073709551616})") ==
        R"({"i":-5,"u":18446744073709551615,"big":18446744073709553000.0})");
  CHECK(details_of(R"({"f":1.5,"e":2E-3,"m":-9223372036854775808,"z":-0})") ==
        R"({"f":1.5,"e":0.002,"m":-9223372036854775808,"z":0})");
  CHECK(details_of(R"({"tiny":5e-324,"under":1e-400,"max":1.7976931348623157e308})") ==
        R"({"tiny":5e-324,"under":0.0,"max":1.7976931348623157e308})");
}

TEST_CASE("a number beyond a double is refused as invalid JSON") {
  for (const char* number : {"1e309", "2e308", "9.9e308", "-2e308"}) {
    auto e =
        error_of(parse_trigger_request(std::string{R"({"dedupKey":)"} + number + "}"));
    CHECK(e.code == "invalid_json");
    CHECK_THAT(e.message, Catch::Contains("Number too big"));
  }
}

// RapidJSON 1.1.0 lets \udc00-\udfff through alone as the bytes ED B0 80 and so on, which
// PostgreSQL refuses as UTF-8 (found by tests/fuzz): the parser refuses them, naming the
// field.
TEST_CASE("an unpaired low surrogate escape is refused, naming its field") {
  for (
      const char* body :
      {R"({"dedupKey":"a\udc00b","title":"t","policy":"p"})",
       R"({"dedupKey":"k","title":"t","policy":"p","details":{"\udfff":1}})",
       R"({"dedupKey":"k","title":"t","policy":"p","details":{"a":["\ud83d\ude00\ude00"]}})"}) {
    auto e = error_of(parse_trigger_request(body));
    CHECK(e.code == "invalid_value");
    CHECK_FALSE(e.field.empty());
    CHECK_THAT(e.message, Catch::Contains("surrogate"));
  }
}

TEST_CASE("a surrogate pair escape is one character in UTF-8") {
  auto r = value_of(
      parse_trigger_request(R"({"dedupKey":"\ud83d\ude00","title":"t","policy":"p"})"));
  CHECK(r.dedup_key == "\xF0\x9F\x98\x80");
}

// PostgreSQL writes 0 / 1e6 as 0.00000000000000000000, which RapidJSON 1.1.0's own
// conversion turned into about 7.5e255 in a timeline detail.
TEST_CASE("stored JSON is written back with its numbers exactly as stored") {
  rapidjson::StringBuffer out;
  belay::protocol::json_writer w(out);
  belay::protocol::write_stored_json(w, R"({"a":0.00000000000000000000,"b":[1,-2.5e3]})");
  CHECK(belay::protocol::to_string(out) ==
        R"({"a":0.00000000000000000000,"b":[1,-2.5e3]})");
}

TEST_CASE("stored JSON that does not parse is wrapped, not cut in half") {
  rapidjson::StringBuffer out;
  belay::protocol::json_writer w(out);
  belay::protocol::write_stored_json(w, R"({"a":[1,2)");
  CHECK(belay::protocol::to_string(out) == R"({"unparsed":"{\"a\":[1,2"})");
}
