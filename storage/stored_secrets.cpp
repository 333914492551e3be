#include "storage/stored_secrets.hpp"

#include "storage/db.hpp"

#include <stdexcept>

namespace belay::storage {

namespace {

const std::string missing_key =
    "set --data-encryption-key-file (BELAY_DATA_ENCRYPTION_KEY_FILE) to store them "
    "encrypted";

// Through to_jsonb, so that a database before the migration that added a column (or
// before any) is read too: start-up checks before it migrates.
constexpr const char* tables_sql = "SELECT to_regclass('channel') IS NOT NULL, "
                                   "to_regclass('signing_secret') IS NOT NULL, "
                                   "to_regclass('org_auth') IS NOT NULL";
constexpr const char* stored_auth_values_sql =
    "SELECT oidc_client_secret FROM org_auth WHERE oidc_client_secret <> ''";
constexpr const char* lock_auth_sql =
    "SELECT org_id, oidc_client_secret FROM org_auth ORDER BY org_id FOR UPDATE";
constexpr const char* reseal_auth_sql =
    "UPDATE org_auth SET oidc_client_secret = $2 WHERE org_id = $1";
constexpr const char* stored_channel_values_sql = R"sql(
SELECT v FROM channel c, LATERAL (VALUES (to_jsonb(c)->>'url'), (to_jsonb(c)->>'secret'),
                                         (to_jsonb(c)->>'signing_secret')) AS s(v)
WHERE coalesce(v, '') <> '')sql";
constexpr const char* stored_signing_secret_sql = "SELECT secret FROM signing_secret";

constexpr const char* lock_channels_sql = R"sql(
SELECT org_id, name, url, secret, signing_secret FROM channel ORDER BY org_id, name
FOR UPDATE)sql";
constexpr const char* reseal_channel_sql = R"sql(
UPDATE channel SET url = $3, secret = $4, signing_secret = $5
WHERE org_id = $1 AND name = $2)sql";
constexpr const char* lock_signing_secret_sql =
    "SELECT secret FROM signing_secret WHERE id = 1 FOR UPDATE";
constexpr const char* reseal_signing_secret_sql =
    "UPDATE signing_secret SET secret = $1 WHERE id = 1";

constexpr const char* org_channel_secrets_sql =
    "SELECT name, url, secret, signing_secret FROM channel WHERE org_id = $1";

void check_key_id(const keyring& keys, const std::string& stored) {
  auto id = sealed_key_id(stored);
  bool known =
      (keys.current && keys.current->id == id) || (keys.old && keys.old->id == id);
  if (!known)
    throw std::invalid_argument(
        "the database holds secrets sealed under key id '" + id +
        "', which was not given: set --data-encryption-key-file "
        "(BELAY_DATA_ENCRYPTION_KEY_FILE) or --data-encryption-key-old-file "
        "(BELAY_DATA_ENCRYPTION_KEY_OLD_FILE) to that key's file");
}

bool needs_rewrite(const keyring& keys, const std::string& stored, bool rekey) {
  if (stored.empty())
    return false;
  if (!is_sealed(stored))
    return true;
  return rekey && sealed_key_id(stored) != keys.current->id;
}

} // namespace

bool holds_channel_secret(const protocol::provisioning& p) {
  for (auto& o : p.orgs)
    for (auto& ch : o.channels)
      if (!ch.url.empty() || !ch.secret.empty() || !ch.signing_secret.empty())
        return true;
  for (auto& o : p.orgs)
    if (!o.auth.oidc.client_secret.empty())
      return true;
  return false;
}

void check_stored_secrets(connection& c, const keyring& keys, bool file_holds_secret) {
  if (!keys.current && keys.old)
    throw std::invalid_argument(
        "--data-encryption-key-old-file is given without "
        "--data-encryption-key-file (BELAY_DATA_ENCRYPTION_KEY_FILE)");
  if (!keys.current && file_holds_secret)
    throw std::invalid_argument("the provisioning file holds channel secrets: " +
                                missing_key);
  auto tables = c.exec(tables_sql);
  std::vector<std::string> stored;
  if (tables.boolean(0, 0)) {
    auto r = c.exec(stored_channel_values_sql);
    for (int i = 0; i < r.rows(); ++i)
      stored.push_back(r.str(i, 0));
    if (!keys.current && r.rows() > 0)
      throw std::invalid_argument("the database holds channel secrets: " + missing_key);
  }
  if (tables.boolean(0, 1)) {
    auto r = c.exec(stored_signing_secret_sql);
    for (int i = 0; i < r.rows(); ++i)
      stored.push_back(r.str(i, 0));
  }
  if (tables.boolean(0, 2)) {
    auto r = c.exec(stored_auth_values_sql);
    for (int i = 0; i < r.rows(); ++i)
      stored.push_back(r.str(i, 0));
    if (!keys.current && r.rows() > 0)
      throw std::invalid_argument("the database holds an OpenID client secret: " +
                                  missing_key);
  }
  for (auto& v : stored)
    if (is_sealed(v))
      check_key_id(keys, v);
}

size_t seal_stored_secrets(connection& c, const keyring& keys, bool rekey) {
  if (!keys.current)
    throw std::invalid_argument("no key to seal under: set --data-encryption-key-file "
                                "(BELAY_DATA_ENCRYPTION_KEY_FILE)");
  return transaction(c, [&] {
    size_t rewritten = 0;
    auto resealed = [&](const std::string& stored) {
      if (!needs_rewrite(keys, stored, rekey))
        return stored;
      ++rewritten;
      return seal(keys, open(keys, stored));
    };
    auto channels = c.exec(lock_channels_sql);
    for (int i = 0; i < channels.rows(); ++i) {
      auto before = rewritten;
      auto url = resealed(channels.str(i, 2));
      auto secret = resealed(channels.str(i, 3));
      auto signing = resealed(channels.str(i, 4));
      if (rewritten != before)
        c.query(reseal_channel_sql, channels.int64(i, 0), channels.str(i, 1), url, secret,
                signing);
    }
    auto answer_secret = c.exec(lock_signing_secret_sql);
    if (answer_secret.rows() == 1 && needs_rewrite(keys, answer_secret.str(0, 0), rekey))
      c.query(reseal_signing_secret_sql, resealed(answer_secret.str(0, 0)));
    auto auth = c.exec(lock_auth_sql);
    for (int i = 0; i < auth.rows(); ++i)
      if (needs_rewrite(keys, auth.str(i, 1), rekey))
        c.query(reseal_auth_sql, auth.int64(i, 0), resealed(auth.str(i, 1)));
    return rewritten;
  });
}

std::map<std::string, stored_channel_secrets> channel_secrets_of_org(connection& c,
                                                                     int64_t org_id) {
  std::map<std::string, stored_channel_secrets> out;
  auto r = c.query(org_channel_secrets_sql, org_id);
  for (int i = 0; i < r.rows(); ++i)
    out[r.str(i, 0)] = {r.str(i, 1), r.str(i, 2), r.str(i, 3)};
  return out;
}

std::string reseal_unless_same(const keyring& keys, const std::string& stored,
                               const std::string& plain) {
  if (keys.current && is_sealed(stored) && sealed_key_id(stored) == keys.current->id &&
      open(keys, stored) == plain)
    return stored;
  return seal(keys, plain);
}

} // namespace belay::storage
