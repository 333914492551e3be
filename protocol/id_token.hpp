// OpenID Connect's ID token, checked as Core 1.0 §3.1.3.7 asks (docs/security.md#oidc):
// the signature with the provider's published key (JWKS), by libcjose; then issuer,
// audience, expiry and nonce. Pure: the caller fetches the keys (http/oidc_client.hpp).
#pragma once

#include "protocol/error.hpp"
#include "protocol/model.hpp"

#include <string>
#include <string_view>

namespace belay::protocol {

struct id_token_expectations {
  std::string issuer;    // exactly the configured issuer
  std::string client_id; // must be in aud (and azp, when aud names several)
  std::string nonce;     // the one this sign-in sent
  micros now = 0;
  micros leeway = 60'000'000; // clock skew allowed on exp, iat and nbf
};

struct id_token_claims {
  std::string subject; // sub
  std::string json;    // every claim, as the token carried them
};

// The claims of a token that holds; else an error whose code is
// `unknown_signing_key` (no key of the set has the token's kid: fetch the set again
// and retry once) or `invalid_id_token`, its message naming what failed. Only RS256 and
// ES256 signatures are accepted: never "none", never an HMAC.
parsed<id_token_claims> verify_id_token(std::string_view token, std::string_view jwks,
                                        const id_token_expectations& expected);

// A string claim of `claims` (the json of id_token_claims); "" when absent or not a
// string.
std::string string_claim(std::string_view claims_json, const std::string& name);
// Whether the claims say the email is not verified (email_verified: false).
bool email_unverified(std::string_view claims_json);

} // namespace belay::protocol
