// Signing in and the signed-in user's own routes (docs/http.md#signing-in,
// docs/security.md): the sign-in page, passwords, OpenID Connect's code flow with PKCE,
// logout, /api/v1/me with the user's password and personal tokens. Sessions, tokens
// and sign-ins under way are rows no actor holds: written here straight to storage,
// each with its audit row in the same transaction.
#include "http/admission.hpp"
#include "http/keys.hpp"
#include "http/oidc_client.hpp"
#include "http/respond.hpp"
#include "http/route_limits.hpp"
#include "protocol/credentials.hpp"
#include "protocol/hash.hpp"
#include "protocol/identity_json.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/sign_in_page.hpp"
#include "storage/audit.hpp"
#include "storage/db.hpp"
#include "storage/identities.hpp"
#include "storage/org_config.hpp"

#include <algorithm>
#include <memory>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

constexpr const char* login_cookie = "belay_login";
constexpr micros login_lifetime = 600'000'000; // an OpenID sign-in has 10 minutes

struct sign_in_routes {
  explicit sign_in_routes(api& of) : a(of) {}
  api& a;
  oidc_client oidc{};
  route_limits limits{};

  bool secure() const { return a.answers.public_url.rfind("https://", 0) == 0; }
  std::string redirect_uri() const {
    std::string base = a.answers.public_url;
    while (!base.empty() && base.back() == '/')
      base.pop_back();
    return base + "/auth/oidc/callback";
  }
};

bool is_form(const httplib::Request& req) {
  return req.get_header_value("Content-Type")
             .rfind("application/x-www-form-urlencoded", 0) == 0;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

void reply_page(httplib::Response& res, int status, const std::string& html) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Frame-Options", "DENY");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_content(html, "text/html; charset=utf-8");
}

void see_other(httplib::Response& res, const std::string& where) {
  res.status = 303;
  res.set_header("Location", where);
  if (!res.has_header("Cache-Control"))
    res.set_header("Cache-Control", "no-store");
}

std::string cookie(const sign_in_routes& d, const std::string& name,
                   const std::string& value, const std::string& path, micros max_age) {
  return name + "=" + value + "; Path=" + path +
         "; Max-Age=" + std::to_string(max_age / 1'000'000) + "; HttpOnly; SameSite=Lax" +
         (d.secure() ? "; Secure" : "");
}

// The identity that tried to sign in, as the audit log records it (never a password).
protocol::audit_entry failed_sign_in(int64_t org, const std::string& who, const char* via,
                                     const std::string& address, micros at,
                                     const std::string& why) {
  auto e = storage::audit_row({who.substr(0, 255), via, address}, at, org,
                              "session.sign_in_failed", "login", who.substr(0, 255));
  rapidjson::StringBuffer out;
  protocol::json_writer w(out);
  w.StartObject();
  w.Key("reason");
  protocol::write_string(w, why);
  w.EndObject();
  e.changes_json = protocol::to_string(out);
  return e;
}

// A session for `u`, its audit row, and its cookie on `res`; its token.
std::string begin_session(sign_in_routes& d, storage::connection& conn,
                          const storage::user_identity& u, const char* via,
                          const httplib::Request& req, httplib::Response& res) {
  const auto at = now(d.a);
  const auto& o = d.a.keys.options();
  auto token = protocol::random_token(protocol::session_token_prefix);
  storage::new_session s{u.org_id,
                         u.name,
                         u.login,
                         u.role,
                         via,
                         req.remote_addr,
                         sha256_hex(token),
                         at,
                         at + o.session_idle,
                         at + o.session_cap};
  storage::transaction(conn, [&] {
    auto id = storage::create_session(conn, s);
    storage::append_audit(conn, storage::audit_row({u.name, via, req.remote_addr}, at,
                                                   u.org_id, "session.sign_in", "session",
                                                   std::to_string(id)));
  });
  res.set_header("Set-Cookie", cookie(d, session_cookie, token, "/", o.session_cap));
  // Neither the cookie nor the CSRF token of the answer belongs in any cache.
  res.set_header("Cache-Control", "no-store");
  return token;
}

