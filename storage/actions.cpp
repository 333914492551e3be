#include "storage/actions.hpp"

#include "protocol/json_writer.hpp"
#include "protocol/ladder.hpp"
#include "protocol/limits.hpp"
#include "protocol/policy_json.hpp"
#include "protocol/time.hpp"
#include "storage/audit.hpp"
#include "storage/db.hpp"
#include "storage/incident_rows.hpp"
#include "storage/incidents.hpp"

namespace belay::storage {

namespace {

// The incident, locked until the transaction ends: an action decides from the row as it
// stands, and a step's compare-and-set racing it waits, then misses (version).
const std::string lock_sql = R"sql(
SELECT )sql" BELAY_INCIDENT_COLUMNS R"sql( FROM incident
WHERE org_id = $1 AND id = $2::bigint FOR UPDATE)sql";

// $1 org, $2 id, $3 now, $4 kind, $5 detail (a JSON object).
const std::string note_sql = R"sql(
INSERT INTO timeline (org_id, incident_id, at, kind, detail)
VALUES ($1, $2::bigint, belay_ts($3::bigint), $4, $5::jsonb))sql";

const std::string count_notes_sql = R"sql(
SELECT count(*) FROM timeline
WHERE org_id = $1 AND incident_id = $2::bigint AND kind = 'note_added')sql";

// Delivered at commit to every node: the one holding the incident follows it
// (docs/architecture.md#ownership).
const std::string announce_sql = "SELECT pg_notify($1, $2)";

// Escalate: the step the incident stands on is due now; an acknowledged (or snoozed)
// incident is OPEN again. $1 org, $2 id, $3 now.
const std::string escalate_sql = R"sql(
UPDATE incident SET status = 'OPEN', next_fire_at = belay_ts($3::bigint),
       acked_at = NULL, acked_by = NULL, acked_via = NULL, snoozed_until = NULL,
       version = version + 1
WHERE org_id = $1 AND id = $2::bigint
RETURNING )sql" BELAY_INCIDENT_COLUMNS;

// Snooze: $3 until. next_fire_at holds it too, for the orphan sweep.
const std::string snooze_sql = R"sql(
UPDATE incident SET snoozed_until = belay_ts($3::bigint), next_fire_at = belay_ts($3::bigint),
       version = version + 1
WHERE org_id = $1 AND id = $2::bigint
RETURNING )sql" BELAY_INCIDENT_COLUMNS;

// Reassign: a new ladder from its first step, with keys of its own (restarts), due after
// its first delay; the old ladder's pages nobody has claimed are cancelled. $3 now, $4
// the policy's name (NULL: unchanged), $5 assigned_to, $6 the ladder, $7 the first delay.
const std::string reassign_sql = R"sql(
WITH cas AS (
  UPDATE incident SET status = 'OPEN', policy = coalesce($4, policy), assigned_to = $5,
         ladder = $6::jsonb, current_step = 0, loop = 0, restarts = restarts + 1,
         next_fire_at = belay_ts($3::bigint + $7::bigint), acked_at = NULL,
         acked_by = NULL, acked_via = NULL, exhausted_at = NULL, held_until = NULL,
         snoozed_until = NULL, version = version + 1
  WHERE org_id = $1 AND id = $2::bigint
  RETURNING )sql" BELAY_INCIDENT_COLUMNS R"sql(
), cancelled AS (
  UPDATE delivery d SET status = 'CANCELLED' FROM cas
  WHERE d.org_id = cas.org_id AND d.incident_id = cas.id AND d.status = 'PENDING'
    AND d.update_of IS NULL
  RETURNING d.id
)
SELECT *, (SELECT count(*) FROM cancelled) AS cancelled FROM cas)sql";

const std::string priority_sql = R"sql(
UPDATE incident SET priority = nullif($3, '')
WHERE org_id = $1 AND id = $2::bigint
RETURNING )sql" BELAY_INCIDENT_COLUMNS;

const std::string policy_sql =
    "SELECT definition::text FROM policy WHERE org_id = $1 AND name = $2";
const std::string user_exists_sql =
    "SELECT count(*) FROM app_user WHERE org_id = $1 AND name = $2";
const std::string schedule_exists_sql =
    "SELECT count(*) FROM schedule WHERE org_id = $1 AND name = $2";

