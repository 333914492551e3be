// Working an incident (docs/http.md#working-an-incident): POST
// /api/v1/incidents/{id}/notes, …/escalate, …/snooze, …/reassign, …/priority,
// …/responders, …/subscribers and …/status-updates. Each goes through the registry to the
// incident's actor, as an acknowledge does (docs/architecture.md#http-to-storage).
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

std::optional<int64_t> incident_id(const httplib::Request& req) {
  const std::string& text = req.matches[1];
  if (text.empty() || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoll(text);
}

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

// Parses the body with `parse`, fills in the action with `fill`, and sends it.
template <class Parse, class Fill>
void act(api& a, const caller& who, const httplib::Request& req, httplib::Response& res,
         incident_verb verb, Parse parse, Fill fill) {
  auto body = parse(req.body);
  if (auto* err = std::get_if<protocol::error>(&body))
    return reply_error(res, *err);
  auto id = incident_id(req);
  if (!id)
    return reply_error(res, 404, "not_found", "no such incident");
  auto& asked = std::get<0>(body);
  incident_action action;
  action.org_id = who.org_id;
  action.incident_id = *id;
  action.verb = verb;
  if (auto refusal = fill(asked, action))
    return reply_error(res, *refusal);
  if (auto r = ask<storage::action_reply>(a, a.registry, res, atom::act_v, action))
    reply_action(res, *r);
}

using refusal = std::optional<protocol::error>;

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
  http.Post(R"(/api/v1/incidents/([^/]+)/notes)", access::respond,
            [&a](const caller& c, R req, W res) {
              act(a, c, req, res, incident_verb::note, protocol::parse_note_request,
                  [&](const protocol::note_request& n, incident_action& action) {
                    action.who = acting(c, n.actor);
                    action.text = n.text;
                    return refusal{};
                  });
            });
  http.Post(R"(/api/v1/incidents/([^/]+)/escalate)", access::respond,
            [&a](const caller& c, R req, W res) {
              act(a, c, req, res, incident_verb::escalate,
                  protocol::parse_escalate_request,
                  [&](const protocol::actor_request& asked, incident_action& action) {
                    action.who = acting(c, asked);
                    return refusal{};
                  });
            });
  http.Post(R"(/api/v1/incidents/([^/]+)/snooze)", access::respond,
            [&a](const caller& c, R req, W res) {
              act(a, c, req, res, incident_verb::snooze, protocol::parse_snooze_request,
                  [&](const protocol::snooze_request& s, incident_action& action) {
                    action.who = acting(c, s.actor);
                    return snooze_until(a, s, action.until);
                  });
            });
  http.Post(R"(/api/v1/incidents/([^/]+)/reassign)", access::respond,
            [&a](const caller& c, R req, W res) {
              act(a, c, req, res, incident_verb::reassign,
                  protocol::parse_reassign_request,
                  [&](const protocol::reassign_request& r, incident_action& action) {
                    action.who = acting(c, r.actor);
                    action.policy = r.policy;
                    action.user = r.user;
                    action.schedule = r.schedule;
                    return refusal{};
                  });
            });
  http.Post(R"(/api/v1/incidents/([^/]+)/responders)", access::respond,
            [&a](const caller& c, R req, W res) {
              act(a, c, req, res, incident_verb::responders,
                  protocol::parse_responders_request,
                  [&](const protocol::responders_request& r, incident_action& action) {
                    action.who = acting(c, r.actor);
                    action.users = r.users;
                    action.schedules = r.schedules;
                    action.message = r.message;
                    return refusal{};
                  });
            });
  http.Post(R"(/api/v1/incidents/([^/]+)/subscribers)", access::respond,
            [&a](const caller& c, R req, W res) {
              act(a, c, req, res, incident_verb::subscribe,
                  protocol::parse_subscribers_request,
                  [&](const protocol::subscribers_request& r, incident_action& action) {
                    action.who = acting(c, r.actor);
                    action.users = r.users;
                    action.addresses = r.addresses;
                    return refusal{};
                  });
            });
  http.Post(R"(/api/v1/incidents/([^/]+)/status-updates)", access::respond,
            [&a](const caller& c, R req, W res) {
              act(a, c, req, res, incident_verb::status_update,
                  protocol::parse_status_update_request,
                  [&](const protocol::status_update_request& r, incident_action& action) {
                    action.who = acting(c, r.actor);
                    action.message = r.message;
                    return refusal{};
                  });
            });
  http.Post(R"(/api/v1/incidents/([^/]+)/merge)", access::respond,
            [&a](const caller& c, R req, W res) {
              act(a, c, req, res, incident_verb::merge, protocol::parse_merge_request,
                  [&](const protocol::merge_request& m, incident_action& action) {
                    action.who = acting(c, m.actor);
                    action.into = m.into;
                    return refusal{};
                  });
            });
  http.Post(R"(/api/v1/incidents/([^/]+)/priority)", access::respond,
            [&a](const caller& c, R req, W res) {
              act(a, c, req, res, incident_verb::priority,
                  protocol::parse_priority_request,
                  [&](const protocol::priority_request& p, incident_action& action) {
                    action.who = acting(c, p.actor);
                    action.priority = p.priority;
                    return refusal{};
                  });
            });
}

} // namespace belay
