#include "storage/actions.hpp"

#include "protocol/json_writer.hpp"
#include "protocol/ladder.hpp"
#include "protocol/limits.hpp"
#include "protocol/paging.hpp"
#include "protocol/policy_json.hpp"
#include "protocol/time.hpp"
#include "storage/audit.hpp"
#include "storage/db.hpp"
#include "storage/incident_rows.hpp"
#include "storage/incidents.hpp"
#include "storage/merges.hpp"
#include "storage/schedules.hpp"
#include "storage/statements.hpp"
#include "storage/test_hooks.hpp"

#include <algorithm>

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
// The first of the names $2 (text[]) that `{{table}}` of org $1 does not hold: its
// position from 1, or no row.
constexpr std::string_view missing_text = R"sql(
SELECT n.i FROM unnest($2::text[]) WITH ORDINALITY AS n(name, i)
WHERE NOT EXISTS (SELECT 1 FROM {{table}} t WHERE t.org_id = $1 AND t.name = n.name)
ORDER BY n.i LIMIT 1)sql";
const std::string missing_user_sql = fill(missing_text, {{"table", "app_user"}});
const std::string missing_schedule_sql = fill(missing_text, {{"table", "schedule"}});
const std::string missing_channel_sql = fill(missing_text, {{"table", "channel"}});

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

// How many times the incident's timeline has `kind` already: the round of a new request's
// idempotency keys.
const std::string count_kind_sql = R"sql(
SELECT count(*) FROM timeline WHERE org_id = $1 AND incident_id = $2::bigint AND kind = $3)sql";

// A page or a status update written by an action: $1 org, $2 incident, $3 loop, $4 step,
// $5 channel, $6 to, $7 key, $8 due, $9 now, $10 user (NULL: none), $11 update_of,
// $12 requested, $13 message, $14 statusUpdates.
const std::string insert_delivery_sql = R"sql(
INSERT INTO delivery (org_id, incident_id, loop, step, channel, target, idempotency_key,
                      status, next_attempt_at, created_at, user_name, update_of, requested,
                      message, status_updates)
VALUES ($1, $2::bigint, $3::int, $4::int, $5, $6, $7, 'PENDING', belay_ts($8::bigint),
        belay_ts($9::bigint), $10, $11, $12::boolean, nullif($13, ''), $14::boolean)
ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1)sql";

// $1 org, $2 incident, $3 user, $4 now, $5 by whom, $6 the request's words.
const std::string request_responder_sql = R"sql(
INSERT INTO incident_responder (org_id, incident_id, user_name, state, requested_at,
                                requested_by, message)
VALUES ($1, $2::bigint, $3, 'requested', belay_ts($4::bigint), $5, $6)
ON CONFLICT (org_id, incident_id, user_name) DO UPDATE SET state = 'requested',
  requested_at = EXCLUDED.requested_at, requested_by = EXCLUDED.requested_by,
  message = EXCLUDED.message, acknowledged_at = NULL)sql";

// $1 org, $2 incident, $3 user (NULL) or $4 channel and $5 to, $6 now, $7 by whom.
const std::string subscribe_sql = R"sql(
INSERT INTO incident_subscriber (org_id, incident_id, user_name, channel, target, added_at,
                                 added_by)
VALUES ($1, $2::bigint, $3, $4, $5, belay_ts($6::bigint), $7)
ON CONFLICT DO NOTHING RETURNING 1)sql";

const std::string subscribers_sql = R"sql(
SELECT coalesce(user_name, ''), coalesce(channel, ''), coalesce(target, '')
FROM incident_subscriber WHERE org_id = $1 AND incident_id = $2::bigint ORDER BY id)sql";

const std::string responders_sql = R"sql(
SELECT user_name, state, belay_us(requested_at), requested_by, message,
       belay_us(acknowledged_at)
FROM incident_responder WHERE org_id = $1 AND incident_id = $2::bigint
ORDER BY requested_at, user_name)sql";

