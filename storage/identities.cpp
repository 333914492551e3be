#include "storage/identities.hpp"

#include "storage/db.hpp"
#include "storage/sealed.hpp"

namespace belay::storage {

namespace {

protocol::role role_of(const result& r, int row, int col) {
  return protocol::parse_role(r.text(row, col)).value_or(protocol::role::viewer);
}

protocol::role scope_of(const result& r, int row, int col) {
  return protocol::parse_scope(r.text(row, col)).value_or(protocol::role::viewer);
}

constexpr const char* find_org_sql =
    "SELECT id, name FROM org WHERE name = $1 AND disabled_at IS NULL";

constexpr const char* org_auth_sql = R"sql(
SELECT password, oidc_issuer, oidc_client_id, oidc_client_secret, oidc_scopes, oidc_claim
FROM org_auth WHERE org_id = $1)sql";

constexpr const char* user_columns =
    "org_id, name, coalesce(login, ''), role, coalesce(password_hash, '')";

const std::string user_by_login_sql = std::string{"SELECT "} + user_columns +
                                      " FROM app_user WHERE org_id = $1 AND "
                                      "lower(login) = lower($2)";
const std::string user_by_name_sql = std::string{"SELECT "} + user_columns +
                                     " FROM app_user WHERE org_id = $1 AND name = $2";

constexpr const char* set_password_sql =
    "UPDATE app_user SET password_hash = $3 WHERE org_id = $1 AND name = $2 RETURNING 1";

constexpr const char* create_session_sql = R"sql(
INSERT INTO session (org_id, user_name, token_hash, role, login, via, source_ip, created_at,
                     last_seen_at, expires_at, absolute_expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, belay_ts($8), belay_ts($8), belay_ts($9), belay_ts($10))
RETURNING id)sql";

// A session whose user still has the role and login it began with (provisioning ends
// the others, but a node may read between that and its own cache's expiry).
constexpr const char* find_session_sql = R"sql(
SELECT s.id, s.org_id, s.user_name, s.login, u.role, s.via, belay_us(s.last_seen_at),
       belay_us(s.expires_at), belay_us(s.absolute_expires_at)
FROM session s JOIN app_user u ON u.org_id = s.org_id AND u.name = s.user_name
JOIN org o ON o.id = s.org_id AND o.disabled_at IS NULL
WHERE s.token_hash = $1 AND s.expires_at > belay_ts($2) AND u.role = s.role
  AND coalesce(u.login, '') = s.login)sql";

constexpr const char* touch_session_sql = R"sql(
UPDATE session SET last_seen_at = belay_ts($2), expires_at = belay_ts($3) WHERE id = $1)sql";

constexpr const char* delete_session_sql =
    "DELETE FROM session WHERE id = $1 RETURNING 1";
constexpr const char* delete_user_sessions_sql = R"sql(
DELETE FROM session WHERE org_id = $1 AND user_name = $2 AND id <> $3 RETURNING 1)sql";

constexpr const char* token_columns =
    "t.id, t.org_id, t.user_name, t.name, t.scope, u.role, belay_us(t.created_at)";

const std::string find_token_sql = std::string{"SELECT "} + token_columns + R"sql(
FROM personal_token t JOIN app_user u ON u.org_id = t.org_id AND u.name = t.user_name
JOIN org o ON o.id = t.org_id AND o.disabled_at IS NULL
WHERE t.token_hash = $1)sql";

const std::string create_token_sql = std::string{R"sql(
WITH t AS (
  INSERT INTO personal_token (org_id, user_name, name, token_hash, scope, created_at)
  VALUES ($1, $2, $3, $4, $5, belay_ts($6))
  ON CONFLICT (org_id, user_name, name) DO NOTHING RETURNING *)
SELECT )sql"} + token_columns +
                                     R"sql(
FROM t JOIN app_user u ON u.org_id = t.org_id AND u.name = t.user_name)sql";

const std::string list_tokens_sql = std::string{"SELECT "} + token_columns + R"sql(
FROM personal_token t JOIN app_user u ON u.org_id = t.org_id AND u.name = t.user_name
WHERE t.org_id = $1 AND t.user_name = $2 ORDER BY t.id)sql";

constexpr const char* delete_token_sql = R"sql(
DELETE FROM personal_token WHERE org_id = $1 AND user_name = $2 AND id = $3
RETURNING name)sql";

constexpr const char* begin_login_sql = R"sql(
INSERT INTO oidc_login (state_hash, org_id, browser_hash, next_path, expires_at)
VALUES ($1, $2, $3, $4, belay_ts($5)))sql";
constexpr const char* take_login_sql = R"sql(
DELETE FROM oidc_login WHERE state_hash = $1
RETURNING org_id, browser_hash, next_path, expires_at > belay_ts($2))sql";

constexpr const char* forget_sessions_sql =
    "DELETE FROM session WHERE expires_at <= belay_ts($1) RETURNING 1";
constexpr const char* forget_logins_sql =
    "DELETE FROM oidc_login WHERE expires_at <= belay_ts($1) RETURNING 1";

user_identity read_user(const result& r, int i) {
  return {r.int64(i, 0), r.str(i, 1), r.str(i, 2), role_of(r, i, 3), r.str(i, 4)};
}

