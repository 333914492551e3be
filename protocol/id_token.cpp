#include "protocol/id_token.hpp"

#include "protocol/encoding.hpp"
#include "protocol/json_document.hpp"
#include "protocol/text.hpp"

#include <cjose/jwk.h>
#include <cjose/jws.h>
#include <memory>
#include <rapidjson/document.h>

namespace belay::protocol {

namespace {

error invalid(std::string why) {
  return {401, "invalid_id_token", "the ID token was refused: " + std::move(why), ""};
}

struct jwk_release {
  void operator()(cjose_jwk_t* k) const { cjose_jwk_release(k); }
};
struct jws_release {
  void operator()(cjose_jws_t* j) const { cjose_jws_release(j); }
};

std::string member_string(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject())
    return {};
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString())
    return {};
  return std::string{string_view_of(it->value)};
}

// The key of `jwks` that may have signed with `alg` and `kid` ("" when the token names
// none: then the first that fits), as its own JSON; "" when none fits.
std::string key_for(const rapidjson::Document& jwks, const std::string& alg,
                    const std::string& kid) {
  auto keys = jwks.IsObject() ? jwks.FindMember("keys") : jwks.MemberEnd();
  if (!jwks.IsObject() || keys == jwks.MemberEnd() || !keys->value.IsArray())
    return {};
  const std::string kty = alg == "RS256" ? "RSA" : "EC";
  for (auto& key : keys->value.GetArray()) {
    if (member_string(key, "kty") != kty)
      continue;
    if (!kid.empty() && member_string(key, "kid") != kid)
      continue;
    auto use = member_string(key, "use");
    if (!use.empty() && use != "sig")
      continue;
    auto key_alg = member_string(key, "alg");
    if (!key_alg.empty() && key_alg != alg)
      continue;
    if (kty == "EC" && member_string(key, "crv") != "P-256")
      continue;
    return compact_json(key);
  }
  return {};
}

std::optional<double> number(const rapidjson::Value& claims, const char* name) {
  auto it = claims.FindMember(name);
  if (it == claims.MemberEnd() || !it->value.IsNumber())
    return std::nullopt;
  return it->value.GetDouble();
}

std::optional<error> check_audience(const rapidjson::Value& claims,
                                    const std::string& client_id) {
  auto aud = claims.FindMember("aud");
  if (aud == claims.MemberEnd())
    return invalid("it has no audience (aud)");
  if (aud->value.IsString()) {
    if (string_view_of(aud->value) != client_id)
      return invalid("it was issued for another client (aud)");
    return std::nullopt;
  }
  if (!aud->value.IsArray())
    return invalid("its audience (aud) is neither a string nor a list");
  bool ours = false;
  for (auto& a : aud->value.GetArray())
    ours |= a.IsString() && string_view_of(a) == client_id;
  if (!ours)
    return invalid("it was issued for another client (aud)");
  // Several audiences: the party it was issued to must be this client (Core §3.1.3.7).
  if (aud->value.Size() > 1 && member_string(claims, "azp") != client_id)
    return invalid("it names several audiences and another authorized party (azp)");
  return std::nullopt;
}

std::optional<error> check_claims(const rapidjson::Value& claims,
                                  const id_token_expectations& want) {
  if (!claims.IsObject())
    return invalid("its claims are not a JSON object");
  if (member_string(claims, "iss") != want.issuer)
    return invalid("it was issued by another issuer (iss)");
  if (auto e = check_audience(claims, want.client_id))
    return e;
  const double now = static_cast<double>(want.now) / 1e6;
  const double leeway = static_cast<double>(want.leeway) / 1e6;
  auto exp = number(claims, "exp");
  if (!exp)
    return invalid("it has no expiry (exp)");
  if (*exp <= now - leeway)
    return invalid("it has expired (exp)");
  auto iat = number(claims, "iat");
  if (!iat)
    return invalid("it has no issue time (iat)");
  if (*iat > now + leeway)
    return invalid("it was issued in the future (iat)");
  if (auto nbf = number(claims, "nbf"); nbf && *nbf > now + leeway)
    return invalid("it is not valid yet (nbf)");
  if (member_string(claims, "nonce") != want.nonce || want.nonce.empty())
    return invalid("its nonce is not this sign-in's (a replayed or foreign token)");
  if (member_string(claims, "sub").empty())
    return invalid("it has no subject (sub)");
  return std::nullopt;
}

} // namespace

