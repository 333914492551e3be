#include "storage/answers.hpp"

#include "storage/channel_rows.hpp"
#include "storage/incident_rows.hpp"
#include "storage/sealed.hpp"
#include "storage/statements.hpp"

namespace belay::storage {

namespace {

// clang-format off
#define BELAY_ANSWERED_DELIVERY_COLUMN_LIST(first, next)                                 \
  first(org_id, "org_id")                                                                \
  next(id, "id")                                                                         \
  next(incident_id, "incident_id")                                                       \
  next(channel, "channel")                                                               \
  next(target, "target")                                                                 \
  next(user, "coalesce(user_name, '')")
// clang-format on

// A disabled org answers nothing: its links find no page, its channels verify no reply
// (docs/guarantees.md#provisioning-fails-closed).
#define BELAY_ORG_ENABLED "org_id IN (SELECT id FROM org WHERE disabled_at IS NULL)"

const std::string delivery_sql = R"sql(
SELECT )sql" BELAY_SELECT_LIST(BELAY_ANSWERED_DELIVERY_COLUMN_LIST) R"sql(
FROM delivery WHERE id = $1 AND )sql" BELAY_ORG_ENABLED;

const std::string channels_sql = R"sql(
SELECT )sql" BELAY_CHANNEL_COLUMNS R"sql( FROM channel
WHERE type = $1 AND sender = $2 AND )sql" BELAY_ORG_ENABLED
                                 R"sql( ORDER BY org_id, name)sql";
const std::string channel_sql = R"sql(
SELECT )sql" BELAY_CHANNEL_COLUMNS R"sql( FROM channel
WHERE org_id = $1 AND name = $2 AND )sql" BELAY_ORG_ENABLED
                                R"sql( ORDER BY org_id, name)sql";

// The latest attempted delivery to the address names the person; a page never tried
// (still pending, cancelled, shadowed) did not reach anyone. The lateral subquery
// exposes only user_name, so the incident's columns stay unqualified.
// $1 org, $2 address, and {{which}} incident: $3 by id, or the latest unresolved.
constexpr std::string_view paged_text = R"sql(
SELECT )sql" BELAY_INCIDENT_COLUMNS_BUT_LADDER R"sql(, NULL::text, paged.user_name
FROM incident i JOIN LATERAL (
  SELECT coalesce(d.user_name, '') AS user_name FROM delivery d
  WHERE d.org_id = i.org_id AND d.incident_id = i.id AND d.target = $2 AND d.attempts > 0
  ORDER BY d.id DESC LIMIT 1) paged ON true
WHERE i.org_id = $1 AND {{which}} ORDER BY i.id DESC LIMIT 1)sql";

const std::string paged_by_id_sql = fill(paged_text, {{"which", "i.id = $3::bigint"}});
const std::string latest_paged_sql =
    fill(paged_text, {{"which", "i.status <> 'RESOLVED'"}});

} // namespace

std::string load_signing_secret(connection& c) {
  auto r = c.exec("SELECT secret FROM signing_secret WHERE id = 1");
  if (r.rows() == 0)
    throw db_error("the database has no signing secret (migration 0013_answers)", "");
  return open(process_keyring(), r.str(0, 0));
}

std::optional<answered_delivery> load_answered_delivery(connection& c,
                                                        int64_t delivery_id) {
  auto r = c.query(delivery_sql, delivery_id);
  if (r.rows() == 0)
    return std::nullopt;
  return read_row<answered_delivery>(
      r, 0, BELAY_ROW_READER(BELAY_ANSWERED_DELIVERY_COLUMN_LIST));
}

std::vector<channel_config> channels_sending_from(connection& c, const std::string& type,
                                                  const std::string& from) {
  return read_channels(c.query(channels_sql, type, from));
}

std::optional<channel_config> channel_named(connection& c, int64_t org_id,
                                            const std::string& name) {
  auto found = read_channels(c.query(channel_sql, org_id, name));
  if (found.empty())
    return std::nullopt;
  return std::move(found.front());
}

std::optional<paged_incident> incident_paged(connection& c, int64_t org_id,
                                             const std::string& address,
                                             int64_t incident_id) {
  auto r = incident_id != 0 ? c.query(paged_by_id_sql, org_id, address, incident_id)
                            : c.query(latest_paged_sql, org_id, address);
  if (r.rows() == 0)
    return std::nullopt;
  auto person = r.str(0, r.column("user_name"));
  return paged_incident{read_held(r, 0).incident, person.empty() ? address : person};
}

bool first_use_of_message(connection& c, int64_t org_id, const std::string& sid,
                          micros now) {
  return c.query(R"sql(
INSERT INTO inbound_message (org_id, sid, received_at) VALUES ($1, $2, belay_ts($3))
ON CONFLICT DO NOTHING RETURNING 1)sql",
                 org_id, sid, now)
             .rows() == 1;
}

void release_message(connection& c, int64_t org_id, const std::string& sid) {
  c.query("DELETE FROM inbound_message WHERE org_id = $1 AND sid = $2", org_id, sid);
}

void forget_inbound_messages(connection& c, micros before) {
  c.query("DELETE FROM inbound_message WHERE received_at < belay_ts($1)", before);
}

std::vector<named_statement> answer_statements() {
  return {{"paged_incident_by_id", paged_by_id_sql},
          {"paged_incident_latest", latest_paged_sql}};
}

} // namespace belay::storage
