// Sign-in's parsers of what arrives from outside (docs/security.md#oidc): ID tokens
// (verify_id_token against a fixed key set, one ES256 and one RSA key), the provider's
// discovery document and token response, and the JSON bodies of POST /auth/password,
// POST /api/v1/me/password and POST /api/v1/me/tokens. The first byte picks which.
// An ID token is accepted only if its claims, read here independently, hold what was
// expected (issuer, audience, nonce, expiry): the fuzzer cannot sign, so only a seed's
// exact token (tests/fuzz/corpus/sign_in, signed offline) can be. Every refusal is a
// message a person can read: valid UTF-8, never blank, whatever bytes the token held.
#include "checks.hpp"
#include "protocol/encoding.hpp"
#include "protocol/id_token.hpp"
#include "protocol/identity_json.hpp"
#include "protocol/oidc.hpp"

using namespace belay;
using namespace belay::fuzz;

namespace {

// The public halves of the keys the seeds were signed with.
const char* const key_set =
    R"({"keys":[{"kty":"EC","x":"-AKSzwWk8NaAc1ZQckzVkWEgNewyySC9kyDA9jG9jGk","y":"uhp00mvyc5QiEuMHimUaBJJxgl0o8bwSoJLRTP9gUPg","crv":"P-256","kid":"fuzz-ec","alg":"ES256"},{"kty":"RSA","n":"1j394H1VQZu6T2kt2K0ub0iE56KRDR9ZntoaINg4NorSgtFY29XLTL5WavZVQ-3RdNruOGmoSW1B98fmVMGwZBucw0_FtjFWiTEuc8QTc7CRyCUkqo177WvAwmDUaWlkMhcUtUbEbz7R6CWSjUE9WmbSwDQfJdjwZ2b1hKbz1W-tsfE3e1WVpw3oVHkjEnRbXTXKXdJqPo5z3nKF68hwPdkvROI6g5TAGxUbHGuJ2eYUUCl2UihsYuapzIj5cCDdrJ7JLyHiDnpvfUBLVz30k96Ic4_Van1nlpPn5ZAKQBRO5r-wKBkeLK0DylMR9aO9fU-9lqKlEbWmioik4kOYUQ","e":"AQAB","kid":"fuzz-rsa","alg":"RS256"}]})";

const protocol::id_token_expectations expected{
    "https://idp.example", "belay", "n-0S6_WzA2Mj",
    1'796'115'700'000'000}; // 2026-12-01T09:01:40Z, within the seeds' lifetime

void check_refusal(const protocol::error& e) {
  FUZZ_CHECK(!is_blank(e.message));
  FUZZ_CHECK(is_utf8(e.message));
}

// The payload of a compact JWS, decoded here without belay's code.
bool payload_of(std::string_view token, rapidjson::Document& claims) {
  auto first = token.find('.');
  auto second = token.find('.', first + 1);
  if (first == std::string_view::npos || second == std::string_view::npos)
    return false;
  auto json = protocol::base64url_decode(token.substr(first + 1, second - first - 1));
  return json && parse_strict(claims, *json) && claims.IsObject();
}

bool has_audience(const rapidjson::Value& claims) {
  auto aud = claims.FindMember("aud");
  if (aud == claims.MemberEnd())
    return false;
  if (aud->value.IsString())
    return aud->value.GetString() == expected.client_id;
  if (!aud->value.IsArray())
    return false;
  for (auto& a : aud->value.GetArray())
    if (a.IsString() && a.GetString() == expected.client_id)
      return true;
  return false;
}

void check_id_token(std::string_view token) {
  auto verified = protocol::verify_id_token(token, key_set, expected);
  if (auto* e = std::get_if<protocol::error>(&verified)) {
    FUZZ_CHECK(e->code == "invalid_id_token" || e->code == "unknown_signing_key");
    check_refusal(*e);
    return;
  }
  rapidjson::Document claims;
  FUZZ_CHECK(payload_of(token, claims));
  FUZZ_CHECK(string_at(claims, "iss") == expected.issuer);
  FUZZ_CHECK(string_at(claims, "nonce") == expected.nonce);
  FUZZ_CHECK(has_audience(claims));
  // parse_strict reads numbers as their text.
  auto exp = string_at(claims, "exp");
  FUZZ_CHECK(!exp.empty() && std::strtod(std::string{exp}.c_str(), nullptr) * 1e6 >
                                 double(expected.now - expected.leeway));
  const auto& ok = std::get<protocol::id_token_claims>(verified);
  FUZZ_CHECK(ok.subject == string_at(claims, "sub") && !ok.subject.empty());
  FUZZ_CHECK(protocol::string_claim(ok.json, "sub") == ok.subject);
}

void check_discovery(std::string_view json) {
  auto parsed = protocol::parse_discovery(json, expected.issuer);
  if (auto* e = std::get_if<protocol::error>(&parsed))
    return check_refusal(*e);
  const auto& p = std::get<protocol::oidc_provider>(parsed);
  FUZZ_CHECK(p.issuer == expected.issuer);
  for (auto* endpoint : {&p.authorization_endpoint, &p.token_endpoint, &p.jwks_uri})
    FUZZ_CHECK(!endpoint->empty() && is_utf8(*endpoint) && !has_nul(*endpoint));
}

void check_token_response(std::string_view json) {
  auto parsed = protocol::parse_token_response(json);
  if (auto* e = std::get_if<protocol::error>(&parsed))
    return check_refusal(*e);
  FUZZ_CHECK(!std::get<std::string>(parsed).empty());
}

template <class Parsed, class Check>
void check_body(const Parsed& parsed, std::string_view input,
                std::initializer_list<std::string_view> codes, const Check& accepted) {
  if (auto* e = std::get_if<protocol::error>(&parsed))
    return check_error(*e, input, codes);
  accepted(std::get<0>(parsed));
}

void check_text(const std::string& s) {
  FUZZ_CHECK(is_utf8(s) && !has_nul(s));
}

const std::initializer_list<std::string_view> body_codes{
    "invalid_json", "missing_field", "wrong_type", "invalid_value", "too_long"};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  auto input = bytes(data + 1, size - 1);
  switch (data[0] % 6) {
  case 0:
    check_id_token(input);
    break;
  case 1:
    check_discovery(input);
    break;
  case 2:
    check_token_response(input);
    break;
  case 3:
    check_body(protocol::parse_password_sign_in(input), input, body_codes, [](auto& in) {
      check_text(in.org), check_text(in.login);
      FUZZ_CHECK(!in.org.empty() && !in.login.empty());
    });
    break;
  case 4:
    check_body(protocol::parse_password_change(input), input, body_codes,
               [](auto& in) { FUZZ_CHECK(!in.next.empty()); });
    break;
  default:
    check_body(protocol::parse_token_request(input), input, body_codes, [](auto& in) {
      check_text(in.name);
      FUZZ_CHECK(!in.name.empty() && characters(in.name) <= 100);
    });
  }
  return 0;
}