std::string me_json(api& a, const caller& who, const httplib::Request& req) {
  auto conn = a.db.acquire();
  auto user = storage::find_user(*conn, who.org_id, who.user);
  protocol::me_view me;
  me.name = who.user;
  me.login = user ? user->login : "";
  me.org = storage::org_name(*conn, who.org_id).value_or("");
  me.acts_as = who.acts_as;
  me.credential = who.kind == protocol::credential::session ? "session" : "token";
  if (who.kind == protocol::credential::session)
    me.csrf_token = protocol::csrf_token_of(cookie_value(req, session_cookie));
  return protocol::render_me(me);
}

// ---- the sign-in page ---------------------------------------------------------------

protocol::sign_in_choices choices_for(api& a, const std::string& org_name,
                                      const std::string& next) {
  protocol::sign_in_choices c;
  c.next = protocol::safe_next_path(next);
  if (org_name.empty())
    return c;
  auto conn = a.db.acquire();
  auto org = storage::find_org(*conn, org_name);
  if (!org) {
    c.problem = "There is no organisation named \"" + org_name + "\".";
    return c;
  }
  auto auth = storage::load_org_auth(*conn, org->id);
  c.org = org->name;
  c.password = auth.password;
  if (auth.oidc.configured()) {
    auto host = auth.oidc.issuer.substr(auth.oidc.issuer.find("://") + 3);
    c.provider = host.substr(0, host.find('/'));
  }
  return c;
}

void login_page(sign_in_routes& d, const httplib::Request& req, httplib::Response& res) {
  auto c = choices_for(d.a, req.get_param_value("org"), req.get_param_value("next"));
  reply_page(res, c.problem.empty() ? 200 : 404, protocol::render_sign_in_page(c));
}

// ---- passwords ----------------------------------------------------------------------

void refuse_password(sign_in_routes& d, const httplib::Request& req,
                     httplib::Response& res, const std::string& org,
                     const std::string& login, int status, const std::string& code,
                     const std::string& message) {
  if (!is_form(req))
    return reply_error(res, status, code, message);
  auto c = choices_for(d.a, org, req.get_param_value("next"));
  c.login = login;
  c.problem = message;
  reply_page(res, status, protocol::render_sign_in_page(c));
}

void password_sign_in(sign_in_routes& d, const httplib::Request& req,
                      httplib::Response& res) {
  protocol::password_sign_in in;
  if (is_form(req)) {
    in = {req.get_param_value("org"), req.get_param_value("login"),
          req.get_param_value("password")};
    if (in.org.empty() || in.login.empty() || in.password.empty())
      return refuse_password(d, req, res, in.org, in.login, 400, "missing_field",
                             "give the organisation, your login and your password");
  } else {
    auto parsed = protocol::parse_password_sign_in(req.body);
    if (auto* e = std::get_if<protocol::error>(&parsed))
      return reply_error(res, *e);
    in = std::get<protocol::password_sign_in>(std::move(parsed));
  }
  if (auto wait =
          d.limits.take_sign_in(req.remote_addr, lower(in.org + "/" + in.login))) {
    res.set_header("Retry-After", std::to_string(wait));
    return refuse_password(d, req, res, in.org, in.login, 429, "rate_limited",
                           "too many sign-in attempts; retry after " +
                               std::to_string(wait) + " s");
  }
  const std::string wrong = "the login or the password is wrong";
  auto conn = d.a.db.acquire();
  auto org = storage::find_org(*conn, in.org);
  if (!org || !storage::load_org_auth(*conn, org->id).password) {
    protocol::spend_a_password_check(in.password);
    return refuse_password(d, req, res, in.org, in.login, 401, "invalid_credentials",
                           wrong);
  }
  auto user = storage::find_user_by_login(*conn, org->id, in.login);
  std::string why;
  if (!user || user->password_hash.empty()) {
    protocol::spend_a_password_check(in.password);
    why = user ? "the user has no password" : "no user has this login";
  } else if (!protocol::password_matches(user->password_hash, in.password)) {
    why = "wrong password";
  }
  if (!why.empty()) {
    storage::append_audit(*conn, failed_sign_in(org->id, in.login, "password",
                                                req.remote_addr, now(d.a), why));
    return refuse_password(d, req, res, in.org, in.login, 401, "invalid_credentials",
                           wrong);
  }
  auto token = begin_session(d, *conn, *user, "password", req, res);
  if (is_form(req))
    return see_other(res, protocol::safe_next_path(req.get_param_value("next")));
  reply_json(res, 200,
             protocol::render_me({user->name, user->login, org->name, user->role,
                                  "session", protocol::csrf_token_of(token)}));
}

