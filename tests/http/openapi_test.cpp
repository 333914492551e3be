// GET /api/v1/openapi.json serves http/openapi.json (docs/http.md#openapi), and the
// document describes every route the server adds and no other: a new route without a
// description fails here. tests/support/openapi_check.* checks the answers themselves.
#include "support/json.hpp"
#include "support/openapi_check.hpp"
#include "support/route_table.hpp"
#include "support/served_belay.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <sstream>

using namespace belay;

namespace {

std::string source_file(const std::string& path) {
  std::ifstream in{std::string{BELAY_SOURCE_DIR} + "/" + path};
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct operation {
  std::string method; // "GET"
  std::string path;   // "/api/v1/incidents/{id}"
  std::string access; // its x-belay-access ("" when it has none)
};

std::vector<operation> documented() {
  auto doc = test::json(source_file("http/openapi.json"));
  std::vector<operation> all;
  for (auto& path : doc["paths"].GetObject())
    for (auto& method : path.value.GetObject()) {
      std::string name = method.name.GetString();
      for (auto& c : name)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      auto level = method.value.FindMember("x-belay-access");
      all.push_back({name, path.name.GetString(),
                     level != method.value.MemberEnd() && level->value.IsString()
                         ? level->value.GetString()
                         : ""});
    }
  return all;
}

// The documented path with a sample value in each {parameter}: what a route's pattern
// must match.
std::string sample(const std::string& path) {
  return std::regex_replace(path, std::regex{R"(\{[^}]+\})"}, "x1");
}

// Keywords of JSON Schema 2020-12 that RapidJSON's draft-04 validator does not know
// (or reads otherwise: exclusiveMinimum is a boolean there) and so would pass unchecked
// (docs/http.md#openapi).
const std::vector<std::string> unchecked_keywords{"const",
                                                  "prefixItems",
                                                  "$defs",
                                                  "if",
                                                  "then",
                                                  "else",
                                                  "dependentRequired",
                                                  "dependentSchemas",
                                                  "unevaluatedProperties",
                                                  "unevaluatedItems",
                                                  "contains",
                                                  "minContains",
                                                  "maxContains",
                                                  "propertyNames",
                                                  "$anchor",
                                                  "$dynamicRef",
                                                  "exclusiveMinimum",
                                                  "exclusiveMaximum"};

// Where in `v` (a JSON pointer) such a keyword is used; a "properties" object's member
// names are field names, not keywords.
void find_unchecked(const rapidjson::Value& v, const std::string& at, bool field_names,
                    std::vector<std::string>& found) {
  if (v.IsArray())
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i)
      find_unchecked(v[i], at + "/" + std::to_string(i), false, found);
  if (!v.IsObject())
    return;
  for (auto& m : v.GetObject()) {
    std::string name = m.name.GetString();
    if (!field_names && std::find(unchecked_keywords.begin(), unchecked_keywords.end(),
                                  name) != unchecked_keywords.end())
      found.push_back(at + "/" + name);
    find_unchecked(m.value, at + "/" + name, !field_names && name == "properties", found);
  }
}

} // namespace

TEST_CASE("GET /api/v1/openapi.json serves http/openapi.json as it is, with no key") {
  test::served_belay belay;
  auto r = belay.client().Get("/api/v1/openapi.json");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->get_header_value("Content-Type") == "application/json");
  CHECK(r->body == source_file("http/openapi.json"));
}

TEST_CASE("http/openapi.json describes every route the server adds, and only those") {
  auto routes = test::route_table();
  auto operations = documented();
  REQUIRE(routes.size() > 30);
  for (auto& route : routes) {
    std::regex pattern{route.pattern};
    bool described = false;
    for (auto& op : operations)
      described = described || (op.method == route.method &&
                                std::regex_match(sample(op.path), pattern));
    INFO(route.method << " " << route.pattern);
    CHECK(described);
  }
  for (auto& op : operations) {
    bool served = false;
    for (auto& route : routes)
      served = served || (op.method == route.method &&
                          std::regex_match(sample(op.path), std::regex{route.pattern}));
    INFO(op.method << " " << op.path);
    CHECK(served);
  }
}

// docs/security.md#roles: a reader of the document learns what each operation needs from
// x-belay-access, and it is the level the router enforces.
TEST_CASE("each operation's x-belay-access in http/openapi.json is its route's access") {
  auto routes = test::route_table();
  for (auto& op : documented())
    for (auto& route : routes)
      if (op.method == route.method &&
          std::regex_match(sample(op.path), std::regex{route.pattern})) {
        INFO(op.method << " " << op.path);
        CHECK(op.access == std::string{protocol::access_name(route.need)});
      }
}

TEST_CASE("an answer that does not match its schema in http/openapi.json is a mismatch") {
  auto json = "application/json";
  CHECK(
      test::openapi_mismatch("GET", "/healthz", 200, json, R"({"status":"ok"})").empty());
  CHECK_FALSE(
      test::openapi_mismatch("GET", "/healthz", 200, json, R"({"status":1})").empty());
  // An error of any route is belay's error shape, a route's other answers their own.
  auto error = R"({"error":{"code":"not_found","message":"no such incident"}})";
  CHECK(test::openapi_mismatch("GET", "/api/v1/incidents/9?limit=5", 404, json, error)
            .empty());
  CHECK(test::openapi_mismatch("GET", "/no/such/route", 404, json, error).empty());
  CHECK_FALSE(
      test::openapi_mismatch("GET", "/api/v1/incidents", 200, json, error).empty());
  // A path with a {parameter} is checked too (its schema's pointer holds "{").
  CHECK_FALSE(test::openapi_mismatch("GET", "/api/v1/incidents/9", 200, json,
                                     R"({"incident":{"id":"nine"}})")
                  .empty());
  CHECK_FALSE(test::openapi_mismatch("GET", "/api/v1/bundles/3", 200, json,
                                     R"({"bundle":{"id":3},"incidents":[]})")
                  .empty());
  CHECK_FALSE(test::openapi_mismatch("GET", "/api/v1/incidents", 400, json,
                                     R"({"error":{"code":"no_such_code","message":"x"}})")
                  .empty());
  CHECK_FALSE(test::openapi_mismatch("GET", "/api/v1/incidents", 500, json,
                                     R"({"error":{"code":"x"}})")
                  .empty());
  // Not JSON: not checked.
  CHECK(test::openapi_mismatch("GET", "/metrics", 200, "text/plain", "# HELP").empty());
}

TEST_CASE("http/openapi.json's schemas use only what RapidJSON's validator checks") {
  std::vector<std::string> found;
  find_unchecked(test::json(source_file("http/openapi.json")), "", false, found);
  INFO("2020-12 keywords a draft-04 validator ignores: "
       << Catch::Detail::stringify(found));
  CHECK(found.empty());
}
