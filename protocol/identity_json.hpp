// The bodies of the signed-in user's own routes (docs/http.md#signing-in): POST
// /auth/password, GET /api/v1/me, POST /api/v1/me/password and /api/v1/me/tokens.
#pragma once

#include "protocol/access.hpp"
#include "protocol/error.hpp"
#include "protocol/model.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace belay::protocol {

// POST /auth/password as JSON (a form carries the same fields):
// {"org"*, "login"*, "password"*}.
struct password_sign_in {
  std::string org;
  std::string login;
  std::string password;
};
parsed<password_sign_in> parse_password_sign_in(std::string_view body);

// POST /api/v1/me/password: {"currentPassword" (required once one is set),
// "newPassword"*}.
struct password_change {
  std::string current;
  std::string next;
};
parsed<password_change> parse_password_change(std::string_view body);

// POST /api/v1/me/tokens: {"name"* (1..100 characters), "scope" (admin|responder|read;
// default: the user's role)}.
struct token_request {
  std::string name;
  std::optional<role> scope;
};
parsed<token_request> parse_token_request(std::string_view body);

struct me_view {
  std::string name, login, org;
  role acts_as = role::viewer;
  std::string credential; // session | token
  std::string csrf_token; // a session's; "" for a token
};
// {"user":{"name","login","role","org"},"credential":…,"csrfToken":…}
std::string render_me(const me_view& me);

struct token_view {
  int64_t id = 0;
  std::string name;
  role scope = role::viewer;
  micros created_at = 0;
};
// {"token":{"id","name","scope","createdAt"}} and, once, "secret".
std::string render_token(const token_view& t, const std::string& secret = "");
// {"tokens":[…]}
std::string render_tokens(const std::vector<token_view>& all);

} // namespace belay::protocol