// ---- OpenID Connect -----------------------------------------------------------------

void refused_page(httplib::Response& res, int status, const std::string& org,
                  const std::string& message) {
  reply_page(res, status, protocol::render_sign_in_refused(org, message));
}

// GET /auth/oidc?org=&next=: to the provider, with a state kept for the callback.
void oidc_start(sign_in_routes& d, const httplib::Request& req, httplib::Response& res) {
  const auto org_name = req.get_param_value("org");
  auto conn = d.a.db.acquire();
  auto org = storage::find_org(*conn, org_name);
  auto auth = org ? storage::load_org_auth(*conn, org->id) : protocol::org_auth{};
  if (!org || !auth.oidc.configured())
    return refused_page(res, 404, org_name,
                        "Organisation \"" + org_name +
                            "\" does not sign in with an OpenID provider.");
  auto provider = d.oidc.provider(auth.oidc.issuer);
  if (auto* e = std::get_if<protocol::error>(&provider)) {
    spdlog::warn("oidc: {}", e->message);
    return refused_page(res, 502, org->name, e->message);
  }
  auto state = protocol::random_token("");
  auto browser = protocol::random_token("");
  storage::begin_oidc_login(*conn, sha256_hex(state), org->id, sha256_hex(browser),
                            protocol::safe_next_path(req.get_param_value("next")),
                            now(d.a) + login_lifetime);
  res.set_header("Set-Cookie",
                 cookie(d, login_cookie, browser, "/auth/oidc", login_lifetime));
  res.status = 302;
  res.set_header("Cache-Control", "no-store");
  res.set_header("Location",
                 protocol::authorization_url(
                     std::get<protocol::oidc_provider>(provider), auth.oidc,
                     d.redirect_uri(), state, protocol::oidc_nonce(browser, state),
                     protocol::pkce_challenge(protocol::pkce_verifier(browser, state))));
}

// GET /auth/oidc/callback?code=&state= (or ?error=): the sign-in's end.
void oidc_callback(sign_in_routes& d, const httplib::Request& req,
                   httplib::Response& res) {
  if (auto wait = d.limits.take_sign_in(req.remote_addr, "")) {
    res.set_header("Retry-After", std::to_string(wait));
    return refused_page(res, 429, "",
                        "Too many sign-in attempts; retry after " + std::to_string(wait) +
                            " s.");
  }
  const auto state = req.get_param_value("state");
  const auto browser = cookie_value(req, login_cookie);
  const auto at = now(d.a);
  auto conn = d.a.db.acquire();
  auto login = state.empty() ? std::nullopt
                             : storage::take_oidc_login(*conn, sha256_hex(state), at);
  if (!login)
    return refused_page(res, 400, "",
                        "This sign-in has expired or was already used: start again.");
  auto org = storage::org_name(*conn, login->org_id).value_or("");
  res.set_header("Set-Cookie", cookie(d, login_cookie, "", "/auth/oidc", 0));
  if (browser.empty() || !constant_time_equal(sha256_hex(browser), login->browser_hash))
    return refused_page(res, 400, org,
                        "This sign-in began in another browser (or its cookie was "
                        "refused): start again here.");
  auto fail = [&](int status, const std::string& who, const std::string& why) {
    storage::append_audit(
        *conn, failed_sign_in(login->org_id, who, "oidc", req.remote_addr, at, why));
    refused_page(res, status, org, why);
  };
  auto auth = storage::load_org_auth(*conn, login->org_id);
  if (req.has_param("error"))
    return fail(401, "oidc",
                "The identity provider refused the sign-in: " +
                    req.get_param_value("error").substr(0, 100) + ".");
  if (!auth.oidc.configured())
    return fail(401, "oidc", "The organisation no longer signs in with this provider.");
  auto provider = d.oidc.provider(auth.oidc.issuer);
  if (auto* e = std::get_if<protocol::error>(&provider))
    return fail(502, "oidc", e->message);
  auto claims = d.oidc.sign_in(
      std::get<protocol::oidc_provider>(provider), auth.oidc, req.get_param_value("code"),
      d.redirect_uri(), protocol::pkce_verifier(browser, state),
      {auth.oidc.issuer, auth.oidc.client_id, protocol::oidc_nonce(browser, state), at});
  if (auto* e = std::get_if<protocol::error>(&claims))
    return fail(e->status == 502 ? 502 : 401, "oidc", e->message);
  auto& verified = std::get<protocol::id_token_claims>(claims);
  auto identity = protocol::string_claim(verified.json, auth.oidc.claim);
  if (identity.empty())
    return fail(403, "oidc:" + verified.subject,
                "The identity provider gave no \"" + auth.oidc.claim + "\" claim.");
  if (auth.oidc.claim == "email" && protocol::email_unverified(verified.json))
    return fail(403, identity,
                "The identity provider has not verified " + identity + ".");
  auto user = storage::find_user_by_login(*conn, login->org_id, identity);
  if (!user)
    return fail(403, identity,
                identity + " is not a user of organisation \"" + org +
                    "\": ask its administrator to add them (a user with this login).");
  begin_session(d, *conn, *user, "oidc", req, res);
  see_other(res, login->next_path);
}

