#include "http/admission.hpp"

#include "http/keys.hpp"
#include "http/respond.hpp"
#include "protocol/credentials.hpp"
#include "protocol/hash.hpp"

namespace belay {

namespace {

std::string role_text(protocol::role r) {
  return std::string{protocol::role_name(r)};
}

std::optional<caller> from_bearer(api& a, const std::string& token,
                                  const httplib::Request& req, httplib::Response& res) {
  caller c;
  c.source_ip = req.remote_addr;
  int64_t retry_after = 0;
  if (token.rfind(protocol::personal_token_prefix, 0) == 0) {
    auto t = a.keys.admit_personal_token(token);
    if (!t.found) {
      reply_error(res, 401, "unknown_key", "the personal token is not known (revoked?)");
      return std::nullopt;
    }
    c.org_id = t.value.org_id;
    c.kind = protocol::credential::personal_token;
    c.user = t.value.user;
    c.key_name = t.value.name;
    // Never more than its user may do now.
    c.acts_as = std::min(t.value.scope, t.value.user_role);
    retry_after = t.retry_after_seconds;
  } else {
    auto k = a.keys.admit_api_key(token);
    if (!k.found) {
      reply_error(res, 401, "unknown_key", "the API key is not known");
      return std::nullopt;
    }
    c.org_id = k.value.org_id;
    c.kind = protocol::credential::api_key;
    c.key_name = k.value.name;
    c.key_label = k.value.label;
    c.acts_as = k.value.scope;
    retry_after = k.retry_after_seconds;
  }
  if (retry_after > 0) {
    reply_rate_limited(res, retry_after, "this API key");
    return std::nullopt;
  }
  return c;
}

std::optional<admitted> from_session(api& a, const std::string& token,
                                     const httplib::Request& req, httplib::Response& res,
                                     bool write) {
  auto s = a.keys.admit_session(token, now(a));
  if (!s.found) {
    reply_error(res, 401, "session_ended",
                "the session has ended (signed out, expired or its user changed): sign "
                "in again at /login");
    return std::nullopt;
  }
  if (s.retry_after_seconds > 0) {
    reply_rate_limited(res, s.retry_after_seconds, "this session");
    return std::nullopt;
  }
  admitted in;
  in.who.org_id = s.value.org_id;
  in.who.kind = protocol::credential::session;
  in.who.user = s.value.user;
  in.who.acts_as = s.value.role;
  in.who.session_id = s.value.id;
  in.who.source_ip = req.remote_addr;
  if (!write)
    return in;
  // A write needs the token a page of belay's own was given: another site's form
  // cannot know it (SameSite=Lax already keeps the cookie off its POSTs).
  const auto expected = protocol::csrf_token_of(token);
  if (req.has_header("X-CSRF-Token")) {
    if (constant_time_equal(req.get_header_value("X-CSRF-Token"), expected))
      return in;
  } else if (req.get_header_value("Content-Type")
                 .rfind("application/x-www-form-urlencoded", 0) == 0) {
    in.form_csrf = expected; // checked once the form is read
    return in;
  }
  reply_error(res, 403, "csrf_failed",
              "a write through a session needs its CSRF token (the X-CSRF-Token header "
              "or the form field 'csrf'; GET /api/v1/me gives it)",
              "csrf");
  return std::nullopt;
}

} // namespace

std::string cookie_value(const httplib::Request& req, const std::string& name) {
  auto count = req.get_header_value_count("Cookie");
  for (size_t n = 0; n < count; ++n) {
    const std::string header = req.get_header_value("Cookie", n);
    size_t at = 0;
    while (at < header.size()) {
      auto end = header.find(';', at);
      if (end == std::string::npos)
        end = header.size();
      auto pair = header.substr(at, end - at);
      auto first = pair.find_first_not_of(' ');
      if (first != std::string::npos) {
        pair = pair.substr(first);
        if (pair.size() > name.size() && pair.compare(0, name.size(), name) == 0 &&
            pair[name.size()] == '=')
          return pair.substr(name.size() + 1);
      }
      at = end + 1;
    }
  }
  return {};
}

caller_admission make_admission(api& a) {
  return [&a](const httplib::Request& req, httplib::Response& res, access need,
              bool write) -> std::optional<admitted> {
    std::optional<admitted> in;
    if (auto token = bearer_key(req); !token.empty()) {
      if (auto c = from_bearer(a, token, req, res))
        in = admitted{*c};
    } else if (auto session = cookie_value(req, session_cookie); !session.empty()) {
      in = from_session(a, session, req, res, write);
    } else {
      reply_error(
          res, 401, "missing_key",
          "send an API key as 'Authorization: Bearer <key>', or sign in at /login");
    }
    if (!in)
      return std::nullopt;
    if (need == access::person && in->who.kind == protocol::credential::api_key) {
      reply_error(res, 403, "forbidden",
                  "this is a signed-in user's own: sign in, or use a personal token");
      return std::nullopt;
    }
    if (!protocol::permits(in->who.acts_as, need)) {
      reply_error(res, 403, "forbidden",
                  "this needs the " + role_text(*protocol::least_role(need)) +
                      " role (or a key of that scope); " + protocol::actor_of(in->who) +
                      " acts as " + role_text(in->who.acts_as));
      return std::nullopt;
    }
    return in;
  };
}

} // namespace belay
