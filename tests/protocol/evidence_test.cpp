#include "protocol/evidence.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

using namespace belay::protocol;

namespace {

std::string evidence_of(const std::string& payload) {
  rapidjson::StringBuffer buf;
  json_writer w{buf};
  write_evidence(w, payload);
  return to_string(buf);
}

} // namespace

TEST_CASE("a payload of up to 16 KiB is kept as it is") {
  const std::string payload = R"({"a":")" + std::string(16 * 1024 - 8, 'a') + "\"}";
  REQUIRE(payload.size() == 16 * 1024);
  CHECK(evidence_of(payload) == payload);
}

TEST_CASE("a larger payload is kept as its beginning, whatever needs escaping") {
  // Quotes and backslashes double when escaped; a character of three bytes may
  // straddle the cut.
  const std::string payload = R"({"q":")" + std::string(9000, '"') + "\\\\" +
                              std::string(3000, '\\') + "\xe2\x82\xac" +
                              std::string(20000, 'z') + "\"}";
  const auto kept = evidence_of(payload);
  CHECK(kept.size() <= max_evidence_bytes);
  rapidjson::Document doc;
  REQUIRE_FALSE(doc.Parse(kept.c_str(), kept.size()).HasParseError());
  CHECK(doc["truncated"].GetBool());
  CHECK(doc["bytes"].GetUint64() == payload.size());
  const std::string head = doc["head"].GetString();
  CHECK(payload.compare(0, head.size(), head) == 0);
  CHECK(head.size() > 7000);
}

TEST_CASE("the cut never splits a UTF-8 character") {
  for (std::size_t shift = 0; shift < 3; ++shift) {
    std::string payload = "{\"e\":\"" + std::string(shift, 'a');
    while (payload.size() < 40000)
      payload += "\xe2\x82\xac"; // €
    payload += "\"}";
    rapidjson::Document doc;
    const auto kept = evidence_of(payload);
    REQUIRE_FALSE(
        doc.Parse<rapidjson::kParseValidateEncodingFlag>(kept.c_str(), kept.size())
            .HasParseError());
  }
}
