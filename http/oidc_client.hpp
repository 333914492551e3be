// The HTTP calls of an OpenID sign-in (docs/security.md#oidc): the provider's
// discovery document and key set, cached per issuer, and the token request. Blocking,
// bounded by timeouts, on the HTTP thread that serves the callback. The messages
// themselves are protocol/oidc.hpp's, the ID token's checks protocol/id_token.hpp's.
#pragma once

#include "protocol/id_token.hpp"
#include "protocol/oidc.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace belay {

class oidc_client {
public:
  // The provider of `issuer`, from its discovery document (read again after an hour).
  protocol::parsed<protocol::oidc_provider> provider(const std::string& issuer);

  // Trades the authorization code for an ID token and checks it: the claims of a
  // token that holds. An unknown signing key fetches the key set again once (the
  // provider rotated its keys), at most every 10 s per issuer.
  protocol::parsed<protocol::id_token_claims>
  sign_in(const protocol::oidc_provider& p, const protocol::oidc_config& c,
          const std::string& code, const std::string& redirect_uri,
          const std::string& verifier, const protocol::id_token_expectations& expected);

private:
  using clock = std::chrono::steady_clock;
  struct cached_provider {
    protocol::oidc_provider provider;
    clock::time_point read_at;
  };
  struct cached_keys {
    std::string jwks;
    clock::time_point read_at;
  };
  protocol::parsed<std::string> keys(const protocol::oidc_provider& p, bool fresh);

  std::mutex mutex_; // held for the maps only, never across a request
  std::map<std::string, cached_provider> providers_;
  std::map<std::string, cached_keys> keys_;
};

} // namespace belay