// ---- the signed-in user's own ---------------------------------------------------------

void logout(sign_in_routes& d, const caller& who, const httplib::Request& req,
            httplib::Response& res) {
  if (who.kind != protocol::credential::session)
    return reply_error(res, 400, "not_a_session",
                       "a personal token is not signed in: revoke it at "
                       "DELETE /api/v1/me/tokens/{id}");
  const auto at = now(d.a);
  {
    auto conn = d.a.db.acquire();
    storage::transaction(*conn, [&] {
      if (storage::delete_session(*conn, who.session_id))
        storage::append_audit(*conn, storage::audit_row(attributed(who), at, who.org_id,
                                                        "session.sign_out", "session",
                                                        std::to_string(who.session_id)));
    });
  }
  d.a.keys.forget_session(cookie_value(req, session_cookie));
  res.set_header("Set-Cookie", cookie(d, session_cookie, "", "/", 0));
  if (is_form(req))
    return see_other(res, "/login");
  res.status = 204;
}

void change_password(sign_in_routes& d, const caller& who, const httplib::Request& req,
                     httplib::Response& res) {
  auto parsed = protocol::parse_password_change(req.body);
  if (auto* e = std::get_if<protocol::error>(&parsed))
    return reply_error(res, *e);
  auto& change = std::get<protocol::password_change>(parsed);
  if (auto wait = d.limits.take_sign_in(req.remote_addr,
                                        std::to_string(who.org_id) + "/" + who.user)) {
    res.set_header("Retry-After", std::to_string(wait));
    return reply_error(res, 429, "rate_limited",
                       "too many attempts; retry after " + std::to_string(wait) + " s");
  }
  if (auto weak = protocol::weak_password(change.next))
    return reply_error(res, 400, "weak_password", *weak, "newPassword");
  auto conn = d.a.db.acquire();
  auto user = storage::find_user(*conn, who.org_id, who.user);
  if (!user)
    return reply_error(res, 401, "session_ended", "the user is gone");
  if (!user->password_hash.empty() &&
      !protocol::password_matches(user->password_hash, change.current))
    return reply_error(res, 403, "invalid_credentials", "the current password is wrong",
                       "currentPassword");
  auto hash = protocol::hash_password(change.next);
  const auto at = now(d.a);
  storage::transaction(*conn, [&] {
    storage::set_password_hash(*conn, who.org_id, who.user, hash);
    // Whoever else holds a session of this user signs in again.
    storage::delete_user_sessions(*conn, who.org_id, who.user, who.session_id);
    storage::append_audit(*conn, storage::audit_row(attributed(who), at, who.org_id,
                                                    "password.change", "user", who.user));
  });
  res.status = 204;
}

protocol::token_view view_of(const storage::personal_token_row& t) {
  return {t.id, t.name, t.scope, t.created_at};
}