// The end of a snooze: $1 org, $2 id, $3 version, $4 the first delay, $5 now.
const std::string end_snooze_sql = R"sql(
WITH cas AS (
  UPDATE incident SET status = 'OPEN', current_step = 0, loop = 0,
         restarts = restarts + 1, next_fire_at = belay_ts($5::bigint + $4::bigint),
         snoozed_until = NULL, acked_at = NULL, acked_by = NULL, acked_via = NULL,
         exhausted_at = NULL, version = version + 1
  WHERE org_id = $1 AND id = $2::bigint AND status = 'ACKNOWLEDGED'
    AND version = $3::bigint AND snoozed_until <= belay_ts($5::bigint)
  RETURNING )sql" BELAY_INCIDENT_COLUMNS R"sql(
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT cas.org_id, cas.id, belay_ts($5::bigint), 'snooze_ended', '{}'::jsonb FROM cas
)
SELECT * FROM cas)sql";

std::string quoted(const std::string& text) {
  rapidjson::StringBuffer buffer;
  protocol::json_writer w(buffer);
  protocol::write_string(w, text);
  return protocol::to_string(buffer);
}

// {"by":…,"via":…} and the members `more` adds (",\"key\":value" each).
std::string detail(const incident_action& a, const std::string& more = "") {
  return "{\"by\":" + quoted(a.who.actor) + ",\"via\":" + quoted(a.who.via) + more + "}";
}

action_reply refused(reply_code code, const held_incident& h, std::string error,
                     std::string message, std::string field = {}) {
  return {code, h, std::move(error), std::move(message), std::move(field)};
}

std::string name_of(const incident_record& r) {
  return "incident " + std::to_string(r.id);
}

// The row of a statement that answered BELAY_INCIDENT_COLUMNS, ladder included.
held_incident row_of(const result& r) {
  return read_held(r, 0);
}

class action_writer {
public:
  action_writer(connection& c, const incident_action& a, micros now, held_incident h)
      : c_(c), a_(a), now_(now), before_(std::move(h)) {}

  action_reply run() {
    switch (a_.verb) {
    case incident_verb::note:
      return note();
    case incident_verb::escalate:
      return escalate();
    case incident_verb::snooze:
      return snooze();
    case incident_verb::reassign:
      return reassign();
    case incident_verb::priority:
      return priority();
    }
    return refused(reply_code::invalid, before_, "invalid_value", "unknown action");
  }

private:
  const incident_record& rec() const { return before_.incident; }
  std::string id() const { return std::to_string(rec().id); }

  // The timeline entry, the audit row and, for a change the ladder must follow, the
  // announcement.
  void record(const char* kind, const std::string& timeline_detail, const char* action,
              const std::string& changes, bool announce) {
    c_.query(note_sql, a_.org_id, id(), now_, kind, timeline_detail);
    append_audit(c_,
                 audit_row(a_.who, now_, a_.org_id, action, "incident", id(), changes));
    if (announce)
      c_.query(announce_sql, incident_channel, std::to_string(a_.org_id) + " " + id());
  }

  action_reply note() {
    if (c_.query(count_notes_sql, a_.org_id, id()).int64(0, 0) >= protocol::max_notes)
      return refused(reply_code::conflict, before_, "too_many_notes",
                     name_of(rec()) + " has " + std::to_string(protocol::max_notes) +
                         " notes, the most it keeps");
    auto text = ",\"text\":" + quoted(a_.text);
    record("note_added", detail(a_, text), "incident.note", "{" + text.substr(1) + "}",
           false);
    return {reply_code::ok, before_};
  }

  // Whether a ladder's next step exists: the grace period after the last one has none.
  bool has_next_step() const {
    return rec().current_step < static_cast<int>(before_.ladder->steps.size());
  }

  action_reply escalate() {
    auto& status = rec().status;
    if (status == status_resolved)
      return refused(reply_code::conflict, before_, "invalid_transition",
                     name_of(rec()) + " is RESOLVED");
    if (status == status_exhausted || !has_next_step())
      return refused(reply_code::conflict, before_, "no_next_step",
                     name_of(rec()) + " has fired every step of its ladder");
    if (rec().held_until)
      return refused(reply_code::conflict, before_, "in_maintenance",
                     name_of(rec()) + " is held by a maintenance window until " +
                         protocol::rfc3339(*rec().held_until));
    auto after = row_of(c_.query(escalate_sql, a_.org_id, id(), now_));
    auto step = ",\"step\":" + std::to_string(rec().current_step) +
                ",\"loop\":" + std::to_string(rec().loop) + ",\"from\":" + quoted(status);
    record("escalated", detail(a_, step), "incident.escalate", "{" + step.substr(1) + "}",
           true);
    return {reply_code::ok, std::move(after)};
  }

