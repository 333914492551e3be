// docs/security.md#roles: every route of the server's table, asked by every kind of
// caller — no credential, a key of each scope, a session of each role, a personal
// token — answers as its access level says: 401 without a credential, 403 below the
// level, and past the router above it. Open routes are exactly the ones listed here.
#include "support/people.hpp"
#include "support/route_table.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <regex>

using namespace belay;
using protocol::access;
using protocol::role;

namespace {

// The routes that take no belay credential: each checks its own key, token or
// signature, or serves what anyone may read.
const std::vector<std::string> open_routes{
    "GET /healthz",
    "GET /readyz",
    "GET /metrics",
    "GET /api/v1/openapi.json",
    "POST /v2/enqueue",
    "POST /v2/change/enqueue",
    "POST /api/v1/integrations/alertmanager",
    "GET /hb/([^/]+)(?:/([^/]+))?",
    "POST /hb/([^/]+)(?:/([^/]+))?",
    "GET /a/([^/]+)",
    "POST /a/([^/]+)",
    "POST /api/v1/integrations/twilio/sms",
    "POST /api/v1/integrations/twilio/voice",
    "POST /api/v1/integrations/slack/actions",
    "GET /console",
    "GET /console/([A-Za-z0-9_.-]+)",
    "GET /login",
    "POST /auth/password",
    "GET /auth/oidc",
    "GET /auth/oidc/callback",
};

// A path the route's pattern matches: each capture an id no row has.
std::string sample_path(const std::string& pattern) {
  auto path =
      std::regex_replace(pattern, std::regex{R"(\(\[\^/\]\+\)|\(\.\+\))"}, "9999");
  return std::regex_replace(path, std::regex{R"(\\\.)"}, ".");
}

struct asker {
  std::string name;
  std::optional<role> acts_as; // nullopt: no credential
  bool person = false;         // a session or a personal token
  httplib::Headers headers;
  bool write_headers = false; // a session: its CSRF token on writes
  httplib::Headers write;
};

// The status of `method path` asked with `headers`; a stream's status once its headers
// arrive (the stream is then let go).
int status_of(httplib::Client& http, const std::string& method, const std::string& path,
              const httplib::Headers& headers) {
  // A body no route accepts: a route past the router refuses it with a 400 (or a 404 for
  // the id no row has) and so changes nothing.
  const std::string body = "not json";
  httplib::Result r{nullptr, httplib::Error::Unknown};
  if (method == "GET") {
    int status = 0;
    auto got = http.Get(
        path.c_str(), headers,
        [&](const httplib::Response& res) {
          status = res.status;
          return true;
        },
        [](const char*, size_t) { return false; });
    return got ? got->status : status;
  }
  if (method == "POST")
    r = http.Post(path.c_str(), headers, body, "application/json");
  else if (method == "PUT")
    r = http.Put(path.c_str(), headers, body, "application/json");
  else
    r = http.Delete(path.c_str(), headers, body, "application/json");
  return r ? r->status : 0;
}

} // namespace

TEST_CASE("every route answers every role and scope as its access level says") {
  test::served_belay belay{test::people_orgs()};
  for (auto name : {"ada", "rita", "vera"})
    REQUIRE(test::set_password(belay.db, "alpha", std::string{name} + "@example.com",
                               "correct horse " + std::string{name})
                .exit_code == 0);
  auto http = belay.client();
  http.set_read_timeout(5, 0);
  auto signed_in = [&](const std::string& name) {
    auto s = test::sign_in(http, "alpha", name + "@example.com", "correct horse " + name);
    REQUIRE(s.status == 200);
    REQUIRE_FALSE(s.csrf.empty());
    return s;
  };
  auto ada = signed_in("ada"), rita = signed_in("rita"), vera = signed_in("vera");
  // Ada's token of scope read acts as a viewer, whatever her own role.
  auto made = test::to_reply(http.Post("/api/v1/me/tokens", test::session_headers(ada),
                                       R"({"name":"script","scope":"read"})",
                                       "application/json"));
  REQUIRE(made.status == 201);
  std::string token = made.json["secret"].GetString();

  auto key = [](const std::string& k) {
    return httplib::Headers{{"Authorization", test::bearer(k)}};
  };
  std::vector<asker> askers{
      {"no credential", std::nullopt, false, {}, false, {}},
      {"key of scope read", role::viewer, false, key("alpha-reader"), false, {}},
      {"key of scope responder", role::responder, false, key("alpha-pager"), false, {}},
      {"key of scope admin", role::admin, false, key("alpha-ops"), false, {}},
      {"a plain-string key (admin)", role::admin, false, key("alpha-key"), false, {}},
      {"ada's token of scope read", role::viewer, true, key(token), false, {}},
      {"vera's session (viewer)", role::viewer, true, test::session_headers(vera, false),
       true, test::session_headers(vera)},
      {"rita's session (responder)", role::responder, true,
       test::session_headers(rita, false), true, test::session_headers(rita)},
      {"ada's session (admin)", role::admin, true, test::session_headers(ada, false),
       true, test::session_headers(ada)},
  };

  auto table = test::route_table();
  // Signing out ends the session the rest of the walk uses: last.
  std::stable_partition(table.begin(), table.end(),
                        [](auto& r) { return r.pattern != "/auth/logout"; });
  int walked = 0;
  for (auto& route : table) {
    auto name = route.method + " " + route.pattern;
    INFO(name);
    if (route.need == access::open) {
      CHECK(std::find(open_routes.begin(), open_routes.end(), name) != open_routes.end());
      continue;
    }
    auto path = sample_path(route.pattern);
    for (auto& a : askers) {
      INFO(a.name << " asks " << route.method << " " << path);
      bool write = route.method != "GET";
      int status = status_of(http, route.method, path,
                             write && a.write_headers ? a.write : a.headers);
      ++walked;
      if (!a.acts_as) {
        CHECK(status == 401);
        continue;
      }
      bool allowed = protocol::permits(*a.acts_as, route.need) &&
                     (route.need != access::person || a.person);
      if (allowed) {
        CHECK(status != 401);
        CHECK(status != 403);
        CHECK(status != 0);
      } else {
        CHECK(status == 403);
      }
    }
  }
  CHECK(walked > 300);
  // Nothing the walk asked changed a thing.
  CHECK(belay.count("SELECT count(*) FROM incident") == 0);
  CHECK(belay.count("SELECT count(*) FROM maintenance") == 0);
}
