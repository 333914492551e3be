#include "storage/provision.hpp"

#include "protocol/hash.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/policy_json.hpp"
#include "protocol/schedule_json.hpp"
#include "storage/db.hpp"

namespace belay::storage {

namespace {

constexpr const char* lock_sql = "SELECT pg_advisory_xact_lock(7823410093)";

// `IS DISTINCT FROM` guards keep re-application of the same file from touching rows.
constexpr const char* org_sql =
    "WITH ins AS (INSERT INTO org (name) VALUES ($1) ON CONFLICT (name) DO NOTHING "
    "RETURNING id) SELECT id, true FROM ins UNION ALL SELECT id, false FROM org WHERE "
    "name = $1";

constexpr const char* channel_sql = R"sql(
INSERT INTO channel AS c (org_id, name, type, url, secret, account, sender, max_attempts,
                          retry_base_seconds, retry_cap_seconds, timeout_seconds, failover_to,
                          signing_secret)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
ON CONFLICT (org_id, name) DO UPDATE SET type = EXCLUDED.type, url = EXCLUDED.url,
  secret = EXCLUDED.secret, account = EXCLUDED.account, sender = EXCLUDED.sender,
  max_attempts = EXCLUDED.max_attempts, retry_base_seconds = EXCLUDED.retry_base_seconds,
  retry_cap_seconds = EXCLUDED.retry_cap_seconds, timeout_seconds = EXCLUDED.timeout_seconds,
  failover_to = EXCLUDED.failover_to, signing_secret = EXCLUDED.signing_secret
WHERE (c.type, c.url, c.secret, c.account, c.sender, c.max_attempts, c.retry_base_seconds,
       c.retry_cap_seconds, c.timeout_seconds, c.failover_to, c.signing_secret)
  IS DISTINCT FROM (EXCLUDED.type, EXCLUDED.url, EXCLUDED.secret, EXCLUDED.account,
       EXCLUDED.sender, EXCLUDED.max_attempts, EXCLUDED.retry_base_seconds,
       EXCLUDED.retry_cap_seconds, EXCLUDED.timeout_seconds, EXCLUDED.failover_to,
       EXCLUDED.signing_secret)
RETURNING 1)sql";

constexpr const char* policy_sql = R"sql(
INSERT INTO policy AS p (org_id, name, definition) VALUES ($1, $2, $3::jsonb)
ON CONFLICT (org_id, name) DO UPDATE SET definition = EXCLUDED.definition
WHERE p.definition IS DISTINCT FROM EXCLUDED.definition
RETURNING 1)sql";

constexpr const char* integration_sql = R"sql(
INSERT INTO integration AS i (org_id, name, type, key_hash, policy, shadow)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (org_id, name) DO UPDATE SET type = EXCLUDED.type, key_hash = EXCLUDED.key_hash,
  policy = EXCLUDED.policy, shadow = EXCLUDED.shadow
WHERE (i.type, i.key_hash, i.policy, i.shadow)
  IS DISTINCT FROM (EXCLUDED.type, EXCLUDED.key_hash, EXCLUDED.policy, EXCLUDED.shadow)
RETURNING 1)sql";

constexpr const char* user_sql = R"sql(
INSERT INTO app_user AS u (org_id, name, definition) VALUES ($1, $2, $3::jsonb)
ON CONFLICT (org_id, name) DO UPDATE SET definition = EXCLUDED.definition
WHERE u.definition IS DISTINCT FROM EXCLUDED.definition
RETURNING 1)sql";

constexpr const char* schedule_sql = R"sql(
INSERT INTO schedule AS s (org_id, name, definition) VALUES ($1, $2, $3::jsonb)
ON CONFLICT (org_id, name) DO UPDATE SET definition = EXCLUDED.definition
WHERE s.definition IS DISTINCT FROM EXCLUDED.definition
RETURNING 1)sql";