  action_reply snooze() {
    if (rec().status != status_acknowledged)
      return refused(reply_code::conflict, before_, "not_acknowledged",
                     "only an acknowledged incident can be snoozed; " + name_of(rec()) +
                         " is " + rec().status);
    auto after = row_of(c_.query(snooze_sql, a_.org_id, id(), a_.until));
    auto until = ",\"until\":" + quoted(protocol::rfc3339(a_.until));
    record("snoozed", detail(a_, until), "incident.snooze", "{" + until.substr(1) + "}",
           true);
    return {reply_code::ok, std::move(after)};
  }

  // The ladder a reassign starts: the policy's, or one step paging the person or whoever
  // is on call on the schedule.
  std::optional<std::string> new_ladder(action_reply& refusal) {
    if (!a_.policy.empty()) {
      auto r = c_.query(policy_sql, a_.org_id, a_.policy);
      if (r.rows() == 1)
        return r.str(0, 0);
      refusal = refused(reply_code::invalid, before_, "unknown_policy",
                        "no policy named '" + a_.policy + "'", "policy");
      return std::nullopt;
    }
    bool user = !a_.user.empty();
    auto& name = user ? a_.user : a_.schedule;
    if (c_.query(user ? user_exists_sql : schedule_exists_sql, a_.org_id, name)
            .int64(0, 0) == 0) {
      refusal = refused(
          reply_code::invalid, before_, user ? "unknown_user" : "unknown_schedule",
          std::string{"no "} + (user ? "user" : "schedule") + " named '" + name + "'",
          user ? "user" : "schedule");
      return std::nullopt;
    }
    belay::policy p;
    p.name = std::string{user ? "user:" : "schedule:"} + name;
    target t;
    (user ? t.user : t.schedule) = name;
    p.steps.push_back({0, {t}});
    return protocol::render_policy(p);
  }

  action_reply reassign() {
    if (rec().status == status_resolved)
      return refused(reply_code::conflict, before_, "invalid_transition",
                     name_of(rec()) + " is RESOLVED");
    action_reply refusal;
    auto ladder = new_ladder(refusal);
    if (!ladder)
      return refusal;
    auto parsed = protocol::parse_policy(*ladder);
    if (!std::holds_alternative<belay::policy>(parsed))
      throw db_error("the ladder of a reassign does not read back", "");
    auto first_delay =
        seconds_to_micros(std::get<belay::policy>(parsed).steps.front().delay_seconds);
    std::string assigned, to;
    if (!a_.user.empty())
      assigned = "user:" + a_.user, to = ",\"user\":" + quoted(a_.user);
    else if (!a_.schedule.empty())
      assigned = "schedule:" + a_.schedule, to = ",\"schedule\":" + quoted(a_.schedule);
    else
      to = ",\"policy\":" + quoted(a_.policy);
    auto r = c_.query(reassign_sql, a_.org_id, id(), now_,
                      a_.policy.empty() ? std::nullopt : std::optional{a_.policy},
                      assigned.empty() ? std::nullopt : std::optional{assigned}, *ladder,
                      first_delay);
    auto after = row_of(r);
    auto cancelled = ",\"cancelledDeliveries\":" + r.str(0, r.column("cancelled"));
    record("reassigned", detail(a_, to + cancelled), "incident.reassign",
           "{" + to.substr(1) + "}", true);
    return {reply_code::ok, std::move(after)};
  }

  action_reply priority() {
    if (rec().priority == a_.priority)
      return {reply_code::unchanged, before_};
    auto after = row_of(c_.query(priority_sql, a_.org_id, id(), a_.priority));
    auto value = [](const std::string& p) { return p.empty() ? "null" : quoted(p); };
    auto change = ",\"from\":" + value(rec().priority) + ",\"to\":" + value(a_.priority);
    record("priority_changed", detail(a_, change), "incident.priority",
           "{" + change.substr(1) + "}", false);
    return {reply_code::ok, std::move(after)};
  }

  connection& c_;
  const incident_action& a_;
  micros now_;
  held_incident before_;
};

} // namespace

action_reply apply_action(connection& c, const incident_action& a, micros now) {
  // Every refusal is decided before the first write: a refused action writes nothing.
  return transaction(c, [&]() -> action_reply {
    auto r = c.query(lock_sql, a.org_id, std::to_string(a.incident_id));
    if (r.rows() == 0)
      return {reply_code::not_found, {}};
    return action_writer{c, a, now, read_held(r, 0)}.run();
  });
}

std::optional<incident_record> end_snooze(connection& c, int64_t org_id, int64_t id,
                                          int64_t version, micros first_delay,
                                          micros now) {
  auto r = c.query(end_snooze_sql, org_id, std::to_string(id), std::to_string(version),
                   std::to_string(first_delay), now);
  if (r.rows() == 0)
    return std::nullopt;
  return read_held(r, 0).incident;
}

} // namespace belay::storage