// Merge: both incidents locked in id order, before the action's own lock, so that two
// merges the other way round wait rather than deadlock: $1 org, $2 the merged one, $3
// the one it goes into.
const std::string lock_pair_sql = R"sql(
SELECT id, status FROM incident WHERE org_id = $1 AND id IN ($2::bigint, $3::bigint)
ORDER BY id FOR UPDATE)sql";

// The merged incident's alerts, evidence and events go into the other; it is resolved
// (via merge, pointing there) with its pages nobody claimed; its key and every key
// merged into it before redirect there. $1 org, $2 merged, $3 into, $4 now, $5 by whom.
const std::string merge_sql = R"sql(
WITH moved AS (
  UPDATE alert a SET incident_id = $3::bigint
  WHERE a.org_id = $1 AND a.incident_id = $2::bigint
  RETURNING a.status
), source AS (
  SELECT * FROM incident WHERE org_id = $1 AND id = $2::bigint
), target AS (
  UPDATE incident t SET event_count = t.event_count + s.event_count,
         last_seen_at = greatest(t.last_seen_at, s.last_seen_at),
         evidence = belay_keep_last(t.evidence || s.evidence, 5),
         alert_count = t.alert_count + (SELECT count(*) FROM moved),
         firing_count = t.firing_count +
                        (SELECT count(*) FROM moved WHERE status = 'FIRING')
  FROM source s WHERE t.org_id = $1 AND t.id = $3::bigint
  RETURNING t.id
), resolved AS (
  UPDATE incident SET status = 'RESOLVED', resolved_at = belay_ts($4::bigint),
         resolved_by = nullif($5, ''), resolved_via = 'merge', merged_into = $3::bigint,
         next_fire_at = NULL, held_until = NULL, snoozed_until = NULL, resume_at = NULL,
         firing_count = 0, version = version + 1
  WHERE org_id = $1 AND id = $2::bigint
  RETURNING )sql" BELAY_INCIDENT_COLUMNS R"sql(
), cancelled AS (
  UPDATE delivery d SET status = 'CANCELLED' FROM resolved r
  WHERE d.org_id = r.org_id AND d.incident_id = r.id AND d.status = 'PENDING'
    AND d.update_of IS NULL
  RETURNING d.id
), repointed AS (
  UPDATE merged_key SET into_id = $3::bigint WHERE org_id = $1 AND into_id = $2::bigint
), redirect AS (
  INSERT INTO merged_key (org_id, dedup_key, into_id, merged_at)
  SELECT $1, s.dedup_key, $3::bigint, belay_ts($4::bigint) FROM source s
  ON CONFLICT (org_id, dedup_key) DO UPDATE SET into_id = EXCLUDED.into_id,
    merged_at = EXCLUDED.merged_at
)
SELECT r.*, (SELECT count(*) FROM cancelled) AS cancelled,
       (SELECT count(*) FROM moved) AS alerts, s.event_count AS events
FROM resolved r, source s)sql";

const std::string merged_into_sql =
    "SELECT merged_into FROM incident WHERE org_id = $1 AND id = $2::bigint";

