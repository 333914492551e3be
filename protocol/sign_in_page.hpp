// The sign-in pages (docs/security.md#signing-in): GET /login asks for the org, then
// offers "Sign in with <provider>" and/or a password form; a refused or failed sign-in
// says why, plainly. Phone-sized HTML, no script; every interpolated string escaped.
#pragma once

#include <string>
#include <string_view>

namespace belay::protocol {

struct sign_in_choices {
  std::string org; // "" : ask for it
  std::string next = "/console";
  std::string provider;  // the OpenID provider's name (its host); "" when none
  bool password = false; // the org takes passwords
  std::string login;     // to fill in again after a failure
  std::string problem;   // shown above the forms; "" for none
};

std::string render_sign_in_page(const sign_in_choices& c);

// A sign-in that could not go on (an expired state, a provider's refusal, an identity
// no user has): `message` and a link back to the org's sign-in page.
std::string render_sign_in_refused(std::string_view org, std::string_view message);

// Where a sign-in may send the browser afterwards: a path of this site ("/console",
// "/a/…"), never another site ("//evil", "https://…"); "/console" otherwise.
std::string safe_next_path(std::string_view next);

} // namespace belay::protocol
