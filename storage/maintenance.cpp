#include "storage/maintenance.hpp"

#include "storage/audit.hpp"
#include "storage/columns.hpp"
#include "storage/db.hpp"
#include "storage/incident_rows.hpp"

namespace belay::storage {

namespace {

// Every column of a window (storage/columns.hpp).
// clang-format off
#define BELAY_MAINTENANCE_COLUMN_LIST(first, next)                                       \
  first(id, "id")                                                                        \
  next(policy, "coalesce(policy, '')")                                                   \
  next(integration, "coalesce(integration, '')")                                         \
  next(start, "belay_us(start_at)")                                                      \
  next(end, "belay_us(end_at)")                                                          \
  next(reason, "reason")                                                                 \
  next(created_at, "belay_us(created_at)")
// clang-format on
#define BELAY_MAINTENANCE_COLUMNS BELAY_SELECT_LIST(BELAY_MAINTENANCE_COLUMN_LIST)

constexpr auto read_window = BELAY_ROW_READER(BELAY_MAINTENANCE_COLUMN_LIST);

// One statement: the target is checked and the window written together.
const std::string add_sql = R"sql(
INSERT INTO maintenance (org_id, policy, integration, start_at, end_at, reason, created_at)
SELECT $1, NULLIF($2, ''), NULLIF($3, ''), belay_ts($4), belay_ts($5), $6, belay_ts($7)
WHERE EXISTS (SELECT 1 FROM policy WHERE org_id = $1 AND name = $2)
   OR EXISTS (SELECT 1 FROM integration WHERE org_id = $1 AND name = $3)
RETURNING )sql" BELAY_MAINTENANCE_COLUMNS;

const std::string list_sql = R"sql(
SELECT )sql" BELAY_MAINTENANCE_COLUMNS R"sql( FROM maintenance
WHERE org_id = $1 AND end_at > belay_ts($2) ORDER BY start_at, id LIMIT 1000)sql";

const std::string end_sql = R"sql(
UPDATE maintenance SET end_at = belay_ts($3), start_at = least(start_at, belay_ts($3))
WHERE org_id = $1 AND id = $2 AND end_at > belay_ts($3) RETURNING 1)sql";

// $1 org, $2 id, $3 version, $4 now, $5 the first step's delay, $6 policy,
// $7 integration.
const std::string resume_sql = R"sql(
WITH w AS (
  SELECT max(end_at) AS until FROM maintenance
  WHERE org_id = $1 AND end_at > belay_ts($4) AND start_at <= belay_ts($4)
    AND (policy = $6 OR integration = $7)
), cas AS (
  UPDATE incident SET held_until = w.until,
         next_fire_at = coalesce(w.until, belay_ts($4::bigint + $5::bigint)),
         version = version + 1
  FROM w
  WHERE org_id = $1 AND id = $2::bigint AND status = 'OPEN' AND version = $3::bigint
    AND held_until IS NOT NULL AND w.until IS DISTINCT FROM held_until
  RETURNING )sql" BELAY_INCIDENT_COLUMNS R"sql(
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT cas.org_id, cas.id, belay_ts($4), 'maintenance_ended',
         jsonb_build_object('restartsAt', to_char(belay_ts($4::bigint + $5::bigint)
                                                  AT TIME ZONE 'UTC',
                                                  'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
  FROM cas WHERE NOT EXISTS (SELECT 1 FROM w WHERE w.until IS NOT NULL)
)
SELECT * FROM cas)sql";

} // namespace

std::optional<protocol::maintenance_window>
add_maintenance(connection& c, int64_t org_id, const protocol::maintenance_window& m,
                micros now, const attribution& who) {
  return audited(c, who, [&]() -> std::optional<protocol::maintenance_window> {
    auto r =
        c.query(add_sql, org_id, m.policy, m.integration, m.start, m.end, m.reason, now);
    if (r.rows() == 0)
      return std::nullopt;
    auto window = read_row<protocol::maintenance_window>(r, 0, read_window);
    if (!who.actor.empty())
      append_audit(c, audit_row(who, now, org_id, "maintenance.create", "maintenance",
                                std::to_string(window.id),
                                protocol::render_maintenance(window)));
    return window;
  });
}

std::vector<protocol::maintenance_window> list_maintenance(connection& c, int64_t org_id,
                                                           micros now) {
  return read_rows<protocol::maintenance_window>(c.query(list_sql, org_id, now),
                                                 read_window);
}

bool end_maintenance(connection& c, int64_t org_id, int64_t id, micros now,
                     const attribution& who) {
  return audited(c, who, [&] {
    bool ended = c.query(end_sql, org_id, id, now).rows() == 1;
    if (ended && !who.actor.empty())
      append_audit(c, audit_row(who, now, org_id, "maintenance.end", "maintenance",
                                std::to_string(id)));
    return ended;
  });
}

std::optional<incident_record> resume_held(connection& c, const resume_event& e) {
  auto r = c.query(resume_sql, e.org_id, std::to_string(e.id), std::to_string(e.version),
                   e.at, std::to_string(e.first_delay), e.policy, e.integration);
  if (r.rows() == 0)
    return std::nullopt;
  return read_held(r, 0).incident;
}

} // namespace belay::storage
