// GET /api/v1/openapi.json serves http/openapi.json (docs/http.md#openapi), and the
// document describes every route the server adds and no other: a new route without a
// description fails here. tests/support/openapi_check.* checks the answers themselves.
#include "http/keys.hpp"
#include "http/server.hpp"
#include "storage/db.hpp"
#include "support/json.hpp"
#include "support/openapi_check.hpp"
#include "support/served_belay.hpp"
#include "support/test_node.hpp"

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
};

std::vector<operation> documented() {
  auto doc = test::json(source_file("http/openapi.json"));
  std::vector<operation> all;
  for (auto& path : doc["paths"].GetObject())
    for (auto& method : path.value.GetObject()) {
      std::string name = method.name.GetString();
      for (auto& c : name)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      all.push_back({name, path.name.GetString()});
    }
  return all;
}

// The documented path with a sample value in each {parameter}: what a route's pattern
// must match.
std::string sample(const std::string& path) {
  return std::regex_replace(path, std::regex{R"(\{[^}]+\})"}, "x1");
}

// The server's route table: a server built on a node on the simulated clock, never
// bound (it answers nothing).
std::vector<routes::listing> route_table() {
  test::test_database db;
  db.provision(test::two_orgs());
  test::test_node node{db};
  storage::pool pool{db.url(), 1};
  key_store keys{pool};
  api a{node.sys, node.n.registry, node.n.triggers, node.n.dispatcher, pool, keys, {}, 1};
  server http{a, 1};
  return http.route_table();
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
  auto routes = route_table();
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
  CHECK_FALSE(test::openapi_mismatch("GET", "/api/v1/incidents", 500, json,
                                     R"({"error":{"code":"x"}})")
                  .empty());
  // Not JSON: not checked.
  CHECK(test::openapi_mismatch("GET", "/metrics", 200, "text/plain", "# HELP").empty());
}
