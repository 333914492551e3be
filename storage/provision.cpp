#include "storage/provision.hpp"

#include "protocol/hash.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/policy_json.hpp"
#include "protocol/provisioning_json.hpp"
#include "protocol/schedule_json.hpp"
#include "protocol/throttle.hpp"
#include "storage/audit.hpp"
#include "storage/db.hpp"
#include "storage/deliveries.hpp"
#include "storage/incidents.hpp"
#include "storage/statements.hpp"
#include "storage/stored_secrets.hpp"

#include <chrono>
#include <limits>
#include <map>

namespace belay::storage {

namespace {

constexpr const char* lock_sql = "SELECT pg_advisory_xact_lock(7823410093)";

// `IS DISTINCT FROM` guards keep re-application of the same file from touching rows.
constexpr const char* org_sql = R"sql(
WITH ins AS (INSERT INTO org (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id)
SELECT id, true FROM ins UNION ALL SELECT id, false FROM org WHERE name = $1)sql";

// A disabled org named again is enabled.
constexpr const char* enable_sql = R"sql(
UPDATE org SET disabled_at = NULL WHERE id = $1 AND disabled_at IS NOT NULL RETURNING 1)sql";

// Orgs the file no longer names: disabled, and their credentials deleted (their
// incidents stay, as history, resolved).
constexpr const char* disable_sql = R"sql(
UPDATE org SET disabled_at = now() WHERE NOT (name = ANY($1::text[])) AND disabled_at IS NULL
RETURNING id, name)sql";
// An org the file names with "disabled": true.
constexpr const char* disable_named_sql = R"sql(
UPDATE org SET disabled_at = now() WHERE id = $1 AND disabled_at IS NULL RETURNING 1)sql";
constexpr const char* unresolved_sql = R"sql(
SELECT id FROM incident WHERE org_id = $1 AND status <> 'RESOLVED' ORDER BY id)sql";
constexpr const char* disabled_keys_sql =
    "DELETE FROM api_key WHERE org_id = $1 RETURNING key_hash";
constexpr const char* disabled_integrations_sql =
    "DELETE FROM integration WHERE org_id = $1 RETURNING name";
constexpr const char* disabled_heartbeats_sql =
    "DELETE FROM heartbeat WHERE org_id = $1 RETURNING name";

// A plain-string key has no name ('') and is an admin key.
constexpr const char* api_key_sql = R"sql(
INSERT INTO api_key AS k (org_id, key_hash, name, scope) VALUES ($1, $2, nullif($3, ''), $4)
ON CONFLICT (org_id, key_hash) DO UPDATE SET name = EXCLUDED.name, scope = EXCLUDED.scope
WHERE (k.name, k.scope) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.scope)
RETURNING (xmax = 0))sql";
constexpr const char* named_keys_sql =
    "SELECT name, key_hash FROM api_key WHERE org_id = $1 AND name IS NOT NULL";
constexpr const char* unnamed_keys_sql =
    "SELECT key_hash FROM api_key WHERE org_id = $1 AND name IS NULL";

// An org's sign-in settings (docs/security.md#signing-in); the defaults need no row.
constexpr const char* auth_sql = R"sql(
INSERT INTO org_auth AS a (org_id, password, oidc_issuer, oidc_client_id, oidc_client_secret,
                           oidc_scopes, oidc_claim)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (org_id) DO UPDATE SET password = EXCLUDED.password,
  oidc_issuer = EXCLUDED.oidc_issuer, oidc_client_id = EXCLUDED.oidc_client_id,
  oidc_client_secret = CASE WHEN EXCLUDED.oidc_client_secret = '<set>'
                            THEN a.oidc_client_secret ELSE EXCLUDED.oidc_client_secret END,
  oidc_scopes = EXCLUDED.oidc_scopes, oidc_claim = EXCLUDED.oidc_claim
WHERE (a.password, a.oidc_issuer, a.oidc_client_id, a.oidc_client_secret, a.oidc_scopes,
       a.oidc_claim)
  IS DISTINCT FROM (EXCLUDED.password, EXCLUDED.oidc_issuer, EXCLUDED.oidc_client_id,
                    CASE WHEN EXCLUDED.oidc_client_secret = '<set>' THEN a.oidc_client_secret
                         ELSE EXCLUDED.oidc_client_secret END,
                    EXCLUDED.oidc_scopes, EXCLUDED.oidc_claim)
