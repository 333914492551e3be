#include "storage/org_config.hpp"

#include "protocol/policy_json.hpp"
#include "storage/channel_rows.hpp"
#include "storage/db.hpp"
#include "storage/identities.hpp"
#include "storage/schedules.hpp"

#include <spdlog/spdlog.h>

namespace belay::storage {

// A JSON array of strings (array_to_json of a text[]) into its strings
// (storage/keys.cpp).
void read_column(const result& r, int row, int col, std::vector<std::string>& out);

// The channel row, its secrets replaced by '<set>' (empty ones stay empty) before the
// columns are selected: the shared column list reads it.
const std::string shown_channels_sql = R"sql(
SELECT )sql" BELAY_CHANNEL_COLUMNS R"sql( FROM (
  SELECT (jsonb_populate_record(c, jsonb_build_object(
            'secret', CASE WHEN c.secret <> '' THEN '<set>' ELSE '' END,
            'signing_secret', CASE WHEN c.signing_secret <> '' THEN '<set>' ELSE '' END))).*
  FROM channel c WHERE c.org_id = $1) AS channel
ORDER BY name)sql";

constexpr const char* policies_sql =
    "SELECT definition::text FROM policy WHERE org_id = $1 ORDER BY name";

constexpr const char* heartbeats_sql = R"sql(
SELECT name, policy, period_seconds, grace_seconds, alert_if_never_pinged
FROM heartbeat WHERE org_id = $1 ORDER BY name)sql";

constexpr const char* integrations_sql = R"sql(
SELECT name, type, policy, shadow, rate_limit_per_minute, heartbeat,
       array_to_json(group_by)::text
FROM integration WHERE org_id = $1 ORDER BY name)sql";

constexpr const char* api_key_count_sql =
    "SELECT count(*) FROM api_key WHERE org_id = $1 AND name IS NULL";
constexpr const char* named_keys_sql = "SELECT name, scope FROM api_key WHERE org_id = "
                                       "$1 AND name IS NOT NULL ORDER BY name";

std::optional<std::string> org_name(connection& c, int64_t org_id) {
  auto r = c.query("SELECT name FROM org WHERE id = $1", org_id);
  if (r.rows() == 0)
    return std::nullopt;
  return r.str(0, 0);
}

protocol::provisioned_org load_org_config(connection& c, int64_t org_id) {
  protocol::provisioned_org o;
  o.name = org_name(c, org_id).value_or("");
  const std::string kept{protocol::stored_secret};
  o.api_keys.assign(c.query(api_key_count_sql, org_id).int64(0, 0), kept);
  auto named = c.query(named_keys_sql, org_id);
  for (int i = 0; i < named.rows(); ++i)
    o.named_keys.push_back(
        {named.str(i, 0), kept,
         protocol::parse_scope(named.text(i, 1)).value_or(protocol::role::viewer)});
  o.auth = load_org_auth(c, org_id);
  if (o.auth.oidc.configured())
    o.auth.oidc.client_secret = kept;
  o.channels = read_channels(c.query(shown_channels_sql, org_id));
  for (auto& ch : o.channels)
    ch.org_id = 0; // the document's channels carry no org id
  o.users = load_users(c, org_id);
  o.schedules = load_schedules(c, org_id);
  auto policies = c.query(policies_sql, org_id);
  for (int i = 0; i < policies.rows(); ++i) {
    auto parsed = protocol::parse_policy(policies.text(i, 0));
    if (auto* p = std::get_if<belay::policy>(&parsed))
      o.policies.push_back(std::move(*p));
    else // written by provisioning, which checked it
      spdlog::error("policy stored unreadable: {}",
                    std::get<protocol::error>(parsed).message);
  }
  auto heartbeats = c.query(heartbeats_sql, org_id);
  for (int i = 0; i < heartbeats.rows(); ++i)
    o.heartbeats.push_back({heartbeats.str(i, 0), kept, heartbeats.float8(i, 2),
                            heartbeats.float8(i, 3), heartbeats.str(i, 1),
                            heartbeats.boolean(i, 4)});
  auto integrations = c.query(integrations_sql, org_id);
  for (int i = 0; i < integrations.rows(); ++i) {
    protocol::provisioned_integration in;
    in.name = integrations.str(i, 0);
    in.type = integrations.str(i, 1);
    in.key = kept;
    in.policy = integrations.str(i, 2);
    in.shadow = integrations.boolean(i, 3);
    in.rate_limit_per_minute = static_cast<int>(integrations.int64(i, 4));
    in.heartbeat = integrations.str(i, 5);
    read_column(integrations, i, 6, in.group_by);
    o.integrations.push_back(std::move(in));
  }
  return o;
}

} // namespace belay::storage
