// Who may sign in and what they carry (docs/security.md): users by login, their
// passwords, sessions, personal tokens, OpenID sign-ins under way, and each org's sign-in
// settings. Tokens and states are looked up by their SHA-256 hashes; nothing here sees
// one in clear.
#pragma once

#include "protocol/access.hpp"
#include "protocol/model.hpp"
#include "protocol/provisioning.hpp"

#include <optional>
#include <string>
#include <vector>

namespace belay::storage {

class connection;

struct org_ref {
  int64_t id = 0;
  std::string name;
};
// An enabled org by name.
std::optional<org_ref> find_org(connection& c, const std::string& name);

// An org's sign-in settings (its client secret opened); the defaults when it has none.
protocol::org_auth load_org_auth(connection& c, int64_t org_id);

struct user_identity {
  int64_t org_id = 0;
  std::string name;
  std::string login;
  protocol::role role = protocol::role::viewer;
  std::string password_hash; // "" when none is set
};
// The user whose login is `login` (without regard to case) in the org.
std::optional<user_identity> find_user_by_login(connection& c, int64_t org_id,
                                                const std::string& login);
std::optional<user_identity> find_user(connection& c, int64_t org_id,
                                       const std::string& name);
// Sets a user's password hash; false when there is no such user.
bool set_password_hash(connection& c, int64_t org_id, const std::string& user,
                       const std::string& hash);

// A session as its token finds it, with its user's role and login now.
struct session_row {
  int64_t id = 0;
  int64_t org_id = 0;
  std::string user;
  std::string login;
  protocol::role role = protocol::role::viewer;
  std::string via; // oidc | password
  micros last_seen_at = 0;
  micros expires_at = 0;
  micros absolute_expires_at = 0;
};
struct new_session {
  int64_t org_id = 0;
  std::string user;
  std::string login;
  protocol::role role = protocol::role::viewer;
  std::string via;
  std::string source_ip;
  std::string token_hash;
  micros now = 0;
  micros expires_at = 0;
  micros absolute_expires_at = 0;
};
int64_t create_session(connection& c, const new_session& s);
// The session of `token_hash` unless it has expired at `now`.
std::optional<session_row> find_session(connection& c, const std::string& token_hash,
                                        micros now);
// Slides a session's expiry (last seen `now`, expiring at `expires_at`).
void touch_session(connection& c, int64_t id, micros now, micros expires_at);
// Ends a session; false when it was already gone.
bool delete_session(connection& c, int64_t id);
// Ends a user's sessions but `keep` (0: all); how many went.
size_t delete_user_sessions(connection& c, int64_t org_id, const std::string& user,
                            int64_t keep = 0);

struct personal_token_row {
  int64_t id = 0;
  int64_t org_id = 0;
  std::string user;
  std::string name;
  protocol::role scope = protocol::role::viewer;
  protocol::role user_role = protocol::role::viewer; // the user's, now
  micros created_at = 0;
};
// The token of `token_hash`, with its user's role now.
std::optional<personal_token_row> find_personal_token(connection& c,
                                                      const std::string& token_hash);
// A new token; nullopt when the user has one of that name.
std::optional<personal_token_row>
create_personal_token(connection& c, int64_t org_id, const std::string& user,
                      const std::string& name, protocol::role scope,
                      const std::string& token_hash, micros now);
std::vector<personal_token_row> list_personal_tokens(connection& c, int64_t org_id,
                                                     const std::string& user);
// Revokes one of the user's tokens; its name, or nullopt when it has none of that id.
std::optional<std::string> delete_personal_token(connection& c, int64_t org_id,
                                                 const std::string& user, int64_t id);

// An OpenID sign-in under way (the row of a state).
struct oidc_login_row {
  int64_t org_id = 0;
  std::string browser_hash;
  std::string next_path;
};
void begin_oidc_login(connection& c, const std::string& state_hash, int64_t org_id,
                      const std::string& browser_hash, const std::string& next_path,
                      micros expires_at);
// Takes the sign-in of `state_hash` (once: a second take finds nothing), unless it
// expired before `now`.
std::optional<oidc_login_row> take_oidc_login(connection& c,
                                              const std::string& state_hash, micros now);

// Housekeeping on the orphan sweep: expired sessions and sign-ins; how many went.
size_t forget_expired_sign_ins(connection& c, micros now);

} // namespace belay::storage