RETURNING (xmax = 0))sql";
constexpr const char* stored_auth_secret_sql =
    "SELECT oidc_client_secret FROM org_auth WHERE org_id = $1";
constexpr const char* default_auth_sql =
    "DELETE FROM org_auth WHERE org_id = $1 RETURNING 1";

// Sessions whose user's role or login is no longer what it was when they began: a
// demoted or renamed person signs in again.
constexpr const char* stale_sessions_sql = R"sql(
DELETE FROM session s USING app_user u
WHERE s.org_id = $1 AND u.org_id = s.org_id AND u.name = s.user_name
  AND (u.role <> s.role OR coalesce(u.login, '') <> s.login)
RETURNING s.user_name)sql";
constexpr const char* disabled_sessions_sql =
    "DELETE FROM session WHERE org_id = $1 RETURNING 1";
constexpr const char* disabled_tokens_sql =
    "DELETE FROM personal_token WHERE org_id = $1 RETURNING 1";

// "<set>" (protocol::stored_secret) keeps a secret's stored value: compared and kept
// here, never read out (docs/http.md#configuration-api). Only an existing row can keep
// one; the API checks that before (protocol::check_kept_secrets).
constexpr const char* channel_sql = R"sql(
INSERT INTO channel AS c (org_id, name, type, url, secret, account, sender, max_attempts,
                          retry_base_seconds, retry_cap_seconds, timeout_seconds, failover_to,
                          signing_secret, throttle, status_throttle, bundle)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15::jsonb, $16)
ON CONFLICT (org_id, name) DO UPDATE SET type = EXCLUDED.type, url = EXCLUDED.url,
  secret = CASE WHEN EXCLUDED.secret = '<set>' THEN c.secret ELSE EXCLUDED.secret END, account = EXCLUDED.account, sender = EXCLUDED.sender,
  max_attempts = EXCLUDED.max_attempts, retry_base_seconds = EXCLUDED.retry_base_seconds,
  retry_cap_seconds = EXCLUDED.retry_cap_seconds, timeout_seconds = EXCLUDED.timeout_seconds,
  failover_to = EXCLUDED.failover_to, signing_secret = CASE WHEN EXCLUDED.signing_secret = '<set>' THEN c.signing_secret
                                      ELSE EXCLUDED.signing_secret END,
  throttle = EXCLUDED.throttle, status_throttle = EXCLUDED.status_throttle,
  bundle = EXCLUDED.bundle
WHERE (c.type, c.url, c.secret, c.account, c.sender, c.max_attempts, c.retry_base_seconds,
       c.retry_cap_seconds, c.timeout_seconds, c.failover_to, c.signing_secret, c.throttle,
       c.status_throttle, c.bundle)
  IS DISTINCT FROM (EXCLUDED.type, EXCLUDED.url, CASE WHEN EXCLUDED.secret = '<set>' THEN c.secret ELSE EXCLUDED.secret END, EXCLUDED.account,
       EXCLUDED.sender, EXCLUDED.max_attempts, EXCLUDED.retry_base_seconds,
       EXCLUDED.retry_cap_seconds, EXCLUDED.timeout_seconds, EXCLUDED.failover_to,
       CASE WHEN EXCLUDED.signing_secret = '<set>' THEN c.signing_secret
                                      ELSE EXCLUDED.signing_secret END, EXCLUDED.throttle, EXCLUDED.status_throttle,
       EXCLUDED.bundle)
RETURNING (xmax = 0))sql";

constexpr const char* policy_sql = R"sql(
INSERT INTO policy AS p (org_id, name, definition) VALUES ($1, $2, $3::jsonb)
ON CONFLICT (org_id, name) DO UPDATE SET definition = EXCLUDED.definition
WHERE p.definition IS DISTINCT FROM EXCLUDED.definition
RETURNING (xmax = 0))sql";