personal_token_row read_token(const result& r, int i) {
  return {r.int64(i, 0),     r.int64(i, 1),    r.str(i, 2),  r.str(i, 3),
          scope_of(r, i, 4), role_of(r, i, 5), r.int64(i, 6)};
}

} // namespace

std::optional<org_ref> find_org(connection& c, const std::string& name) {
  auto r = c.query(find_org_sql, name);
  if (r.rows() == 0)
    return std::nullopt;
  return org_ref{r.int64(0, 0), r.str(0, 1)};
}

protocol::org_auth load_org_auth(connection& c, int64_t org_id) {
  protocol::org_auth a;
  auto r = c.query(org_auth_sql, org_id);
  if (r.rows() == 0)
    return a;
  a.password = r.boolean(0, 0);
  a.oidc.issuer = r.str(0, 1);
  a.oidc.client_id = r.str(0, 2);
  a.oidc.client_secret = open(process_keyring(), r.text(0, 3));
  a.oidc.scopes = r.str(0, 4);
  a.oidc.claim = r.str(0, 5);
  return a;
}

std::optional<user_identity> find_user_by_login(connection& c, int64_t org_id,
                                                const std::string& login) {
  auto r = c.query(user_by_login_sql, org_id, login);
  if (r.rows() == 0)
    return std::nullopt;
  return read_user(r, 0);
}

std::optional<user_identity> find_user(connection& c, int64_t org_id,
                                       const std::string& name) {
  auto r = c.query(user_by_name_sql, org_id, name);
  if (r.rows() == 0)
    return std::nullopt;
  return read_user(r, 0);
}

bool set_password_hash(connection& c, int64_t org_id, const std::string& user,
                       const std::string& hash) {
  return c.query(set_password_sql, org_id, user, hash).rows() == 1;
}

int64_t create_session(connection& c, const new_session& s) {
  return c
      .query(create_session_sql, s.org_id, s.user, s.token_hash,
             std::string{protocol::role_name(s.role)}, s.login, s.via, s.source_ip, s.now,
             s.expires_at, s.absolute_expires_at)
      .int64(0, 0);
}

std::optional<session_row> find_session(connection& c, const std::string& token_hash,
                                        micros now) {
  auto r = c.query(find_session_sql, token_hash, now);
  if (r.rows() == 0)
    return std::nullopt;
  return session_row{r.int64(0, 0), r.int64(0, 1),    r.str(0, 2),
                     r.str(0, 3),   role_of(r, 0, 4), r.str(0, 5),
                     r.int64(0, 6), r.int64(0, 7),    r.int64(0, 8)};
}

void touch_session(connection& c, int64_t id, micros now, micros expires_at) {
  c.query(touch_session_sql, id, now, expires_at);
}

bool delete_session(connection& c, int64_t id) {
  return c.query(delete_session_sql, id).rows() == 1;
}

size_t delete_user_sessions(connection& c, int64_t org_id, const std::string& user,
                            int64_t keep) {
  return static_cast<size_t>(
      c.query(delete_user_sessions_sql, org_id, user, keep).rows());
}

std::optional<personal_token_row> find_personal_token(connection& c,
                                                      const std::string& token_hash) {
  auto r = c.query(find_token_sql, token_hash);
  if (r.rows() == 0)
    return std::nullopt;
  return read_token(r, 0);
}

std::optional<personal_token_row>
create_personal_token(connection& c, int64_t org_id, const std::string& user,
                      const std::string& name, protocol::role scope,
                      const std::string& token_hash, micros now) {
  auto r = c.query(create_token_sql, org_id, user, name, token_hash,
                   std::string{protocol::scope_name(scope)}, now);
  if (r.rows() == 0)
    return std::nullopt;
  return read_token(r, 0);
}

std::vector<personal_token_row> list_personal_tokens(connection& c, int64_t org_id,
                                                     const std::string& user) {
  auto r = c.query(list_tokens_sql, org_id, user);
  std::vector<personal_token_row> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(read_token(r, i));
  return out;
}

std::optional<std::string> delete_personal_token(connection& c, int64_t org_id,
                                                 const std::string& user, int64_t id) {
  auto r = c.query(delete_token_sql, org_id, user, id);
  if (r.rows() == 0)
    return std::nullopt;
  return r.str(0, 0);
}

void begin_oidc_login(connection& c, const std::string& state_hash, int64_t org_id,
                      const std::string& browser_hash, const std::string& next_path,
                      micros expires_at) {
  c.query(begin_login_sql, state_hash, org_id, browser_hash, next_path, expires_at);
}

std::optional<oidc_login_row> take_oidc_login(connection& c,
                                              const std::string& state_hash, micros now) {
  auto r = c.query(take_login_sql, state_hash, now);
  if (r.rows() == 0 || !r.boolean(0, 3))
    return std::nullopt;
  return oidc_login_row{r.int64(0, 0), r.str(0, 1), r.str(0, 2)};
}

size_t forget_expired_sign_ins(connection& c, micros now) {
  return static_cast<size_t>(c.query(forget_sessions_sql, now).rows() +
                             c.query(forget_logins_sql, now).rows());
}

} // namespace belay::storage