// A JSON array of strings.
std::string string_array(const std::vector<std::string>& items) {
  rapidjson::StringBuffer buffer;
  protocol::json_writer w(buffer);
  w.StartArray();
  for (auto& i : items)
    protocol::write_string(w, i);
  w.EndArray();
  return protocol::to_string(buffer);
}

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
  // `into_status`: a merge's target as it stands, locked ("" when the org has none).
  action_writer(connection& c, const incident_action& a, micros now, held_incident h,
                std::string into_status)
      : c_(c), a_(a), now_(now), before_(std::move(h)),
        into_status_(std::move(into_status)) {}

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
    case incident_verb::responders:
      return responders();
    case incident_verb::subscribe:
      return subscribe();
    case incident_verb::status_update:
      return status_update();
    case incident_verb::merge:
      return merge();
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
    if (c_.query(count_kind_sql, a_.org_id, id(), "note_added").int64(0, 0) >=
        protocol::max_notes)
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
    auto missing = user
                       ? unknown({name}, missing_user_sql, "user", "user", "unknown_user")
                       : unknown({name}, missing_schedule_sql, "schedule", "schedule",
                                 "unknown_schedule");
    if (missing) {
      refusal = std::move(*missing);
      refusal.field = user ? "user" : "schedule"; // one name, not a list: no "[0]"
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

  // The refusal naming the first of `names` that `missing_sql` finds the org has not
  // ("users[1]"), in one statement; nullopt when it has them all.
  std::optional<action_reply> unknown(const std::vector<std::string>& names,
                                      const std::string& missing_sql, const char* field,
                                      const char* what, const char* error) {
    if (names.empty())
      return std::nullopt;
    auto r = c_.query(missing_sql, a_.org_id, text_array(names));
    if (r.rows() == 0)
      return std::nullopt;
    auto i = static_cast<size_t>(r.int64(0, 0) - 1);
    return refused(reply_code::invalid, before_, error,
                   std::string{"no "} + what + " named '" + names[i] + "'",
                   std::string{field} + "[" + std::to_string(i) + "]");
  }

  // Whom `users` and `schedules` page now, each through their own notification rules.
  protocol::step_pages expand_people() {
    std::vector<target> targets;
    for (auto& u : a_.users)
      targets.push_back({"", "", u, ""});
    for (auto& s : a_.schedules)
      targets.push_back({"", "", "", s});
    return protocol::expand_targets(targets, load_people(c_, a_.org_id, now_), now_);
  }

  int64_t round_of(const char* kind) {
    return c_.query(count_kind_sql, a_.org_id, id(), kind).int64(0, 0) + 1;
  }

  void add_channel(action_reply& r, const std::string& channel) {
    if (std::find(r.channels.begin(), r.channels.end(), channel) == r.channels.end())
      r.channels.push_back(channel);
  }

  // Pages the people asked for now, with keys of this request's own, each page sent while
  // the incident is acknowledged too (delivery.requested), the ladder left alone.
  action_reply responders() {
    if (rec().status == status_resolved)
      return refused(reply_code::conflict, before_, "invalid_transition",
                     name_of(rec()) + " is RESOLVED");
    if (auto refusal =
            unknown(a_.users, missing_user_sql, "users", "user", "unknown_user"))
      return *refusal;
    if (auto refusal = unknown(a_.schedules, missing_schedule_sql, "schedules",
                               "schedule", "unknown_schedule"))
      return *refusal;
    auto pages = expand_people();
    if (pages.pages.empty())
      return refused(reply_code::conflict, before_, "nobody_to_page",
                     "nobody to page: " +
                         (pages.nobody_on_call.empty()
                              ? std::string{"no notification rule reaches them"}
                              : "nobody is on call in " + pages.nobody_on_call.front()));
    auto round = std::to_string(round_of("responders_requested"));
    action_reply out{reply_code::ok, before_};
    std::vector<std::string> people;
    for (auto& p : pages.pages) {
      c_.query(insert_delivery_sql, a_.org_id, id(), rec().loop, -1, p.channel, p.to,
               id() + ":responders:" + round + ":" + p.channel + ":" + p.to,
               now_ + p.delay, now_, p.user, std::nullopt, true, a_.message,
               p.status_updates);
      add_channel(out, p.channel);
      if (std::find(people.begin(), people.end(), p.user) == people.end()) {
        people.push_back(p.user);
        c_.query(request_responder_sql, a_.org_id, id(), p.user, now_, a_.who.actor,
                 a_.message);
      }
    }
    auto more = ",\"users\":" + string_array(people) + ",\"message\":" +
                (a_.message.empty() ? std::string{"null"} : quoted(a_.message)) +
                ",\"deliveries\":" + std::to_string(pages.pages.size()) +
                ",\"nobodyOnCall\":" + string_array(pages.nobody_on_call);
    record("responders_requested", detail(a_, more), "incident.responders",
           "{\"users\":" + string_array(people) + "}", false);
    return out;
  }

  action_reply subscribe() {
    if (auto refusal =
            unknown(a_.users, missing_user_sql, "users", "user", "unknown_user"))
      return *refusal;
    std::vector<std::string> channels;
    for (auto& address : a_.addresses)
      channels.push_back(address.first);
    if (auto refusal = unknown(channels, missing_channel_sql, "channels", "channel",
                               "unknown_channel")) {
      refusal->field += ".channel"; // channels[i].channel
      return *refusal;
    }
    std::vector<std::string> added;
    for (auto& u : a_.users)
      if (c_.query(subscribe_sql, a_.org_id, id(), u, std::nullopt, std::nullopt, now_,
                   a_.who.actor)
              .rows() == 1)
        added.push_back(u);
    for (auto& [channel, to] : a_.addresses)
      if (c_.query(subscribe_sql, a_.org_id, id(), std::nullopt, channel, to, now_,
                   a_.who.actor)
              .rows() == 1)
        added.push_back(channel + ":" + to);
    if (added.empty())
      return {reply_code::unchanged, before_};
    auto more = ",\"added\":" + string_array(added);
    record("subscribers_added", detail(a_, more), "incident.subscribe",
           "{" + more.substr(1) + "}", false);
    return {reply_code::ok, before_};
  }

  // One message to every subscriber: a user through the contacts of their rules (each
  // contact once, at once), an address as it is.
  action_reply status_update() {
    auto r = c_.query(subscribers_sql, a_.org_id, id());
    if (r.rows() == 0)
      return refused(reply_code::conflict, before_, "no_subscribers",
                     name_of(rec()) +
                         " has no subscribers: add them first (POST "
                         "/api/v1/incidents/" +
                         id() + "/subscribers)");
    std::vector<protocol::page_target> to;
    std::vector<target> users;
    for (int i = 0; i < r.rows(); ++i) {
      if (!r.str(i, 0).empty())
        users.push_back({"", "", r.str(i, 0), ""});
      else {
        protocol::page_target address;
        address.channel = r.str(i, 1);
        address.to = r.str(i, 2);
        to.push_back(std::move(address));
      }
    }
    if (!users.empty())
      for (auto& p :
           protocol::expand_targets(users, load_people(c_, a_.org_id, now_), now_).pages)
        to.push_back(p);
    auto round = std::to_string(round_of("status_update"));
    action_reply out{reply_code::ok, before_};
    int sent = 0;
    for (auto& p : to) {
      auto key = id() + ":status:" + round + ":" + p.channel + ":" + p.to;
      std::optional<std::string> user;
      if (!p.user.empty())
        user = p.user;
      sent += c_.query(insert_delivery_sql, a_.org_id, id(), rec().loop, -1, p.channel,
                       p.to, key, now_, now_, user, std::string{"status_update"}, false,
                       a_.message, false)
                  .rows();
      add_channel(out, p.channel);
    }
    auto more =
        ",\"message\":" + quoted(a_.message) + ",\"recipients\":" + std::to_string(sent);
    record("status_update", detail(a_, more), "incident.status_update",
           "{\"message\":" + quoted(a_.message) + "}", false);
    return out;
  }

  // Moves this incident into a_.into: both of the org, both not resolved.
  action_reply merge() {
    if (a_.into == rec().id)
      return refused(reply_code::invalid, before_, "invalid_value",
                     "an incident cannot be merged into itself", "into");
    const std::string& target_status = into_status_;
    if (target_status.empty()) // none, or another org's: the same answer
      return refused(reply_code::invalid, before_, "unknown_incident",
                     "no incident " + std::to_string(a_.into) + " to merge into", "into");
    if (rec().status == status_resolved)
      return refused(reply_code::conflict, before_, "invalid_transition",
                     name_of(rec()) + " is RESOLVED");
    if (target_status == status_resolved)
      return refused(reply_code::conflict, before_, "target_resolved",
                     "incident " + std::to_string(a_.into) + " is RESOLVED");
    auto r =
        c_.query(merge_sql, a_.org_id, id(), std::to_string(a_.into), now_, a_.who.actor);
    auto after = row_of(r);
    auto into = std::to_string(a_.into);
    record("merged",
           detail(a_, ",\"into\":" + into +
                          ",\"cancelledDeliveries\":" + r.str(0, r.column("cancelled"))),
           "incident.merge", "{\"into\":" + into + "}", true);
    c_.query(note_sql, a_.org_id, into, now_, "merged_in",
             detail(a_, ",\"from\":" + id() + ",\"dedupKey\":" + quoted(rec().dedup_key) +
                            ",\"events\":" + r.str(0, r.column("events")) +
                            ",\"alerts\":" + r.str(0, r.column("alerts"))));
    note_merges();
    return {reply_code::ok, std::move(after)};
  }

  connection& c_;
  const incident_action& a_;
  micros now_;
  held_incident before_;
  std::string into_status_;
};