constexpr const char* integration_sql = R"sql(
INSERT INTO integration AS i (org_id, name, type, key_hash, policy, shadow,
                              rate_limit_per_minute, heartbeat, group_by)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text[])
ON CONFLICT (org_id, name) DO UPDATE SET type = EXCLUDED.type,
  key_hash = CASE WHEN EXCLUDED.key_hash = '<set>' THEN i.key_hash ELSE EXCLUDED.key_hash END,
  policy = EXCLUDED.policy, shadow = EXCLUDED.shadow,
  rate_limit_per_minute = EXCLUDED.rate_limit_per_minute, heartbeat = EXCLUDED.heartbeat,
  group_by = EXCLUDED.group_by
WHERE (i.type, i.key_hash, i.policy, i.shadow, i.rate_limit_per_minute, i.heartbeat,
       i.group_by)
  IS DISTINCT FROM (EXCLUDED.type,
                    CASE WHEN EXCLUDED.key_hash = '<set>' THEN i.key_hash
                         ELSE EXCLUDED.key_hash END, EXCLUDED.policy, EXCLUDED.shadow,
                    EXCLUDED.rate_limit_per_minute, EXCLUDED.heartbeat, EXCLUDED.group_by)
RETURNING (xmax = 0))sql";

// A changed period or grace moves the deadlines silence sets, from the last ping (or,
// never pinged with alertIfNeverPinged, from creation); the monitor's state and
// pending side effect stay. A new version tells its holder to read it again.
constexpr const char* heartbeat_sql = R"sql(
INSERT INTO heartbeat AS h (org_id, name, key_hash, policy, period_seconds, grace_seconds,
                            alert_if_never_pinged)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (org_id, name) DO UPDATE SET
  key_hash = CASE WHEN EXCLUDED.key_hash = '<set>' THEN h.key_hash ELSE EXCLUDED.key_hash END,
  policy = EXCLUDED.policy, period_seconds = EXCLUDED.period_seconds,
  grace_seconds = EXCLUDED.grace_seconds,
  alert_if_never_pinged = EXCLUDED.alert_if_never_pinged,
  late_at = CASE WHEN h.state IN ('new', 'up') AND (h.state = 'up' OR EXCLUDED.alert_if_never_pinged)
                 THEN coalesce(h.last_ping_at, h.created_at)
                      + EXCLUDED.period_seconds * interval '1 second' END,
  down_at = CASE WHEN h.state = 'down' THEN NULL
                 WHEN h.state = 'new' AND NOT EXCLUDED.alert_if_never_pinged THEN NULL
                 ELSE coalesce(h.last_ping_at, h.created_at)
                      + (EXCLUDED.period_seconds + EXCLUDED.grace_seconds) * interval '1 second'
                 END,
  version = h.version + 1
WHERE (h.key_hash, h.policy, h.period_seconds, h.grace_seconds, h.alert_if_never_pinged)
  IS DISTINCT FROM (CASE WHEN EXCLUDED.key_hash = '<set>' THEN h.key_hash
                         ELSE EXCLUDED.key_hash END, EXCLUDED.policy, EXCLUDED.period_seconds,
                    EXCLUDED.grace_seconds, EXCLUDED.alert_if_never_pinged)
RETURNING (xmax = 0))sql";

constexpr const char* user_sql = R"sql(
INSERT INTO app_user AS u (org_id, name, definition, role, login)
VALUES ($1, $2, $3::jsonb, $4, nullif($5, ''))
ON CONFLICT (org_id, name) DO UPDATE SET definition = EXCLUDED.definition,
  role = EXCLUDED.role, login = EXCLUDED.login
WHERE (u.definition, u.role, u.login) IS DISTINCT FROM
      (EXCLUDED.definition, EXCLUDED.role, EXCLUDED.login)
RETURNING (xmax = 0))sql";

constexpr const char* schedule_sql = R"sql(
INSERT INTO schedule AS s (org_id, name, definition) VALUES ($1, $2, $3::jsonb)
ON CONFLICT (org_id, name) DO UPDATE SET definition = EXCLUDED.definition
WHERE s.definition IS DISTINCT FROM EXCLUDED.definition
RETURNING (xmax = 0))sql";

