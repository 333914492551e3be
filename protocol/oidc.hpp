// The messages of OpenID Connect's authorization code flow with PKCE
// (docs/security.md#oidc): the provider's discovery document, the authorization
// request's URL, the token request's form and the token response. Pure; the HTTP calls
// are http/oidc_client.hpp's.
#pragma once

#include "protocol/error.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace belay::protocol {

// What an org's "auth": {"oidc": …} says (provisioning).
struct oidc_config {
  std::string issuer;
  std::string client_id;
  std::string client_secret; // plain here; stored sealed
  std::string scopes = "openid email profile";
  std::string claim = "email"; // the claim matched against users' "login"
  bool configured() const { return !issuer.empty(); }
};

// What the provider publishes at <issuer>/.well-known/openid-configuration.
struct oidc_provider {
  std::string issuer;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string jwks_uri;
  // client_secret_basic when the provider lists it (or lists nothing: the spec's
  // default), else client_secret_post.
  bool secret_in_header = true;
};

// The document's endpoints; refused when its issuer is not `issuer` exactly (Discovery
// §4.3) or an endpoint is missing or not http(s).
parsed<oidc_provider> parse_discovery(std::string_view json, const std::string& issuer);

// <issuer>/.well-known/openid-configuration (one '/' between).
std::string discovery_url(const std::string& issuer);

// The authorization endpoint with response_type=code, client_id, redirect_uri, scope,
// state, nonce, code_challenge and code_challenge_method=S256, percent-encoded.
std::string authorization_url(const oidc_provider& p, const oidc_config& c,
                              const std::string& redirect_uri, const std::string& state,
                              const std::string& nonce, const std::string& challenge);

// The token request's form body (grant_type=authorization_code); the client's
// credentials are in it only when the provider takes them there.
std::string token_request_body(const oidc_provider& p, const oidc_config& c,
                               const std::string& code, const std::string& redirect_uri,
                               const std::string& verifier);

// The id_token of a token response, or why there is none (an error response's
// "error" and "error_description" included).
parsed<std::string> parse_token_response(std::string_view json);

// application/x-www-form-urlencoded / RFC 3986 percent-encoding of a value.
std::string percent_encode(std::string_view value);

} // namespace belay::protocol
