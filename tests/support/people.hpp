// People at the keyboard for the end-to-end tests (docs/security.md): an org whose
// users have roles, logins and passwords, its named keys, and signing in over HTTP as a
// browser does (a session cookie and its CSRF token).
#pragma once

#include "support/served_belay.hpp"
#include "support/shell.hpp"

#include <httplib.h>
#include <string>

namespace belay::test {

// Orgs "alpha" and "beta" as two_orgs() makes them, alpha with users ada (admin), rita
// (responder) and vera (viewer), each signing in as <name>@example.com, and named keys
// "reader" (read), "pager" (responder) and "ops" (admin) with keys "alpha-<name>".
std::string people_orgs();
// One such org, named `name` (its keys "<name>-reader" and so on), signing in as `auth`
// says (provisioning's "auth").
std::string people_org(const std::string& name,
                       const std::string& auth = R"({"password":true})");

// `belay user set-password ORG LOGIN` through the binary, the password on its stdin.
command_result set_password(const test_database& db, const std::string& org,
                            const std::string& login, const std::string& password);

struct session {
  int status = 0;     // the sign-in's answer
  std::string cookie; // "belay_session=belay_s_…"
  std::string csrf;   // its CSRF token
  std::string token() const { return cookie.substr(cookie.find('=') + 1); }
};

// POST /auth/password with JSON, as a script or the console does.
session sign_in(httplib::Client& http, const std::string& org, const std::string& login,
                const std::string& password);

// The headers of a request through `s`: its cookie, and its CSRF token for a write.
httplib::Headers session_headers(const session& s, bool write = true);

} // namespace belay::test