// The rows of an org ($1) that the file no longer names: those of {{table}} whose
// {{column}} is not among $2.
constexpr std::string_view prune_text = R"sql(
DELETE FROM {{table}} WHERE org_id = $1 AND NOT ({{column}} = ANY($2::text[]))
RETURNING {{column}})sql";
std::string prune_statement(std::string_view table, std::string_view column) {
  return fill(prune_text, {{"table", table}, {"column", column}});
}
const std::string prune_api_keys_sql = prune_statement("api_key", "key_hash");
const std::string prune_channels_sql = prune_statement("channel", "name");
const std::string prune_users_sql = prune_statement("app_user", "name");
const std::string prune_schedules_sql = prune_statement("schedule", "name");
const std::string prune_policies_sql = prune_statement("policy", "name");
const std::string prune_heartbeats_sql = prune_statement("heartbeat", "name");
const std::string prune_integrations_sql = prune_statement("integration", "name");

// A text[] parameter.
std::string text_array(const std::vector<std::string>& items) {
  std::string list = "{";
  for (auto& k : items) {
    if (list.size() > 1)
      list += ",";
    list += "\"";
    for (char ch : k) {
      if (ch == '"' || ch == '\\')
        list += '\\';
      list += ch;
    }
    list += "\"";
  }
  return list + "}";
}

// A key's hash, or stored_secret itself (no hash is "<set>"), which the upserts keep
// the stored hash for.
std::string hash_or_kept(const std::string& key) {
  return key == protocol::stored_secret ? std::string{key} : sha256_hex(key);
}

std::string key_label(const std::string& hash) {
  return "sha256:" + hash.substr(0, 12);
}

class changes {
public:
  changes(provision_report& report, std::string org)
      : report_(report), org_(std::move(org)) {}

  void note(const std::string& what) {
    ++report_.changed_rows;
    report_.changes.push_back("org '" + org_ + "': " + what);
  }

  // A change the audit log records by kind and name too.
  void note(const std::string& what, std::string verb, std::string kind,
            std::string name) {
    note(what);
    items_.push_back({std::move(verb), std::move(kind), std::move(name)});
  }
  const std::vector<protocol::audit_change>& items() const { return items_; }

  // An upsert's RETURNING (xmax = 0): a row when something changed, true when added.
  // `kept`: the item gave "<set>" for a secret or key, which only a stored row has
  // (the API checks before: protocol::check_kept_secrets; a file may not).
  void upserted(const result& r, const char* kind, const std::string& name,
                bool kept = false) {
    if (r.rows() != 1)
      return;
    const bool added = r.boolean(0, 0);
    if (added && kept)
      throw db_error(std::string{kind} + " '" + name +
                         "' is new: \"<set>\" has no stored secret or key to keep",
                     "22023");
    note(std::string{added ? "add " : "update "} + kind + " '" + name + "'",
         added ? "added" : "updated", kind, name);
  }

  // Removes the org's rows that `keep` does not name (prune_statements).
  void prune(connection& c, const std::string& prune_sql, int64_t org,
             const std::vector<std::string>& keep, const char* kind,
             bool is_key = false) {
    auto r = c.query(prune_sql, org, text_array(keep));
    for (int i = 0; i < r.rows(); ++i) {
      auto name = is_key ? key_label(r.str(i, 0)) : r.str(i, 0);
      note(std::string{"remove "} + kind + " " + (is_key ? name : "'" + name + "'"),
           "removed", kind, name);
    }
  }

private:
  provision_report& report_;
  std::string org_;
  std::vector<protocol::audit_change> items_;
};

