#include "protocol/error.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

using namespace belay::protocol;

TEST_CASE("render_error names code, message and field") {
  rapidjson::Document doc;
  doc.Parse(render_error({400, "missing_field", "'title' is required", "title"}).c_str());
  REQUIRE(doc.IsObject());
  const auto& e = doc["error"];
  CHECK(e["code"].GetString() == std::string{"missing_field"});
  CHECK(e["message"].GetString() == std::string{"'title' is required"});
  CHECK(e["field"].GetString() == std::string{"title"});
}

TEST_CASE("render_error leaves field out when no one field is at fault") {
  CHECK(render_error({400, "invalid_json", "bad", ""}) ==
        R"({"error":{"code":"invalid_json","message":"bad"}})");
}

TEST_CASE("render_error escapes quotes and control characters in the message") {
  rapidjson::Document doc;
  doc.Parse(render_error({409, "conflict", "say \"no\"\n", "x"}).c_str());
  REQUIRE(!doc.HasParseError());
  CHECK(doc["error"]["message"].GetString() == std::string{"say \"no\"\n"});
}
