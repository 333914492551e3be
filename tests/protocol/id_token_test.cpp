// ID tokens are believed only when they hold (docs/security.md#oidc): keys made and
// tokens signed here with libcjose, as a provider would, and every way a token can be
// wrong refused.
#include "parsed_helpers.hpp"
#include "protocol/encoding.hpp"
#include "protocol/hash.hpp"
#include "protocol/id_token.hpp"

#include <catch2/catch.hpp>
#include <cjose/header.h>
#include <cjose/jwk.h>
#include <cjose/jws.h>
#include <cjose/util.h>
#include <memory>

using namespace belay::protocol;
using belay::protocol::test::error_of;
using belay::protocol::test::value_of;

namespace {

constexpr belay::micros now = 1'796'000'000'000'000; // 2026-11-29
constexpr long now_s = static_cast<long>(now / 1'000'000);

struct key {
  std::shared_ptr<cjose_jwk_t> jwk;
  std::string alg;
  std::string kid;
};

key make_key(const std::string& alg, const std::string& kid) {
  cjose_err err{};
  cjose_jwk_t* k = alg == "RS256" ? cjose_jwk_create_RSA_random(2048, nullptr, 0, &err)
                                  : cjose_jwk_create_EC_random(CJOSE_JWK_EC_P_256, &err);
  REQUIRE(k);
  REQUIRE(cjose_jwk_set_kid(k, kid.data(), kid.size(), &err));
  return {std::shared_ptr<cjose_jwk_t>(k, cjose_jwk_release), alg, kid};
}

std::string public_json(const key& k) {
  cjose_err err{};
  char* text = cjose_jwk_to_json(k.jwk.get(), false, &err);
  std::string out{text};
  cjose_get_dealloc()(text);
  return out;
}

std::string jwks(std::initializer_list<const key*> keys) {
  std::string out = R"({"keys":[)";
  for (auto* k : keys)
    out += (out.back() == '[' ? "" : ",") + public_json(*k);
  return out + "]}";
}

std::string sign(const key& k, const std::string& claims, bool with_kid = true) {
  cjose_err err{};
  cjose_header_t* h = cjose_header_new(&err);
  cjose_header_set(h, CJOSE_HDR_ALG, k.alg.c_str(), &err);
  if (with_kid)
    cjose_header_set(h, CJOSE_HDR_KID, k.kid.c_str(), &err);
  cjose_jws_t* jws =
      cjose_jws_sign(k.jwk.get(), h, reinterpret_cast<const uint8_t*>(claims.data()),
                     claims.size(), &err);
  cjose_header_release(h);
  REQUIRE(jws);
  const char* compact = nullptr;
  REQUIRE(cjose_jws_export(jws, &compact, &err));
  std::string out{compact};
  cjose_jws_release(jws);
  return out;
}

std::string claims(const std::string& more = "", long exp = now_s + 300,
                   const std::string& aud = R"("belay")") {
  return R"({"iss":"https://idp.example","sub":"u-1","aud":)" + aud + R"(,"exp":)" +
         std::to_string(exp) + R"(,"iat":)" + std::to_string(now_s - 10) +
         R"(,"nonce":"n-1","email":"alice@example.com")" + more + "}";
}

const id_token_expectations expected{"https://idp.example", "belay", "n-1", now};

std::string refusal(const parsed<id_token_claims>& p) {
  return error_of(p).message;
}

} // namespace

TEST_CASE("an RS256 or ES256 ID token signed with the provider's key holds") {
  auto rsa = make_key("RS256", "r1");
  auto ec = make_key("ES256", "e1");
  auto set = jwks({&rsa, &ec});
  auto a = value_of(verify_id_token(sign(rsa, claims()), set, expected));
  CHECK(a.subject == "u-1");
  CHECK(string_claim(a.json, "email") == "alice@example.com");
  CHECK(value_of(verify_id_token(sign(ec, claims()), set, expected)).subject == "u-1");
  // No kid: any key of the right type is tried.
  CHECK(value_of(verify_id_token(sign(ec, claims(), false), set, expected)).subject ==
        "u-1");
  // Several audiences, ours among them, issued to us.
  CHECK(value_of(verify_id_token(sign(rsa, claims(R"(,"azp":"belay")", now_s + 300,
                                                  R"(["belay","other"])")),
                                 set, expected))
            .subject == "u-1");
}

