// tests/oidc/provider.mjs as a child process: a real OpenID provider (npm's
// oidc-provider) and a rogue one that issues ID tokens with a chosen defect, on
// 127.0.0.1, for as long as the object lives. And a browser small enough for a test: it
// follows redirects across hosts and keeps each host's cookies.
#pragma once

#include <httplib.h>
#include <map>
#include <string>

namespace belay::test {

class oidc_provider {
public:
  explicit oidc_provider(const std::string& client_secret = "the-test-client-secret");
  ~oidc_provider();
  oidc_provider(const oidc_provider&) = delete;
  oidc_provider& operator=(const oidc_provider&) = delete;

  const std::string& issuer() const { return issuer_; }
  const std::string& rogue() const { return rogue_; }
  // The real provider's client "belay" may send people back to these.
  void configure(const std::string& redirect_uri);
  // Who the real provider (and the rogue) signs in next.
  void next_login(const std::string& sub, const std::string& email,
                  bool email_verified = true);
  // The defect of the rogue's next ID token (tests/oidc/provider.mjs lists them).
  void next_defect(const std::string& defect);

private:
  int pid_ = -1;
  std::string issuer_, rogue_;
};

// Follows a browser's way through redirects (at most 20), sending each host the cookies
// it set (paths and expiry are not told apart, but a cookie set empty or expired is
// forgotten). `last` is the final answer: not a redirect.
class test_browser {
public:
  httplib::Result get(const std::string& url);
  // The cookie `name` of host "127.0.0.1:port", or "".
  std::string cookie(const std::string& host, const std::string& name) const;
  // Every URL visited by the last get(), in order.
  std::vector<std::string> visited;

private:
  std::map<std::string, std::map<std::string, std::string>> jar_;
};

} // namespace belay::test
