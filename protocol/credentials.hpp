// The secrets people sign in with and carry (docs/security.md): random tokens from
// OpenSSL, passwords hashed with Argon2id (libargon2), the CSRF token bound to a
// session, and the PKCE verifier and nonce of an OpenID sign-in. Only hashes of tokens
// are ever stored (sha256_hex, as API keys).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace belay::protocol {

// `bytes` random bytes (RAND_bytes), base64url, after `prefix`. Throws when the
// generator fails.
std::string random_token(std::string_view prefix, size_t bytes = 32);

// Prefixes that say what a bearer token is, so that a lookup goes to the right table
// and a leaked one is recognisable (secret scanners, logs).
inline constexpr std::string_view session_token_prefix = "belay_s_";
inline constexpr std::string_view personal_token_prefix = "belay_pat_";

// Argon2id, RFC 9106's second recommended option scaled to OWASP's minimum (19 MiB,
// 2 passes, 1 lane), with a 16-byte random salt: the encoded form
// "$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>".
std::string hash_password(std::string_view password);
// Whether `password` matches `encoded` (false for anything but an Argon2id hash).
bool password_matches(std::string_view encoded, std::string_view password);
// Spends as long as a check against a real hash, so that an unknown login takes as
// long to refuse as a wrong password.
void spend_a_password_check(std::string_view password);

// Why a new password is refused, or nullopt: 8 to 1,024 bytes (NIST SP 800-63B).
std::optional<std::string> weak_password(std::string_view password);

// The CSRF token of a session: base64url(HMAC-SHA256(session token, label)). Derived,
// so nothing more is stored, and bound to the session (another's does not fit).
std::string csrf_token_of(std::string_view session_token);

// What an OpenID sign-in derives from the browser's login cookie and the request's
// state: the PKCE code_verifier (RFC 7636, 43 characters) and the nonce. Derived, so
// the pending sign-in's row stores neither.
std::string pkce_verifier(std::string_view login_cookie, std::string_view state);
// base64url(SHA-256(verifier)): the code_challenge for method S256.
std::string pkce_challenge(std::string_view verifier);
std::string oidc_nonce(std::string_view login_cookie, std::string_view state);

} // namespace belay::protocol
