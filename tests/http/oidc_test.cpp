// docs/security.md#oidc against real parts: npm's oidc-provider signs people in with
// the authorization code flow, PKCE, state and nonce, and belay makes a session of it;
// a rogue provider's ID tokens, each with one defect, make none; an identity that is no
// user of the org is refused by name. One belay and one provider process for all.
#include "support/oidc_provider.hpp"
#include "support/people.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

struct signing_in {
  signing_in()
      : belay{R"({"orgs":[)" +
              test::people_org("alpha", R"({"oidc":{"issuer":")" + idp.issuer() +
                                            R"(","clientId":"belay","clientSecret":")" +
                                            secret + R"("}})") +
              "," +
              test::people_org("rogue", R"({"password":false,"oidc":{"issuer":")" +
                                            idp.rogue() +
                                            R"(","clientId":"belay","clientSecret":")" +
                                            secret + R"("}})") +
              "]}"} {
    base = "http://127.0.0.1:" + std::to_string(belay.process().port());
    idp.configure(base + "/auth/oidc/callback");
  }
  // Signs in through org `org`'s provider as the browser would, from /login's link.
  httplib::Result sign_in(test::test_browser& browser, const std::string& org) {
    return browser.get(base + "/auth/oidc?org=" + org + "&next=%2Fapi%2Fv1%2Fme");
  }
  int64_t sessions() { return belay.count("SELECT count(*) FROM session"); }

  static constexpr const char* secret = "the-test-client-secret";
  test::oidc_provider idp{secret};
  test::served_belay belay;
  std::string base;
};

} // namespace

TEST_CASE("OpenID sign-in: a real provider's user gets a session, a stranger a refusal "
          "naming them, and a rogue provider's flawed ID tokens nothing") {
  signing_in s;
  auto host = s.base.substr(std::string{"http://"}.size());

  SECTION("a user of the org signs in, once per sign-in") {
    s.idp.next_login("sub-ada", "ADA@example.com");
    test::test_browser browser;
    auto r = s.sign_in(browser, "alpha");
    REQUIRE(r);
    INFO(Catch::Detail::stringify(browser.visited));
    CHECK(r->status == 200); // /api/v1/me, where next= pointed
    auto me = test::to_reply(r);
    CHECK(std::string{me.json["user"]["name"].GetString()} == "ada");
    CHECK(std::string{me.json["user"]["role"].GetString()} == "admin");
    CHECK(browser.cookie(host, "belay_session").rfind("belay_s_", 0) == 0);
    CHECK(browser.cookie(host, "belay_login").empty()); // used up
    // The provider was asked for a code with PKCE (S256), a state and a nonce
    // (cpp-httplib hands a test a Location header percent-decoded).
    auto& to_provider = browser.visited.at(1);
    CHECK(to_provider.rfind(s.idp.issuer() + "/auth?", 0) == 0);
    for (auto part :
         {"response_type=code", "client_id=belay", "code_challenge_method=S256",
          "code_challenge=", "state=", "nonce=", "scope=openid email profile"})
      CHECK(to_provider.find(part) != std::string::npos);
    CHECK(s.sessions() == 1);
    CHECK(s.belay.count("SELECT count(*) FROM audit WHERE action = 'session.sign_in' AND "
                        "actor = 'ada' AND via = 'oidc'") == 1);
    // The client secret rests sealed, and is in no answer.
    CHECK(s.belay.db.dump().find(signing_in::secret) == std::string::npos);
    CHECK(s.belay.process().log().find(signing_in::secret) == std::string::npos);
    auto config = s.belay.get("/api/v1/config", "alpha-ops");
    CHECK(config.body.find(signing_in::secret) == std::string::npos);
    CHECK(config.body.find(R"("clientSecret":"<set>")") != std::string::npos);

    // The callback again (a replayed code and state): nothing.
    auto callback =
        std::find_if(browser.visited.begin(), browser.visited.end(), [&](auto& u) {
          return u.find("/auth/oidc/callback") != std::string::npos;
        });
    REQUIRE(callback != browser.visited.end());
    const std::string replayed = *callback; // get() starts a new visited list
    auto again = browser.get(replayed);
    REQUIRE(again);
    CHECK(again->status == 400);
    CHECK(s.sessions() == 1);
  }

  SECTION("an identity that is no user of the org is refused, and named") {
    s.idp.next_login("sub-m", "mallory@example.com");
    test::test_browser browser;
    auto r = s.sign_in(browser, "alpha");
    REQUIRE(r);
    CHECK(r->status == 403);
    CHECK(r->get_header_value("Content-Type").rfind("text/html", 0) == 0);
    CHECK(r->body.find("mallory@example.com") != std::string::npos);
    CHECK(s.sessions() == 0);
    CHECK(s.belay.count("SELECT count(*) FROM app_user WHERE name LIKE 'mallory%'") == 0);
    CHECK(s.belay.count(
              "SELECT count(*) FROM audit WHERE action = 'session.sign_in_failed' "
              "AND actor = 'mallory@example.com' AND via = 'oidc'") == 1);
    // An email the provider has not verified is not an identity either.
    s.idp.next_login("sub-r", "rita@example.com", false);
    auto unverified = s.sign_in(browser, "alpha");
    REQUIRE(unverified);
    CHECK(unverified->status == 403);
    CHECK(s.sessions() == 0);
  }

  SECTION("an ID token with any one flaw makes no session") {
    s.idp.next_login("sub-rita", "rita@example.com");
    for (auto defect : {"other_key", "unknown_kid", "other_aud", "other_iss", "expired",
                        "wrong_nonce", "no_nonce", "alg_none", "hs256"}) {
      INFO(defect);
      s.idp.next_defect(defect);
      test::test_browser browser;
      auto r = s.sign_in(browser, "rogue");
      REQUIRE(r);
      CHECK(r->status == 401);
      CHECK(browser.cookie(host, "belay_session").empty());
    }
    CHECK(s.sessions() == 0);
    // Each refused for its flaw, after the code was traded (PKCE and the client's secret
    // held): the audit log says why.
    auto reasons = s.belay.db.sql().query(
        "SELECT string_agg(changes->>'reason', ' | ' ORDER BY id), count(DISTINCT "
        "changes->>'reason'), count(*) FROM audit WHERE action = "
        "'session.sign_in_failed' "
        "AND via = 'oidc'");
    INFO(reasons.str(0, 0));
    CHECK(reasons.str(0, 0).find("token endpoint") == std::string::npos);
    CHECK(reasons.int64(0, 1) >= 7);
    CHECK(reasons.int64(0, 2) == 9);
    // The same provider's flawless token: the control.
    s.idp.next_defect("good");
    test::test_browser browser;
    auto r = s.sign_in(browser, "rogue");
    REQUIRE(r);
    CHECK(r->status == 200);
    CHECK(s.sessions() == 1);
  }

  SECTION("a sign-in finished in another browser than the one that began it is refused") {
    s.idp.next_defect("good");
    httplib::Client belay_http{s.base};
    auto start = belay_http.Get("/auth/oidc?org=rogue");
    REQUIRE(start);
    REQUIRE(start->status == 302);
    // Another browser, without the first one's belay_login cookie, comes back.
    test::test_browser other;
    auto r = other.get(start->get_header_value("Location"));
    REQUIRE(r);
    CHECK(r->status == 400);
    CHECK(s.sessions() == 0);
  }
}
