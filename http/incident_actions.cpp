// Working an incident (docs/http.md#working-an-incident): POST
// /api/v1/incidents/{id}/notes, …/escalate, …/snooze, …/reassign, …/priority,
// …/responders, …/subscribers, …/status-updates and …/merge. Each goes through the
// registry to the incident's actor, as an acknowledge does
// (docs/architecture.md#http-to-storage).
#include "actors/actors.hpp"
#include "http/respond.hpp"
#include "protocol/incident_json.hpp"
#include "protocol/incident_request.hpp"
#include "protocol/ladder.hpp"
#include "protocol/limits.hpp"
#include "protocol/time.hpp"
#include "storage/actions.hpp"

namespace belay {

namespace {

// The caller as the timeline and the audit log record them: only an admin-scoped key may
// name someone else (docs/security.md#attribution).
attribution acting(const caller& who, const protocol::actor_request& asked) {
  return {attributed_by(who, asked.by), attributed_via(who, asked.via), who.source_ip};
}

void reply_action(httplib::Response& res, const storage::action_reply& r) {
  switch (r.code) {
  case reply_code::ok:
  case reply_code::unchanged:
    return reply_json(res, 200, protocol::render_incident_only(r.held.incident));
  case reply_code::conflict:
    return reply_error(res, 409, r.error, r.message);
  case reply_code::invalid:
    return reply_error(res, 400, r.error, r.message, r.field);
  default:
    return reply_error(res, 404, "not_found", "no such incident");
  }
}

using refusal = std::optional<protocol::error>;

// Who asked, as every body carries it ("by", "via"): an escalate's body is only that.
const protocol::actor_request& asker(const protocol::actor_request& r) {
  return r;
}
template <class Request> const protocol::actor_request& asker(const Request& r) {
  return r.actor;
}

// Parses the body with `parse`, lets `fill` add what the action takes (or refuse it),
// and sends it, attributed to the caller.
template <class Parse, class Fill>
void act(api& a, const caller& who, const httplib::Request& req, httplib::Response& res,
         incident_verb verb, Parse parse, Fill fill) {
  auto body = parse(req.body);
  if (auto* err = std::get_if<protocol::error>(&body))
    return reply_error(res, *err);
  auto id = parse_id(req.matches[1]);
  if (!id)
    return reply_error(res, 404, "not_found", "no such incident");
  auto& asked = std::get<0>(body);
  incident_action action;
  action.org_id = who.org_id;
  action.incident_id = *id;
  action.verb = verb;
  action.who = acting(who, asker(asked));
  if (refusal r = fill(asked, action))
    return reply_error(res, *r);
  if (auto r = ask<storage::action_reply>(a, a.registry, res, atom::act_v, action))
    reply_action(res, *r);
}

refusal snooze_until(const api& a, const protocol::snooze_request& s, micros& until) {
  auto at = now(a);
  const char* field = s.until ? "until" : "seconds";
  until = s.until ? *s.until : at + seconds_to_micros(*s.seconds);
  if (until <= at)
    return protocol::error{400, "invalid_value",
                           std::string{field} + " is not in the future", field};
  if (until > at + protocol::max_snooze_seconds * 1'000'000)
    return protocol::error{400, "invalid_value",
                           "a snooze lasts at most 24 hours (86400 seconds)", field};
  return std::nullopt;
}

} // namespace

void add_incident_action_routes(routes& http, api& a) {
  using R = const httplib::Request&;
  using W = httplib::Response&;
  using action_t = incident_action;
  // Each route: its path, what it does, its body's parser, and what the body adds.
  auto route = [&](const char* path, incident_verb verb, auto parse, auto fill) {
    http.Post(std::string{R"(/api/v1/incidents/([^/]+)/)"} + path, access::respond,
              [&a, verb, parse, fill](const caller& c, R req, W res) {
                act(a, c, req, res, verb, parse, fill);
              });
  };
  route("notes", incident_verb::note, protocol::parse_note_request,
        [](const protocol::note_request& n, action_t& x) {
          x.text = n.text;
          return refusal{};
        });
  route("escalate", incident_verb::escalate, protocol::parse_escalate_request,
        [](const protocol::actor_request&, action_t&) { return refusal{}; });
  route("snooze", incident_verb::snooze, protocol::parse_snooze_request,
        [&a](const protocol::snooze_request& s, action_t& x) {
          return snooze_until(a, s, x.until);
        });
  route("reassign", incident_verb::reassign, protocol::parse_reassign_request,
        [](const protocol::reassign_request& r, action_t& x) {
          x.policy = r.policy;
          x.user = r.user;
          x.schedule = r.schedule;
          return refusal{};
        });
  route("priority", incident_verb::priority, protocol::parse_priority_request,
        [](const protocol::priority_request& p, action_t& x) {
          x.priority = p.priority;
          return refusal{};
        });
  route("responders", incident_verb::responders, protocol::parse_responders_request,
        [](const protocol::responders_request& r, action_t& x) {
          x.users = r.users;
          x.schedules = r.schedules;
          x.message = r.message;
          return refusal{};
        });
  route("subscribers", incident_verb::subscribe, protocol::parse_subscribers_request,
        [](const protocol::subscribers_request& r, action_t& x) {
          x.users = r.users;
          x.addresses = r.addresses;
          return refusal{};
        });
  route("status-updates", incident_verb::status_update,
        protocol::parse_status_update_request,
        [](const protocol::status_update_request& r, action_t& x) {
          x.message = r.message;
          return refusal{};
        });
  route("merge", incident_verb::merge, protocol::parse_merge_request,
        [](const protocol::merge_request& m, action_t& x) {
          x.into = m.into;
          return refusal{};
        });
}

} // namespace belay
