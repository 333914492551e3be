// The secrets of signing in (docs/security.md): Argon2id hashes, tokens, the CSRF token
// bound to its session, PKCE.
#include "protocol/credentials.hpp"
#include "protocol/oidc.hpp"

#include <catch2/catch.hpp>
#include <set>

using namespace belay::protocol;

TEST_CASE("a password is stored as an Argon2id hash that only it matches") {
  auto hash = hash_password("correct horse battery");
  CHECK(hash.rfind("$argon2id$v=19$m=19456,t=2,p=1$", 0) == 0);
  CHECK(hash.find("correct") == std::string::npos);
  CHECK(password_matches(hash, "correct horse battery"));
  CHECK_FALSE(password_matches(hash, "correct horse batterY"));
  CHECK_FALSE(password_matches(hash, ""));
  CHECK(hash_password("correct horse battery") != hash); // a salt of its own
  CHECK_FALSE(password_matches("$argon2i$v=19$m=16,t=2,p=1$c2FsdHNhbHQ$aGFzaA", "x"));
  CHECK_FALSE(password_matches("plain text", "plain text"));
}

TEST_CASE("passwords shorter than 8 or longer than 1,024 bytes are refused") {
  CHECK(weak_password("1234567"));
  CHECK_FALSE(weak_password("12345678"));
  CHECK(weak_password(std::string(1025, 'x')));
}

TEST_CASE("tokens are random, prefixed and URL-safe") {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    auto t = random_token(session_token_prefix);
    CHECK(t.rfind("belay_s_", 0) == 0);
    CHECK(t.size() == 8 + 43);
    CHECK(t.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                              "0123456789-_") == std::string::npos);
    seen.insert(t);
  }
  CHECK(seen.size() == 100);
}

TEST_CASE("a CSRF token belongs to its session alone") {
  auto a = random_token(session_token_prefix);
  auto b = random_token(session_token_prefix);
  CHECK(csrf_token_of(a) == csrf_token_of(a));
  CHECK(csrf_token_of(a) != csrf_token_of(b));
  CHECK(csrf_token_of(a).find(a) == std::string::npos);
}

TEST_CASE("PKCE's S256 challenge is RFC 7636's, and verifier and nonce are the "
          "browser's and the state's alone") {
  // RFC 7636, appendix B.
  CHECK(pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") ==
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  auto v = pkce_verifier("cookie", "state");
  CHECK(v.size() == 43); // within RFC 7636's 43..128
  CHECK(v == pkce_verifier("cookie", "state"));
  CHECK(v != pkce_verifier("cookie", "state2"));
  CHECK(v != pkce_verifier("cookie2", "state"));
  CHECK(oidc_nonce("cookie", "state") != v);
}

TEST_CASE("the authorization request carries the flow's parameters, percent-encoded") {
  oidc_provider p{"https://idp", "https://idp/auth?tenant=x", "https://idp/token",
                  "https://idp/jwks", true};
  oidc_config c{"https://idp", "belay app", "s", "openid email", "email"};
  auto url =
      authorization_url(p, c, "https://belay/auth/oidc/callback", "st", "nn", "ch");
  CHECK(url == "https://idp/auth?tenant=x&response_type=code&client_id=belay%20app"
               "&redirect_uri=https%3A%2F%2Fbelay%2Fauth%2Foidc%2Fcallback"
               "&scope=openid%20email&state=st&nonce=nn&code_challenge=ch"
               "&code_challenge_method=S256");
  CHECK(token_request_body(p, c, "c&d", "https://b/cb", "v") ==
        "grant_type=authorization_code&code=c%26d&redirect_uri=https%3A%2F%2Fb%2Fcb"
        "&code_verifier=v");
  p.secret_in_header = false;
  CHECK(token_request_body(p, c, "c", "r", "v").find("&client_secret=s") !=
        std::string::npos);
}

TEST_CASE("a discovery document naming another issuer is refused") {
  auto doc = R"({"issuer":"https://idp","authorization_endpoint":"https://idp/a",
    "token_endpoint":"https://idp/t","jwks_uri":"https://idp/k",
    "token_endpoint_auth_methods_supported":["client_secret_post"]})";
  auto ok = parse_discovery(doc, "https://idp");
  REQUIRE(std::holds_alternative<oidc_provider>(ok));
  CHECK_FALSE(std::get<oidc_provider>(ok).secret_in_header);
  CHECK(std::holds_alternative<error>(parse_discovery(doc, "https://idp/")));
  CHECK(std::holds_alternative<error>(
      parse_discovery(R"({"issuer":"https://idp"})", "https://idp")));
}