// A merge's target, locked with the incident in id order; its status, or "" when the
// org has no such incident (or it is the incident itself).
std::string lock_merge(connection& c, const incident_action& a) {
  if (a.verb != incident_verb::merge || a.into == a.incident_id)
    return {};
  auto locked = c.query(lock_pair_sql, a.org_id, std::to_string(a.incident_id),
                        std::to_string(a.into));
  for (int i = 0; i < locked.rows(); ++i)
    if (locked.int64(i, 0) == a.into)
      return locked.str(i, 1);
  return {};
}

} // namespace

action_reply apply_action(connection& c, const incident_action& a, micros now) {
  // Every refusal is decided before the first write: a refused action writes nothing.
  return transaction(c, [&]() -> action_reply {
    auto into = lock_merge(c, a);
    auto r = c.query(lock_sql, a.org_id, std::to_string(a.incident_id));
    if (r.rows() == 0)
      return {reply_code::not_found, {}};
    return action_writer{c, a, now, read_held(r, 0), std::move(into)}.run();
  });
}

protocol::incident_work load_incident_work(connection& c, int64_t org_id, int64_t id) {
  protocol::incident_work out;
  auto r = c.query(responders_sql, org_id, std::to_string(id));
  for (int i = 0; i < r.rows(); ++i)
    out.responders.push_back({r.str(i, 0), r.str(i, 1), r.int64(i, 2), r.str(i, 3),
                              r.str(i, 4), r.opt_int64(i, 5)});
  auto s = c.query(subscribers_sql, org_id, std::to_string(id));
  for (int i = 0; i < s.rows(); ++i)
    out.subscribers.push_back({s.str(i, 0), s.str(i, 1), s.str(i, 2)});
  auto m = c.query(merged_into_sql, org_id, std::to_string(id));
  if (m.rows() == 1)
    out.merged_into = m.opt_int64(0, 0);
  return out;
}

std::optional<incident_record> end_snooze(connection& c, int64_t org_id, int64_t id,
                                          int64_t version, micros first_delay,
                                          micros now) {
  auto& sql = test_hooks::planted(test_hooks::snooze_end_keeps_round, end_snooze_sql,
                                  {{"restarts = restarts + 1, ", ""}});
  auto r = c.query(sql, org_id, std::to_string(id), std::to_string(version),
                   std::to_string(first_delay), now);
  if (r.rows() == 0)
    return std::nullopt;
  return read_held(r, 0).incident;
}

} // namespace belay::storage
