#include "storage/schedules.hpp"

#include "protocol/json_document.hpp"
#include "protocol/oncall_json.hpp"
#include "protocol/schedule_json.hpp"
#include "storage/audit.hpp"
#include "storage/columns.hpp"
#include "storage/db.hpp"

#include <spdlog/spdlog.h>

namespace belay::storage {

namespace {

// Every column of an override (storage/columns.hpp).
// clang-format off
#define BELAY_OVERRIDE_COLUMN_LIST(first, next)                                          \
  first(id, "id")                                                                        \
  next(user, "user_name")                                                                \
  next(replaces, "replaces")                                                             \
  next(start, "belay_us(start_at)")                                                      \
  next(end, "belay_us(end_at)")                                                          \
  next(created_at, "belay_us(created_at)")
// clang-format on
#define BELAY_OVERRIDE_COLUMNS BELAY_SELECT_LIST(BELAY_OVERRIDE_COLUMN_LIST)

constexpr auto read_override = BELAY_ROW_READER(BELAY_OVERRIDE_COLUMN_LIST);

// The overrides of schedule $2 that overlap [$3, $4).
const std::string overrides_sql = R"sql(
SELECT )sql" BELAY_OVERRIDE_COLUMNS R"sql( FROM schedule_override
WHERE org_id = $1 AND schedule = $2 AND end_at > belay_ts($3) AND start_at < belay_ts($4)
ORDER BY created_at, id)sql";

const std::string add_override_sql = R"sql(
INSERT INTO schedule_override (org_id, schedule, user_name, replaces, start_at, end_at,
                               created_at)
VALUES ($1, $2, $3, NULLIF($4, ''), belay_ts($5), belay_ts($6), belay_ts($7))
RETURNING )sql" BELAY_OVERRIDE_COLUMNS;

const std::string delete_override_sql = R"sql(
DELETE FROM schedule_override WHERE org_id = $1 AND schedule = $2 AND id = $3
RETURNING 1)sql";

std::optional<protocol::schedule> schedule_of(const result& r, int row) {
  auto parsed = protocol::parse_schedule(r.text(row, 0));
  if (auto* s = std::get_if<protocol::schedule>(&parsed))
    return std::move(*s);
  // Written by provisioning, which checked it: only a tz database that lost a zone
  // gets here.
  spdlog::error("schedule stored unreadable: {}",
                std::get<protocol::error>(parsed).message);
  return std::nullopt;
}

// A user as provisioning stored it (storage/provision.cpp), read back.
user_config user_of(std::string name, std::string_view definition) {
  user_config u;
  u.name = std::move(name);
  rapidjson::Document doc;
  if (protocol::parse_json(doc, definition, "user") || !doc.IsObject())
    return u;
  auto text = [](const rapidjson::Value& o, const char* key) {
    auto m = o.FindMember(key);
    return m != o.MemberEnd() && m->value.IsString()
               ? std::string{protocol::string_view_of(m->value)}
               : std::string{};
  };
  u.full_name = text(doc, "fullName");
  u.time_zone = text(doc, "timeZone");
  if (auto c = doc.FindMember("contacts"); c != doc.MemberEnd() && c->value.IsArray())
    for (auto& v : c->value.GetArray()) {
      auto updates = v.FindMember("statusUpdates");
      u.contacts.push_back({text(v, "name"), text(v, "channel"), text(v, "to"),
                            updates != v.MemberEnd() && updates->value.IsTrue()});
    }
  if (auto r = doc.FindMember("rules"); r != doc.MemberEnd() && r->value.IsArray())
    for (auto& v : r->value.GetArray()) {
      auto delay = v.FindMember("delaySeconds");
      u.rules.push_back(
          {text(v, "contact"), delay != v.MemberEnd() && delay->value.IsNumber()
                                   ? delay->value.GetDouble()
                                   : 0.0});
    }
  return u;
}

} // namespace

protocol::org_people load_people(connection& c, int64_t org_id, micros at) {
  protocol::org_people people;
  auto users =
      c.query("SELECT name, definition::text FROM app_user WHERE org_id = $1", org_id);
  for (int i = 0; i < users.rows(); ++i)
    people.users[users.str(i, 0)] = user_of(users.str(i, 0), users.text(i, 1));
  for (auto& s : load_schedules(c, org_id)) {
    people.overrides[s.name] =
        load_overrides(c, org_id, s.name, at - protocol::on_call_search_limit,
                       at + protocol::on_call_search_limit);
    people.schedules[s.name] = std::move(s);
  }
  return people;
}

std::vector<user_config> load_users(connection& c, int64_t org_id) {
  auto r =
      c.query("SELECT name, definition::text, role, coalesce(login, '') FROM app_user "
              "WHERE org_id = $1 ORDER BY name",
              org_id);
  std::vector<user_config> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back(user_of(r.str(i, 0), r.text(i, 1)));
    out.back().role =
        protocol::parse_role(r.text(i, 2)).value_or(protocol::role::responder);
    out.back().login = r.str(i, 3);
  }
  return out;
}

std::vector<protocol::schedule> load_schedules(connection& c, int64_t org_id) {
  auto r = c.query(
      "SELECT definition::text FROM schedule WHERE org_id = $1 ORDER BY name", org_id);
  std::vector<protocol::schedule> out;
  for (int i = 0; i < r.rows(); ++i)
    if (auto s = schedule_of(r, i))
      out.push_back(std::move(*s));
  return out;
}

std::optional<protocol::schedule> load_schedule(connection& c, int64_t org_id,
                                                const std::string& name) {
  auto r =
      c.query("SELECT definition::text FROM schedule WHERE org_id = $1 AND name = $2",
              org_id, name);
  if (r.rows() == 0)
    return std::nullopt;
  return schedule_of(r, 0);
}

std::set<std::string> user_names(connection& c, int64_t org_id) {
  auto r = c.query("SELECT name FROM app_user WHERE org_id = $1", org_id);
  std::set<std::string> out;
  for (int i = 0; i < r.rows(); ++i)
    out.insert(r.str(i, 0));
  return out;
}

std::vector<protocol::schedule_override> load_overrides(connection& c, int64_t org_id,
                                                        const std::string& schedule,
                                                        micros from, micros to) {
  return read_rows<protocol::schedule_override>(
      c.query(overrides_sql, org_id, schedule, from, to), read_override);
}

protocol::schedule_override add_override(connection& c, int64_t org_id,
                                         const std::string& schedule,
                                         protocol::schedule_override o, micros now,
                                         const attribution& who) {
  return audited(c, who, [&] {
    auto r = c.query(add_override_sql, org_id, schedule, o.user, o.replaces.value_or(""),
                     o.start, o.end, now);
    auto stored = read_row<protocol::schedule_override>(r, 0, read_override);
    if (!who.actor.empty())
      append_audit(c, audit_row(who, now, org_id, "override.create", "override",
                                schedule + "/" + std::to_string(stored.id),
                                protocol::render_override(schedule, stored)));
    return stored;
  });
}

bool delete_override(connection& c, int64_t org_id, const std::string& schedule,
                     int64_t id, micros now, const attribution& who) {
  return audited(c, who, [&] {
    bool gone = c.query(delete_override_sql, org_id, schedule, id).rows() == 1;
    if (gone && !who.actor.empty())
      append_audit(c, audit_row(who, now, org_id, "override.delete", "override",
                                schedule + "/" + std::to_string(id)));
    return gone;
  });
}

} // namespace belay::storage