micros now_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A disabled org stops: its API keys, integrations and heartbeats go (nothing reaches
// it), and its incidents still open are resolved via provisioning, each announced to the
// node holding it as any resolve is.
void turn_off(connection& c, changes& note, int64_t org) {
  auto keys = c.query(disabled_keys_sql, org);
  for (int k = 0; k < keys.rows(); ++k)
    note.note("remove API key " + key_label(keys.str(k, 0)));
  auto integrations = c.query(disabled_integrations_sql, org);
  for (int k = 0; k < integrations.rows(); ++k)
    note.note("remove integration '" + integrations.str(k, 0) + "'");
  auto heartbeats = c.query(disabled_heartbeats_sql, org);
  for (int k = 0; k < heartbeats.rows(); ++k)
    note.note("remove heartbeat '" + heartbeats.str(k, 0) + "'");
  if (auto n = c.query(disabled_sessions_sql, org).rows())
    note.note("end " + std::to_string(n) + " session(s)", "ended", "sessions",
              std::to_string(n));
  if (auto n = c.query(disabled_tokens_sql, org).rows())
    note.note("revoke " + std::to_string(n) + " personal token(s)", "removed",
              "personal tokens", std::to_string(n));
  auto open = c.query(unresolved_sql, org);
  for (int k = 0; k < open.rows(); ++k) {
    transition_command cmd;
    cmd.org_id = org;
    cmd.incident_id = open.int64(k, 0);
    cmd.kind = transition::resolve;
    cmd.by = "provisioning";
    cmd.via = "provisioning";
    if (apply_transition(c, cmd, now_micros()).code == reply_code::ok)
      note.note("resolve incident " + std::to_string(cmd.incident_id));
  }
}

// An org's API keys: plain strings (admin, no name) and named keys with a scope. A
// named key's "<set>" keeps the stored key of that name; plain "<set>" strings
// (keep_api_keys) keep the stored keys without a name. What is not kept goes first, so
// that a named key given a new key can take its name back.
void apply_api_keys(connection& c, changes& note, int64_t org,
                    const protocol::provisioned_org& o) {
  std::map<std::string, std::string> named; // name → stored hash
  auto stored = c.query(named_keys_sql, org);
  for (int i = 0; i < stored.rows(); ++i)
    named[stored.str(i, 0)] = stored.str(i, 1);
  struct wanted {
    std::string hash, name;
    protocol::role scope;
  };
  std::vector<wanted> keys;
  for (auto& key : o.api_keys)
    keys.push_back({sha256_hex(key), "", protocol::role::admin});
  for (auto& key : o.named_keys) {
    std::string hash = sha256_hex(key.key);
    if (key.key == protocol::stored_secret) {
      auto it = named.find(key.name);
      if (it == named.end())
        throw db_error("API key '" + key.name +
                           "' is new: \"<set>\" has no stored key to keep",
                       "22023");
      hash = it->second;
    }
    keys.push_back({hash, key.name, key.scope});
  }
  std::vector<std::string> hashes;
  for (auto& k : keys)
    hashes.push_back(k.hash);
  if (o.keep_api_keys) {
    auto unnamed = c.query(unnamed_keys_sql, org);
    for (int i = 0; i < unnamed.rows(); ++i)
      hashes.push_back(unnamed.str(i, 0));
  }
  note.prune(c, prune_api_keys_sql, org, hashes, "API key", true);
  for (auto& k : keys) {
    auto r = c.query(api_key_sql, org, k.hash, k.name,
                     std::string{protocol::scope_name(k.scope)});
    if (r.rows() != 1)
      continue;
    auto label = k.name.empty() ? key_label(k.hash) : "'" + k.name + "'";
    bool added = r.boolean(0, 0);
    note.note(std::string{added ? "add" : "update"} + " API key " + label,
              added ? "added" : "updated", "API key",
              k.name.empty() ? key_label(k.hash) : k.name);
  }
}

// The org's sign-in settings: a row unless they are the defaults. The client secret is
// sealed like a channel's.
void apply_auth(connection& c, changes& note, int64_t org, const protocol::org_auth& a) {
  if (a.password && !a.oidc.configured()) {
    if (c.query(default_auth_sql, org).rows() == 1)
      note.note("update sign-in settings (back to the defaults)", "updated",
                "sign-in settings", "auth");
    return;
  }
  auto stored = c.query(stored_auth_secret_sql, org);
  std::string was = stored.rows() ? stored.str(0, 0) : std::string{};
  auto secret = a.oidc.client_secret == protocol::stored_secret
                    ? a.oidc.client_secret
                    : reseal_unless_same(process_keyring(), was, a.oidc.client_secret);
  note.upserted(c.query(auth_sql, org, a.password, a.oidc.issuer, a.oidc.client_id,
                        secret, a.oidc.scopes, a.oidc.claim),
                "sign-in settings", "auth",
                a.oidc.client_secret == protocol::stored_secret);
}

// The audit log's row for one org of an application (docs/security.md#audit-log).
void audit_org(connection& c, const changes& note, int64_t org, const std::string& name,
               const provision_audit& who) {
  protocol::audit_entry e;
  e.at = who.at; // 0: append_audit's wall clock
  e.org_id = org;
  e.actor = who.actor;
  e.via = who.via;
  e.source_ip = who.source_ip;
  e.action = who.action;
  e.object_kind = who.object_name.empty() ? "org" : "provisioning";
  e.object_name = who.object_name.empty() ? name : who.object_name;
  e.changes_json = protocol::render_audit_changes(note.items());
  append_audit(c, std::move(e));
}

void apply_org(connection& c, provision_report& report,
               const protocol::provisioned_org& o, const provision_audit& who) {
  changes note{report, o.name};
  auto org_row = c.query(org_sql, o.name);
  int64_t org = org_row.int64(0, 0);
  if (org_row.boolean(0, 1))
    note.note("add org");
  else if (!o.disabled && c.query(enable_sql, org).rows() == 1)
    note.note("enable org (it was disabled)");
  ++report.orgs;
  if (o.disabled) {
    if (c.query(disable_named_sql, org).rows() == 1)
      note.note("disable org (\"disabled\": true)");
    turn_off(c, note, org);
  } else if (o.api_keys_given || !o.keep_api_keys) {
    apply_api_keys(c, note, org, o);
  }
  if (!o.disabled)
    apply_auth(c, note, org, o.auth);

  std::vector<std::string> names;
  // Secrets are stored sealed (docs/guarantees.md#no-key-at-rest-in-clear); "<set>"
  // goes through as it is: the statement keeps the stored value for it.
  const auto& keys = process_keyring();
  auto stored = channel_secrets_of_org(c, org);
  auto sealed = [&keys](const std::string& was, const std::string& plain) {
    return plain == protocol::stored_secret ? plain
                                            : reseal_unless_same(keys, was, plain);
  };
  for (auto& ch : o.channels) {
    names.push_back(ch.name);
    auto& was = stored[ch.name];
    note.upserted(c.query(channel_sql, org, ch.name, ch.type, sealed(was.url, ch.url),
                          sealed(was.secret, ch.secret), ch.account, ch.from,
                          ch.max_attempts, ch.retry_base_seconds, ch.retry_cap_seconds,
                          ch.timeout_seconds, ch.failover_to,
                          sealed(was.signing_secret, ch.signing_secret),
                          protocol::throttle_json(ch.throttle),
                          protocol::throttle_json(ch.status_throttle), ch.bundle),
                  "channel", ch.name,
                  ch.secret == protocol::stored_secret ||
                      ch.signing_secret == protocol::stored_secret);
  }
  note.prune(c, prune_channels_sql, org, names, "channel");
  names.clear();
  for (auto& u : o.users) {
    names.push_back(u.name);
    note.upserted(c.query(user_sql, org, u.name, protocol::render_user_definition(u),
                          std::string{protocol::role_name(u.role)}, u.login),
                  "user", u.name);
  }
  note.prune(c, prune_users_sql, org, names, "user");
  auto ended = c.query(stale_sessions_sql, org);
  for (int i = 0; i < ended.rows(); ++i)
    note.note("end a session of user '" + ended.str(i, 0) + "' (role or login changed)",
              "ended", "session", ended.str(i, 0));
  names.clear();
  for (auto& sch : o.schedules) {
    names.push_back(sch.name);
    note.upserted(c.query(schedule_sql, org, sch.name, protocol::render_schedule(sch)),
                  "schedule", sch.name);
  }
  note.prune(c, prune_schedules_sql, org, names, "schedule");
  names.clear();
  for (auto& pol : o.policies) {
    names.push_back(pol.name);
    note.upserted(c.query(policy_sql, org, pol.name, protocol::render_policy(pol)),
                  "policy", pol.name);
  }
  note.prune(c, prune_policies_sql, org, names, "policy");

  if (o.disabled)
    return audit_org(c, note, org, o.name, who); // its keys went with turn_off

  // Removed monitors stop: their rows go, and their ping keys with them.
  names.clear();
  for (auto& hb : o.heartbeats) {
    names.push_back(hb.name);
    note.upserted(c.query(heartbeat_sql, org, hb.name, hash_or_kept(hb.key), hb.policy,
                          hb.period_seconds, hb.grace_seconds, hb.alert_if_never_pinged),
                  "heartbeat", hb.name, hb.key == protocol::stored_secret);
  }
  note.prune(c, prune_heartbeats_sql, org, names, "heartbeat");

  names.clear();
  for (auto& in : o.integrations) {
    names.push_back(in.name);
    note.upserted(c.query(integration_sql, org, in.name, in.type, hash_or_kept(in.key),
                          in.policy, in.shadow, in.rate_limit_per_minute, in.heartbeat,
                          text_array(in.group_by)),
                  "integration", in.name, in.key == protocol::stored_secret);
  }
  note.prune(c, prune_integrations_sql, org, names, "integration");
  audit_org(c, note, org, o.name, who);
}

// Pages pending on a channel removed, or of an org turned off, are cancelled now; the
// orphan sweep cancels those a ladder makes later.
void cancel_orphans(connection& c, provision_report& report) {
  constexpr micros any_time = 253'402'300'799'000'000; // 9999-12-31, within timestamptz
  auto cancelled = cancel_removed_channel_deliveries(
      c, now_micros(), std::numeric_limits<int>::max(), any_time);
  if (cancelled > 0) {
    report.changed_rows += cancelled;
    report.changes.push_back("cancel " + std::to_string(cancelled) +
                             " pending page(s) of removed channels or disabled orgs");
  }
}

provision_report apply(connection& c, const protocol::provisioning& p,
                       const provision_audit& who) {
  c.exec(lock_sql);
  provision_report report;
  std::vector<std::string> org_names;
  for (auto& o : p.orgs) {
    org_names.push_back(o.name);
    apply_org(c, report, o, who);
  }
  auto gone = c.query(disable_sql, text_array(org_names));
  for (int i = 0; i < gone.rows(); ++i) {
    changes note{report, gone.str(i, 1)};
    note.note("disable org (the file no longer names it)", "disabled", "org",
              gone.str(i, 1));
    turn_off(c, note, gone.int64(i, 0));
    audit_org(c, note, gone.int64(i, 0), gone.str(i, 1), who);
  }
  cancel_orphans(c, report);
  return report;
}

provision_report apply_one(connection& c, const protocol::provisioned_org& o,
                           const provision_audit& who) {
  c.exec(lock_sql);
  provision_report report;
  apply_org(c, report, o, who);
  cancel_orphans(c, report);
  return report;
}

// `work` in one transaction, rolled back when `dry_run`.
template <class Work> provision_report run(connection& c, bool dry_run, Work&& work) {
  if (!dry_run)
    return transaction(c, work);
  c.exec("BEGIN");
  try {
    auto report = work();
    c.exec("ROLLBACK");
    return report;
  } catch (...) {
    if (c.healthy())
      c.exec("ROLLBACK");
    throw;
  }
}

} // namespace

provision_report apply_provisioning(connection& c, const protocol::provisioning& p,
                                    bool dry_run, const provision_audit& who) {
  return run(c, dry_run, [&] { return apply(c, p, who); });
}

provision_report apply_org_provisioning(connection& c, const protocol::provisioned_org& o,
                                        bool dry_run, const provision_audit& who) {
  return run(c, dry_run, [&] { return apply_one(c, o, who); });
}

std::vector<named_statement> provision_statements() {
  return {{"prune_api_keys", prune_api_keys_sql},
          {"prune_channels", prune_channels_sql},
          {"prune_users", prune_users_sql},
          {"prune_schedules", prune_schedules_sql},
          {"prune_policies", prune_policies_sql},
          {"prune_heartbeats", prune_heartbeats_sql},
          {"prune_integrations", prune_integrations_sql}};
}

} // namespace belay::storage
