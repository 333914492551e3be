#include "storage/answers.hpp"

#include "storage/incident_rows.hpp"
#include "storage/statements.hpp"

namespace belay::storage {

namespace {

const std::string delivery_sql =
    "SELECT org_id, id, incident_id, channel, target, coalesce(user_name, '') "
    "FROM delivery WHERE id = $1";

#define BELAY_CHANNEL_SQL(where)                                                         \
  "SELECT org_id, name, type, url, secret, account, sender, signing_secret "             \
  "FROM channel WHERE " where " ORDER BY org_id, name"

const std::string channels_sql = BELAY_CHANNEL_SQL("type = $1 AND sender = $2");
const std::string channel_sql = BELAY_CHANNEL_SQL("org_id = $1 AND name = $2");

std::vector<channel_config> read_channels(const result& r) {
  std::vector<channel_config> out;
  for (int i = 0; i < r.rows(); ++i) {
    channel_config ch;
    ch.org_id = r.int64(i, 0);
    ch.name = r.str(i, 1);
    ch.type = r.str(i, 2);
    ch.url = r.str(i, 3);
    ch.secret = r.str(i, 4);
    ch.account = r.str(i, 5);
    ch.from = r.str(i, 6);
    ch.signing_secret = r.str(i, 7);
    out.push_back(std::move(ch));
  }
  return out;
}

// The latest attempted delivery to the address names the person; a page never tried
// (still pending, cancelled, shadowed) did not reach anyone. The lateral subquery
// exposes only user_name, so the incident's columns stay unqualified.
#define BELAY_PAGED_SQL(which)                                                           \
  "SELECT " BELAY_INCIDENT_COLUMNS_BUT_LADDER ", NULL::text, paged.user_name "           \
  "FROM incident i JOIN LATERAL (SELECT coalesce(d.user_name, '') AS user_name "         \
  "FROM delivery d WHERE d.org_id = i.org_id AND d.incident_id = i.id "                  \
  "AND d.target = $2 AND d.attempts > 0 ORDER BY d.id DESC LIMIT 1) paged ON true "      \
  "WHERE i.org_id = $1 AND " which " ORDER BY i.id DESC LIMIT 1"

const std::string paged_by_id_sql = BELAY_PAGED_SQL("i.id = $3::bigint");
const std::string latest_paged_sql = BELAY_PAGED_SQL("i.status <> 'RESOLVED'");

} // namespace

std::string load_signing_secret(connection& c) {
  auto r = c.exec("SELECT secret FROM signing_secret WHERE id = 1");
  if (r.rows() == 0)
    throw db_error("the database has no signing secret (migration 0013_answers)", "");
  return r.str(0, 0);
}

std::optional<answered_delivery> load_answered_delivery(connection& c,
                                                        int64_t delivery_id) {
  auto r = c.query(delivery_sql, delivery_id);
  if (r.rows() == 0)
    return std::nullopt;
  return answered_delivery{r.int64(0, 0), r.int64(0, 1), r.int64(0, 2),
                           r.str(0, 3),   r.str(0, 4),   r.str(0, 5)};
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
  auto person = r.str(0, incident_column_count);
  return paged_incident{read_held(r, 0).incident, person.empty() ? address : person};
}

std::vector<named_statement> answer_statements() {
  return {{"paged_incident_by_id", paged_by_id_sql},
          {"paged_incident_latest", latest_paged_sql}};
}

} // namespace belay::storage