void list_tokens(sign_in_routes& d, const caller& who, const httplib::Request&,
                 httplib::Response& res) {
  auto conn = d.a.db.acquire();
  std::vector<protocol::token_view> all;
  for (auto& t : storage::list_personal_tokens(*conn, who.org_id, who.user))
    all.push_back(view_of(t));
  reply_json(res, 200, protocol::render_tokens(all));
}

void create_token(sign_in_routes& d, const caller& who, const httplib::Request& req,
                  httplib::Response& res) {
  auto parsed = protocol::parse_token_request(req.body);
  if (auto* e = std::get_if<protocol::error>(&parsed))
    return reply_error(res, *e);
  auto& asked = std::get<protocol::token_request>(parsed);
  auto scope = asked.scope.value_or(who.acts_as);
  if (scope > who.acts_as)
    return reply_error(res, 403, "scope_above_role",
                       "a token may do at most what its user may: " + who.user +
                           " acts as " + std::string{protocol::role_name(who.acts_as)},
                       "scope");
  auto secret = protocol::random_token(protocol::personal_token_prefix);
  const auto at = now(d.a);
  auto conn = d.a.db.acquire();
  auto made = storage::transaction(*conn, [&] {
    auto t = storage::create_personal_token(*conn, who.org_id, who.user, asked.name,
                                            scope, sha256_hex(secret), at);
    if (t)
      storage::append_audit(
          *conn, storage::audit_row(
                     attributed(who), at, who.org_id, "token.create", "personal token",
                     asked.name,
                     R"({"scope":")" + std::string{protocol::scope_name(scope)} + "\"}"));
    return t;
  });
  if (!made)
    return reply_error(res, 409, "name_in_use",
                       "you have a token named '" + asked.name + "' already", "name");
  reply_json(res, 201, protocol::render_token(view_of(*made), secret));
}

void revoke_token(sign_in_routes& d, const caller& who, const httplib::Request& req,
                  httplib::Response& res) {
  auto text = req.matches[1].str();
  if (text.empty() || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return reply_error(res, 404, "not_found", "you have no such token");
  const auto at = now(d.a);
  auto conn = d.a.db.acquire();
  auto gone = storage::transaction(*conn, [&] {
    auto name =
        storage::delete_personal_token(*conn, who.org_id, who.user, std::stoll(text));
    if (name)
      storage::append_audit(*conn,
                            storage::audit_row(attributed(who), at, who.org_id,
                                               "token.revoke", "personal token", *name));
    return name;
  });
  if (!gone)
    return reply_error(res, 404, "not_found", "you have no such token");
  res.status = 204;
}

} // namespace

void add_sign_in_routes(routes& http, api& a) {
  auto d = std::make_shared<sign_in_routes>(a);
  using R = const httplib::Request&;
  using W = httplib::Response&;
  http.Get("/login", [d](R req, W res) { login_page(*d, req, res); });
  // Its own limits and checks: no credential yet.
  http.Post("/auth/password", [d](R req, W res) { password_sign_in(*d, req, res); });
  http.Get("/auth/oidc", [d](R req, W res) { oidc_start(*d, req, res); });
  http.Get("/auth/oidc/callback", [d](R req, W res) { oidc_callback(*d, req, res); });
  http.Post("/auth/logout", access::person,
            [d](const caller& c, R req, W res) { logout(*d, c, req, res); });
  http.Get("/api/v1/me", access::person, [d](const caller& c, R req, W res) {
    res.set_header("Cache-Control", "no-store"); // it holds the CSRF token
    reply_json(res, 200, me_json(d->a, c, req));
  });
  http.Post("/api/v1/me/password", access::person,
            [d](const caller& c, R req, W res) { change_password(*d, c, req, res); });
  http.Get("/api/v1/me/tokens", access::person,
           [d](const caller& c, R req, W res) { list_tokens(*d, c, req, res); });
  http.Post("/api/v1/me/tokens", access::person,
            [d](const caller& c, R req, W res) { create_token(*d, c, req, res); });
  http.Delete(R"(/api/v1/me/tokens/([^/]+))", access::person,
              [d](const caller& c, R req, W res) { revoke_token(*d, c, req, res); });
}

} // namespace belay