// A user as stored: the provisioning shape without the name (the row's key).
std::string user_definition(const user_config& u) {
  rapidjson::StringBuffer out;
  protocol::json_writer w(out);
  w.StartObject();
  w.Key("fullName");
  protocol::write_string(w, u.full_name);
  w.Key("timeZone");
  protocol::write_string(w, u.time_zone);
  w.Key("contacts");
  w.StartArray();
  for (auto& c : u.contacts) {
    w.StartObject();
    w.Key("name");
    protocol::write_string(w, c.name);
    w.Key("channel");
    protocol::write_string(w, c.channel);
    w.Key("to");
    protocol::write_string(w, c.to);
    w.Key("statusUpdates");
    w.Bool(c.status_updates);
    w.EndObject();
  }
  w.EndArray();
  w.Key("rules");
  w.StartArray();
  for (auto& r : u.rules) {
    w.StartObject();
    w.Key("contact");
    protocol::write_string(w, r.contact);
    w.Key("delaySeconds");
    w.Double(r.delay_seconds);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return protocol::to_string(out);
}

// Removes the rows of `table` in the org whose `column` is not in the given list.
size_t prune(connection& c, const char* table, const char* column, int64_t org,
             const std::vector<std::string>& keep) {
  std::string list = "{";
  for (auto& k : keep) {
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
  list += "}";
  auto r = c.query(std::string{"DELETE FROM "} + table + " WHERE org_id = $1 AND NOT (" +
                       column + " = ANY($2::text[])) RETURNING 1",
                   org, list);
  return static_cast<size_t>(r.rows());
}

} // namespace

provision_report apply_provisioning(connection& c, const protocol::provisioning& p) {
  return transaction(c, [&] {
    c.exec(lock_sql);
    provision_report report;
    for (auto& o : p.orgs) {
      auto org_row = c.query(org_sql, o.name);
      int64_t org = org_row.int64(0, 0);
      report.changed_rows += org_row.boolean(0, 1) ? 1 : 0;
      ++report.orgs;

      std::vector<std::string> hashes;
      for (auto& key : o.api_keys) {
        hashes.push_back(sha256_hex(key));
        report.changed_rows +=
            c.query("INSERT INTO api_key (org_id, key_hash) VALUES ($1, $2) "
                    "ON CONFLICT (org_id, key_hash) DO NOTHING RETURNING 1",
                    org, hashes.back())
                .rows();
      }
      report.changed_rows += prune(c, "api_key", "key_hash", org, hashes);

      std::vector<std::string> names;
      for (auto& ch : o.channels) {
        names.push_back(ch.name);
        report.changed_rows +=
            c.query(channel_sql, org, ch.name, ch.type, ch.url, ch.secret, ch.account,
                    ch.from, ch.max_attempts, ch.retry_base_seconds, ch.retry_cap_seconds,
                    ch.timeout_seconds, ch.failover_to, ch.signing_secret)
                .rows();
      }
      report.changed_rows += prune(c, "channel", "name", org, names);
      names.clear();
      for (auto& u : o.users) {
        names.push_back(u.name);
        report.changed_rows += c.query(user_sql, org, u.name, user_definition(u)).rows();
      }
      report.changed_rows += prune(c, "app_user", "name", org, names);
      names.clear();
      for (auto& sch : o.schedules) {
        names.push_back(sch.name);
        report.changed_rows +=
            c.query(schedule_sql, org, sch.name, protocol::render_schedule(sch)).rows();
      }
      report.changed_rows += prune(c, "schedule", "name", org, names);
      names.clear();
      for (auto& pol : o.policies) {
        names.push_back(pol.name);
        report.changed_rows +=
            c.query(policy_sql, org, pol.name, protocol::render_policy(pol)).rows();
      }
      report.changed_rows += prune(c, "policy", "name", org, names);

      names.clear();
      for (auto& in : o.integrations) {
        names.push_back(in.name);
        report.changed_rows += c.query(integration_sql, org, in.name, in.type,
                                       sha256_hex(in.key), in.policy, in.shadow)
                                   .rows();
      }
      report.changed_rows += prune(c, "integration", "name", org, names);
    }
    return report;
  });
}

} // namespace belay::storage
