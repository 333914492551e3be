#include "protocol/oidc.hpp"

#include "protocol/json_document.hpp"

#include <algorithm>
#include <rapidjson/document.h>

namespace belay::protocol {

namespace {

std::string text_member(const rapidjson::Value& doc, const char* name) {
  auto it = doc.FindMember(name);
  if (it == doc.MemberEnd() || !it->value.IsString())
    return {};
  return std::string{string_view_of(it->value)};
}

bool is_http_url(const std::string& url) {
  return url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0;
}

error discovery_error(std::string why) {
  return {502, "oidc_unavailable", "the identity provider's discovery document " + why,
          ""};
}

} // namespace

std::string percent_encode(std::string_view value) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char ch : value) {
    if (std::isalnum(ch) || ch == '-' || ch == '.' || ch == '_' || ch == '~') {
      out += static_cast<char>(ch);
    } else {
      out += '%';
      out += hex[ch >> 4];
      out += hex[ch & 0x0f];
    }
  }
  return out;
}

std::string discovery_url(const std::string& issuer) {
  std::string base = issuer;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  return base + "/.well-known/openid-configuration";
}

parsed<oidc_provider> parse_discovery(std::string_view json, const std::string& issuer) {
  rapidjson::Document doc;
  if (parse_json(doc, json, "discovery document") || !doc.IsObject())
    return discovery_error("is not a JSON object");
  oidc_provider p;
  p.issuer = text_member(doc, "issuer");
  if (p.issuer != issuer)
    return discovery_error("names issuer '" + p.issuer.substr(0, 200) +
                           "', not the configured '" + issuer + "'");
  p.authorization_endpoint = text_member(doc, "authorization_endpoint");
  p.token_endpoint = text_member(doc, "token_endpoint");
  p.jwks_uri = text_member(doc, "jwks_uri");
  for (auto* url : {&p.authorization_endpoint, &p.token_endpoint, &p.jwks_uri})
    if (!is_http_url(*url))
      return discovery_error("lacks an http(s) authorization_endpoint, token_endpoint "
                             "or jwks_uri");
  auto methods = doc.FindMember("token_endpoint_auth_methods_supported");
  if (methods != doc.MemberEnd() && methods->value.IsArray()) {
    bool basic = false, post = false;
    for (auto& m : methods->value.GetArray()) {
      if (!m.IsString())
        continue;
      basic |= string_view_of(m) == "client_secret_basic";
      post |= string_view_of(m) == "client_secret_post";
    }
    p.secret_in_header = basic || !post;
  }
  return p;
}

std::string authorization_url(const oidc_provider& p, const oidc_config& c,
                              const std::string& redirect_uri, const std::string& state,
                              const std::string& nonce, const std::string& challenge) {
  std::string url = p.authorization_endpoint;
  url += url.find('?') == std::string::npos ? '?' : '&';
  url += "response_type=code&client_id=" + percent_encode(c.client_id) +
         "&redirect_uri=" + percent_encode(redirect_uri) +
         "&scope=" + percent_encode(c.scopes) + "&state=" + percent_encode(state) +
         "&nonce=" + percent_encode(nonce) +
         "&code_challenge=" + percent_encode(challenge) + "&code_challenge_method=S256";
  return url;
}

std::string token_request_body(const oidc_provider& p, const oidc_config& c,
                               const std::string& code, const std::string& redirect_uri,
                               const std::string& verifier) {
  std::string body = "grant_type=authorization_code&code=" + percent_encode(code) +
                     "&redirect_uri=" + percent_encode(redirect_uri) +
                     "&code_verifier=" + percent_encode(verifier);
  if (!p.secret_in_header)
    body += "&client_id=" + percent_encode(c.client_id) +
            "&client_secret=" + percent_encode(c.client_secret);
  return body;
}

parsed<std::string> parse_token_response(std::string_view json) {
  rapidjson::Document doc;
  if (parse_json(doc, json, "token response") || !doc.IsObject())
    return error{502, "oidc_unavailable",
                 "the identity provider's token response is not a JSON object", ""};
  auto token = text_member(doc, "id_token");
  if (!token.empty())
    return token;
  auto code = text_member(doc, "error");
  auto description = text_member(doc, "error_description");
  return error{
      401, "oidc_refused",
      "the identity provider refused the sign-in" +
          (code.empty() ? std::string{": no id_token"} : ": " + code.substr(0, 100)) +
          (description.empty() ? "" : " (" + description.substr(0, 300) + ")"),
      ""};
}

} // namespace belay::protocol
