#include "http/oidc_client.hpp"

#include <httplib.h>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

constexpr auto provider_lifetime = std::chrono::hours{1};
constexpr auto keys_lifetime = std::chrono::hours{1};
constexpr auto keys_refetch_floor = std::chrono::seconds{10};
constexpr time_t timeout_seconds = 5;

protocol::error unavailable(const std::string& what) {
  return {502, "oidc_unavailable", "the identity provider could not be reached: " + what,
          ""};
}

struct url_parts {
  std::string origin; // scheme://host[:port]
  std::string path;   // with its query
};

url_parts split(const std::string& url) {
  auto host = url.find("://");
  auto path = host == std::string::npos ? std::string::npos : url.find('/', host + 3);
  if (path == std::string::npos)
    return {url, "/"};
  return {url.substr(0, path), url.substr(path)};
}

httplib::Client client_for(const std::string& origin) {
  httplib::Client c{origin};
  c.set_connection_timeout(timeout_seconds, 0);
  c.set_read_timeout(timeout_seconds, 0);
  c.set_write_timeout(timeout_seconds, 0);
  c.set_ca_cert_path("/etc/ssl/certs/ca-certificates.crt");
  return c;
}

protocol::parsed<std::string> fetch(const std::string& url) {
  auto parts = split(url);
  auto c = client_for(parts.origin);
  auto r = c.Get(parts.path.c_str(), {{"Accept", "application/json"}});
  if (!r)
    return unavailable(url + ": " + httplib::to_string(r.error()));
  if (r->status != 200)
    return unavailable(url + " answered " + std::to_string(r->status));
  return r->body;
}

} // namespace

protocol::parsed<protocol::oidc_provider>
oidc_client::provider(const std::string& issuer) {
  {
    std::lock_guard lock{mutex_};
    if (auto it = providers_.find(issuer);
        it != providers_.end() && clock::now() - it->second.read_at < provider_lifetime)
      return it->second.provider;
  }
  auto text = fetch(protocol::discovery_url(issuer));
  if (auto* e = std::get_if<protocol::error>(&text))
    return *e;
  auto parsed = protocol::parse_discovery(std::get<std::string>(text), issuer);
  if (auto* p = std::get_if<protocol::oidc_provider>(&parsed)) {
    std::lock_guard lock{mutex_};
    providers_[issuer] = {*p, clock::now()};
  }
  return parsed;
}

protocol::parsed<std::string> oidc_client::keys(const protocol::oidc_provider& p,
                                                bool fresh) {
  {
    std::lock_guard lock{mutex_};
    auto it = keys_.find(p.jwks_uri);
    auto age = it == keys_.end() ? keys_lifetime : clock::now() - it->second.read_at;
    if (it != keys_.end() && (fresh ? age < keys_refetch_floor : age < keys_lifetime))
      return it->second.jwks;
  }
  auto text = fetch(p.jwks_uri);
  if (auto* jwks = std::get_if<std::string>(&text)) {
    std::lock_guard lock{mutex_};
    keys_[p.jwks_uri] = {*jwks, clock::now()};
  }
  return text;
}

protocol::parsed<protocol::id_token_claims>
oidc_client::sign_in(const protocol::oidc_provider& p, const protocol::oidc_config& c,
                     const std::string& code, const std::string& redirect_uri,
                     const std::string& verifier,
                     const protocol::id_token_expectations& expected) {
  auto parts = split(p.token_endpoint);
  auto http = client_for(parts.origin);
  // RFC 6749 §2.3.1: the client's id and secret form-encoded, then as Basic credentials.
  if (p.secret_in_header)
    http.set_basic_auth(protocol::percent_encode(c.client_id),
                        protocol::percent_encode(c.client_secret));
  auto r = http.Post(parts.path.c_str(), {{"Accept", "application/json"}},
                     protocol::token_request_body(p, c, code, redirect_uri, verifier),
                     "application/x-www-form-urlencoded");
  if (!r)
    return unavailable(p.token_endpoint + ": " + httplib::to_string(r.error()));
  auto token = protocol::parse_token_response(r->body);
  if (auto* e = std::get_if<protocol::error>(&token))
    return *e;
  const auto& id_token = std::get<std::string>(token);
  auto jwks = keys(p, false);
  if (auto* e = std::get_if<protocol::error>(&jwks))
    return *e;
  auto verified =
      protocol::verify_id_token(id_token, std::get<std::string>(jwks), expected);
  auto* e = std::get_if<protocol::error>(&verified);
  if (!e || e->code != "unknown_signing_key")
    return verified;
  spdlog::info("oidc: {} signed with a key not in its cached set; reading the set again",
               p.issuer);
  jwks = keys(p, true);
  if (auto* again = std::get_if<protocol::error>(&jwks))
    return *again;
  return protocol::verify_id_token(id_token, std::get<std::string>(jwks), expected);
}

} // namespace belay