TEST_CASE("an ID token signed by another key, for another client, expired, replayed "
          "or unsigned is refused") {
  auto rsa = make_key("RS256", "r1");
  auto stranger = make_key("RS256", "r1"); // same kid, another key
  auto set = jwks({&rsa});
  CHECK(refusal(verify_id_token(sign(stranger, claims()), set, expected))
            .find("signature") != std::string::npos);
  CHECK(refusal(verify_id_token(sign(rsa, claims("", now_s + 300, R"("other")")), set,
                                expected))
            .find("another client") != std::string::npos);
  CHECK(refusal(verify_id_token(sign(rsa, claims(R"(,"azp":"other")", now_s + 300,
                                                 R"(["belay","other"])")),
                                set, expected))
            .find("azp") != std::string::npos);
  CHECK(refusal(verify_id_token(sign(rsa, claims("", now_s - 120)), set, expected))
            .find("expired") != std::string::npos);
  auto other_nonce = expected;
  other_nonce.nonce = "n-2";
  CHECK(refusal(verify_id_token(sign(rsa, claims()), set, other_nonce)).find("nonce") !=
        std::string::npos);
  auto other_issuer = expected;
  other_issuer.issuer = "https://idp.example/other";
  CHECK(refusal(verify_id_token(sign(rsa, claims()), set, other_issuer)).find("issuer") !=
        std::string::npos);
  auto future = R"({"iss":"https://idp.example","sub":"u-1","aud":"belay","exp":)" +
                std::to_string(now_s + 7200) + R"(,"iat":)" +
                std::to_string(now_s + 3600) + R"(,"nonce":"n-1"})";
  CHECK(refusal(verify_id_token(sign(rsa, future), set, expected)).find("future") !=
        std::string::npos);

  // alg "none", and an HMAC keyed with something public: never accepted.
  auto token = sign(rsa, claims());
  auto body = token.substr(token.find('.') + 1);
  body = body.substr(0, body.find('.'));
  auto none = base64url_encode(R"({"alg":"none"})") + "." + body + ".";
  CHECK(refusal(verify_id_token(none, set, expected)).find("only RS256 and ES256") !=
        std::string::npos);
  auto hs_head = base64url_encode(R"({"alg":"HS256","kid":"r1"})") + "." + body;
  auto hs = hs_head + "." + base64url_encode(belay::hmac_sha256(set, hs_head));
  CHECK(refusal(verify_id_token(hs, set, expected)).find("only RS256 and ES256") !=
        std::string::npos);
  CHECK(error_of(verify_id_token("not.a-token", set, expected)).code ==
        "invalid_id_token");
}

TEST_CASE("a kid the key set lacks says so, so that the set is fetched again") {
  auto old_key = make_key("RS256", "old");
  auto rotated = make_key("RS256", "new");
  auto e = error_of(verify_id_token(sign(rotated, claims()), jwks({&old_key}), expected));
  CHECK(e.code == "unknown_signing_key");
  CHECK(value_of(verify_id_token(sign(rotated, claims()), jwks({&old_key, &rotated}),
                                 expected))
            .subject == "u-1");
}

TEST_CASE("an email the provider has not verified is seen as such") {
  CHECK(email_unverified(R"({"email":"a@b","email_verified":false})"));
  CHECK_FALSE(email_unverified(R"({"email":"a@b","email_verified":true})"));
  CHECK_FALSE(email_unverified(R"({"email":"a@b"})"));
}

// libcjose asserts on a part that is not base64url (a length of 4n+1): such a token is
// refused before it reaches the library (found by tests/fuzz/sign_in_fuzz.cpp).
TEST_CASE("an ID token whose claims or signature are not base64url is refused, not "
          "handed to libcjose") {
  auto rsa = make_key("RS256", "r1");
  auto set = jwks({&rsa});
  auto good = sign(rsa, claims());
  auto header = good.substr(0, good.find('.'));
  for (auto broken : {header + ".e.AAAA", header + ".AAAA.e", header + ".A!AA.AAAA"})
    CHECK(refusal(verify_id_token(broken, set, expected)).find("base64url") !=
          std::string::npos);
}