parsed<id_token_claims> verify_id_token(std::string_view token, std::string_view jwks,
                                        const id_token_expectations& expected) {
  auto first_dot = token.find('.');
  auto second_dot =
      first_dot == std::string_view::npos ? first_dot : token.find('.', first_dot + 1);
  if (second_dot == std::string_view::npos ||
      token.find('.', second_dot + 1) != std::string_view::npos)
    return invalid("it is not a signed JWT (three dot-separated parts)");
  // libcjose asserts (aborts the process) on a part that is not base64url, so every part
  // is checked here first: found by tests/fuzz/sign_in_fuzz.cpp.
  if (!base64url_decode(token.substr(first_dot + 1, second_dot - first_dot - 1)) ||
      !base64url_decode(token.substr(second_dot + 1)))
    return invalid("its claims or its signature are not base64url");
  auto header_text = base64url_decode(token.substr(0, first_dot));
  rapidjson::Document header;
  if (!header_text || parse_json(header, *header_text, "token header") ||
      !header.IsObject())
    return invalid("its header is not base64url JSON");
  const auto alg = member_string(header, "alg");
  if (alg != "RS256" && alg != "ES256")
    return invalid("it is signed with '" + utf8_prefix(alg, 16) +
                   "'; only RS256 and ES256 are accepted");
  rapidjson::Document keys;
  if (parse_json(keys, jwks, "key set"))
    return invalid("the provider's key set is not JSON");
  const auto kid = member_string(header, "kid");
  const auto key_json = key_for(keys, alg, kid);
  if (key_json.empty())
    return error{401, "unknown_signing_key",
                 "no key of the provider's key set fits the ID token (kid '" +
                     utf8_prefix(kid, 64) + "', " + alg + ")",
                 ""};

  cjose_err err{};
  std::unique_ptr<cjose_jwk_t, jwk_release> jwk{
      cjose_jwk_import(key_json.data(), key_json.size(), &err)};
  if (!jwk)
    return invalid("the provider's key could not be read");
  std::unique_ptr<cjose_jws_t, jws_release> jws{
      cjose_jws_import(token.data(), token.size(), &err)};
  if (!jws)
    return invalid("it could not be read as a JWS");
  if (!cjose_jws_verify(jws.get(), jwk.get(), &err))
    return invalid("its signature does not hold under the provider's key");
  uint8_t* plain = nullptr;
  size_t plain_len = 0;
  if (!cjose_jws_get_plaintext(jws.get(), &plain, &plain_len, &err))
    return invalid("its claims could not be read");
  std::string claims_text{reinterpret_cast<const char*>(plain), plain_len};
  rapidjson::Document claims;
  if (parse_json(claims, claims_text, "token claims"))
    return invalid("its claims are not JSON");
  if (auto e = check_claims(claims, expected))
    return *e;
  return id_token_claims{member_string(claims, "sub"), std::move(claims_text)};
}

std::string string_claim(std::string_view claims_json, const std::string& name) {
  rapidjson::Document claims;
  if (parse_json(claims, claims_json, "token claims"))
    return {};
  return member_string(claims, name.c_str());
}

bool email_unverified(std::string_view claims_json) {
  rapidjson::Document claims;
  if (parse_json(claims, claims_json, "token claims") || !claims.IsObject())
    return false;
  auto it = claims.FindMember("email_verified");
  return it != claims.MemberEnd() && it->value.IsBool() && !it->value.GetBool();
}

} // namespace belay::protocol
