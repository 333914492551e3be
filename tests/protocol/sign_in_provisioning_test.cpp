// Provisioning of who signs in (docs/security.md): users' roles and logins, named API
// keys with scopes, an org's "auth", each read back the way GET /api/v1/config shows it.
#include "parsed_helpers.hpp"
#include "protocol/provisioning.hpp"
#include "protocol/provisioning_json.hpp"

using namespace belay;
using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

std::string user(const std::string& name, const std::string& more) {
  return R"({"name":")" + name + R"(",)" + more +
         R"("contacts":[{"name":"l","channel":"log","to":"x"}],"rules":[{"contact":"l"}]})";
}

std::string org(const std::string& members) {
  return R"({"orgs":[{"name":"acme","channels":[{"name":"log","type":"log"}],)" +
         members + "}]}";
}

const error& refused(const parsed<provisioning>& p) {
  const error& e = error_of(p);
  CHECK(e.code == "invalid_provisioning");
  return e;
}

} // namespace

TEST_CASE("users take a role (responder by default) and a login") {
  auto p = parse_provisioning(org(
      R"("users":[)" + user("alice", R"("role":"admin","login":"Alice@Example.com",)") +
      "," + user("bob", "") + "]"));
  auto& users = value_of(p).orgs[0].users;
  CHECK(users[0].role == role::admin);
  CHECK(users[0].login == "Alice@Example.com");
  CHECK(users[1].role == role::responder);
  CHECK(users[1].login.empty());

  CHECK(refused(parse_provisioning(
                    org(R"("users":[)" + user("a", R"("role":"root",)") + "]")))
            .field == "orgs[0].users[0].role");
  // Logins are one identity whatever their case.
  auto twice = refused(
      parse_provisioning(org(R"("users":[)" + user("a", R"("login":"x@example.com",)") +
                             "," + user("b", R"("login":"X@EXAMPLE.com",)") + "]")));
  CHECK(twice.field == "orgs[0].users[1].login");
}

TEST_CASE("API keys may be named, with a scope, and plain strings stay admin keys") {
  auto p = parse_provisioning(
      org(R"("apiKeys":["old-key",{"name":"ci","key":"ci-key","scope":"read"},
      {"name":"ops","key":"ops-key"}])"));
  auto& o = value_of(p).orgs[0];
  CHECK(o.api_keys == std::vector<std::string>{"old-key"});
  REQUIRE(o.named_keys.size() == 2);
  CHECK(o.named_keys[0].name == "ci");
  CHECK(o.named_keys[0].scope == role::viewer);
  CHECK(o.named_keys[0].position == 1);
  CHECK(o.named_keys[1].scope == role::admin);

  CHECK(refused(parse_provisioning(
                    org(R"("apiKeys":[{"name":"ci","key":"k","scope":"viewer"}])")))
            .field == "orgs[0].apiKeys[0].scope");
  CHECK(refused(parse_provisioning(org(
                    R"("apiKeys":[{"name":"ci","key":"a"},{"name":"ci","key":"b"}])")))
            .field == "orgs[0].apiKeys[1].name");
  CHECK(refused(parse_provisioning(org(R"("apiKeys":["k",{"name":"ci","key":"k"}])")))
            .field == "orgs[0].apiKeys[1].key");
  CHECK(refused(parse_provisioning(org(R"("apiKeys":[{"name":"ci"}])"))).field ==
        "orgs[0].apiKeys[0].key");
}

TEST_CASE("an org's auth names its OpenID provider and whether passwords are taken") {
  auto p = parse_provisioning(org(R"("auth":{"oidc":{"issuer":"https://idp.example",
      "clientId":"belay","clientSecret":"s3cret"},"password":false})"));
  auto& a = value_of(p).orgs[0].auth;
  CHECK(a.oidc.issuer == "https://idp.example");
  CHECK(a.oidc.scopes == "openid email profile");
  CHECK(a.oidc.claim == "email");
  CHECK_FALSE(a.password);
  CHECK(value_of(parse_provisioning(org(R"("auth":{})"))).orgs[0].auth.password);

  CHECK(
      refused(
          parse_provisioning(org(
              R"("auth":{"oidc":{"issuer":"idp.example","clientId":"b","clientSecret":"s"}})")))
          .field == "orgs[0].auth.oidc.issuer");
  CHECK(refused(parse_provisioning(
                    org(R"("auth":{"oidc":{"issuer":"https://i","clientId":"b"}})")))
            .field == "orgs[0].auth.oidc.clientSecret");
  CHECK(
      refused(
          parse_provisioning(org(
              R"("auth":{"oidc":{"issuer":"https://i","clientId":"b","clientSecret":"s","scopes":"email"}})")))
          .field == "orgs[0].auth.oidc.scopes");
  CHECK(refused(parse_provisioning(org(R"("auth":{"sso":true})"))).field ==
        "orgs[0].auth.sso");
}

TEST_CASE("the document GET /api/v1/config renders reads back as it was") {
  auto text = org(R"("apiKeys":["<set>",{"name":"ci","key":"<set>","scope":"responder"}],
      "auth":{"oidc":{"issuer":"https://idp","clientId":"b","clientSecret":"<set>",
        "scopes":"openid email","claim":"preferred_username"},"password":true},
      "users":[)" +
                  user("alice", R"("role":"viewer","login":"alice",)") + "]");
  auto first = value_of(parse_provisioning(text)).orgs[0];
  first.api_keys = {"<set>"}; // as storage shows a stored key without a name
  auto again = value_of(parse_provisioning(render_provisioning(first))).orgs[0];
  CHECK(again.keep_api_keys);
  REQUIRE(again.named_keys.size() == 1);
  CHECK(again.named_keys[0].scope == role::responder);
  CHECK(again.auth.oidc.claim == "preferred_username");
  CHECK(again.auth.oidc.client_secret == "<set>");
  CHECK(again.users[0].role == role::viewer);
  CHECK(again.users[0].login == "alice");
}

TEST_CASE("a kept secret needs something stored to keep") {
  auto given = value_of(parse_provisioning(org(
                            R"("apiKeys":[{"name":"ci","key":"<set>"}],
      "auth":{"oidc":{"issuer":"https://idp","clientId":"b","clientSecret":"<set>"}})")))
                   .orgs[0];
  provisioned_org stored;
  auto e = check_kept_secrets(given, stored, "orgs[0]");
  REQUIRE(e);
  CHECK(e->field == "orgs[0].apiKeys[0].key");
  stored.named_keys.push_back({"ci", "<set>"});
  e = check_kept_secrets(given, stored, "orgs[0]");
  REQUIRE(e);
  CHECK(e->field == "orgs[0].auth.oidc.clientSecret");
  stored.auth.oidc.issuer = "https://idp";
  CHECK_FALSE(check_kept_secrets(given, stored, "orgs[0]"));
}
