// Who is calling (docs/security.md): the one place a request's credential is read. A
// bearer token is an API key, or a personal token (belay_pat_…); without one, the
// session cookie `belay_session` (its writes need the CSRF token). The caller then
// needs the route's access: 401 without a credential that holds, 403 naming the role
// needed, 429 over its rate limit. Nothing below http/ reads a header or a cookie.
#pragma once

#include "http/routes.hpp"

#include <string>

namespace belay {

struct api;

inline constexpr const char* session_cookie = "belay_session";

// The admission every route with a caller goes through.
caller_admission make_admission(api& a);

// The value of cookie `name` in the request's Cookie headers, or "".
std::string cookie_value(const httplib::Request& req, const std::string& name);

} // namespace belay
