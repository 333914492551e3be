// The native incident API (docs/http.md#incidents): /api/v1/incidents…
#include "storage/incidents.hpp"

#include "actors/actors.hpp"
#include "http/respond.hpp"
#include "protocol/incident_json.hpp"
#include "protocol/incident_request.hpp"
#include "protocol/limits.hpp"
#include "storage/actions.hpp"
#include "storage/alerts.hpp"
#include "storage/changes.hpp"
#include "storage/contacts.hpp"
#include "storage/db.hpp"
#include "storage/deliveries.hpp"

#include <algorithm>

namespace belay {

namespace {

void not_found(httplib::Response& res) {
  reply_error(res, 404, "not_found", "no such incident");
}

void reply_transition(httplib::Response& res, const transition_reply& r) {
  switch (r.code) {
  case reply_code::ok:
  case reply_code::unchanged:
    reply_json(res, 200, protocol::render_incident_only(r.incident));
    return;
  case reply_code::conflict:
    reply_error(res, 409, "invalid_transition",
                "incident " + std::to_string(r.incident.id) + " is " + r.incident.status);
    return;
  default:
    not_found(res);
  }
}

void transit(api& a, const caller& who, const httplib::Request& req,
             httplib::Response& res, transition kind) {
  auto id = parse_id(req.matches[1]);
  // A key without a name (round 1's plain strings) still names who answered; every
  // other credential says so itself (docs/security.md#attribution).
  auto body = kind == transition::ack
                  ? protocol::parse_ack_request(req.body, protocol::is_unnamed_key(who))
                  : protocol::parse_resolve_request(req.body);
  if (auto* err = std::get_if<protocol::error>(&body))
    return reply_error(res, *err);
  if (!id)
    return not_found(res);
  auto& asked = std::get<0>(body);
  transition_command cmd{who.org_id,
                         *id,
                         {},
                         kind,
                         attributed_by(who, asked.by),
                         "native",
                         attributed_via(who, asked.via)};
  cmd.audited = true;
  cmd.source_ip = who.source_ip;
  if (auto r = ask<transition_reply>(a, a.registry, res, atom::transition_v, cmd))
    reply_transition(res, *r);
}

void create(api& a, const caller& who, const httplib::Request& req,
            httplib::Response& res) {
  auto parsed = protocol::parse_trigger_request(req.body);
  if (auto* err = std::get_if<protocol::error>(&parsed))
    return reply_error(res, *err);
  auto& t = std::get<0>(parsed);
  trigger_command cmd{who.org_id, t.dedup_key,    t.title,        t.severity,
                      t.policy,   t.details_json, t.payload_json, false};
  auto r = ask_trigger(a, res, std::move(cmd));
  if (!r)
    return;
  if (r->code == reply_code::unknown_policy)
    return reply_error(res, 400, "unknown_policy", "no policy named '" + t.policy + "'",
                       "policy");
  reply_json(res, r->created ? 201 : 200,
             protocol::render_incident_response(r->incident, !r->created));
}

void list(api& a, const caller& who, const httplib::Request& req,
          httplib::Response& res) {
  auto status = req.get_param_value("status");
  if (!status.empty() && status != status_open && status != status_acknowledged &&
      status != status_exhausted && status != status_resolved)
    return reply_error(res, 400, "invalid_value",
                       "status must be OPEN, ACKNOWLEDGED, EXHAUSTED or RESOLVED",
                       "status");
  auto priority = req.get_param_value("priority");
  if (!priority.empty() &&
      std::find(protocol::priorities.begin(), protocol::priorities.end(), priority) ==
          protocol::priorities.end())
    return reply_error(res, 400, "invalid_value", "priority must be P1, P2, P3, P4 or P5",
                       "priority");
  auto params = page_params(req, res, 50, 500);
  if (!params)
    return;
  auto conn = a.db.acquire();
  auto page = storage::list_incidents(*conn, who.org_id, status, params->limit,
                                      params->after, priority);
  std::optional<std::string> next;
  if (page.next_after)
    next = std::to_string(*page.next_after);
  reply_json(res, 200, protocol::render_incident_list(page.incidents, next));
}

std::optional<std::string> cursor(const std::optional<int64_t>& next) {
  if (!next)
    return std::nullopt;
  return std::to_string(*next);
}

// Timelines and deliveries come a page at a time: 500 of each with the incident, more
// through …/timeline and …/deliveries with the cursors the detail answers.
constexpr int max_page = 500;
// The changes of the hour before an incident opened, shown with it (newest first).
constexpr int changes_shown = 20;
// The alerts shown with an incident (newest first); …/alerts pages through them all.
constexpr int alerts_shown = 100;

void show(api& a, const caller& who, const httplib::Request& req,
          httplib::Response& res) {
  auto id = parse_id(req.matches[1]);
  if (!id)
    return not_found(res);
  auto params = page_params(req, res, max_page, max_page);
  if (!params)
    return;
  auto conn = a.db.acquire();
  auto held = storage::load_incident(*conn, who.org_id, *id);
  if (!held)
    return not_found(res);
  auto timeline = storage::load_timeline(*conn, who.org_id, *id, 0, params->limit);
  auto deliveries = storage::load_deliveries(*conn, who.org_id, *id, 0, params->limit);
  auto changes = storage::changes_before(*conn, who.org_id, held->incident.created_at,
                                         changes_shown);
  auto alerts = storage::load_alerts(*conn, held->incident, 0, alerts_shown);
  protocol::incident_alerts shown{std::move(alerts.alerts), cursor(alerts.next_after),
                                  storage::load_evidence(*conn, who.org_id, *id)};
  auto people = storage::load_incident_work(*conn, who.org_id, *id);
  reply_json(res, 200,
             protocol::render_incident_detail(
                 held->incident, timeline.entries, deliveries.deliveries,
                 cursor(timeline.next_after), cursor(deliveries.next_after), changes,
                 shown, people));
}

// GET …/timeline and …/deliveries: the incident's lists, a page at a time.
template <class Page>
void show_list(api& a, const caller& who, const httplib::Request& req,
               httplib::Response& res, Page page, int default_limit = max_page) {
  auto id = parse_id(req.matches[1]);
  if (!id)
    return not_found(res);
  auto params = page_params(req, res, default_limit, max_page);
  if (!params)
    return;
  auto conn = a.db.acquire();
  auto held = storage::load_incident(*conn, who.org_id, *id);
  if (!held)
    return not_found(res);
  reply_json(res, 200, page(*conn, held->incident, *params));
}

std::string timeline_page(storage::connection& c, const incident_record& incident,
                          const page_request& p) {
  auto page = storage::load_timeline(c, incident.org_id, incident.id, p.after, p.limit);
  return protocol::render_timeline_page(page.entries, cursor(page.next_after));
}

std::string delivery_page(storage::connection& c, const incident_record& incident,
                          const page_request& p) {
  auto page = storage::load_deliveries(c, incident.org_id, incident.id, p.after, p.limit);
  return protocol::render_delivery_page(page.deliveries, cursor(page.next_after));
}

std::string alert_page(storage::connection& c, const incident_record& incident,
                       const page_request& p) {
  auto page = storage::load_alerts(c, incident, p.after, p.limit);
  return protocol::render_alert_page(page.alerts, cursor(page.next_after));
}

// GET /api/v1/bundles/{id}: the incidents one message carried, for the console's link
// from a bundled delivery to its fellow members (docs/http.md#bundles).
void show_bundle(api& a, const caller& who, const httplib::Request& req,
                 httplib::Response& res) {
  auto id = parse_id(req.matches[1]);
  std::optional<storage::answered_bundle> b;
  if (id) {
    auto conn = a.db.acquire();
    b = storage::load_bundle(*conn, *id);
  }
  if (!b || b->org_id != who.org_id)
    return reply_error(res, 404, "not_found", "no such bundle");
  reply_json(res, 200,
             protocol::render_bundle({b->id, b->channel, b->target,
                                      std::move(b->incidents), std::move(b->members)}));
}

} // namespace

void add_incident_routes(routes& http, api& a) {
  using R = const httplib::Request&;
  using W = httplib::Response&;
  http.Post("/api/v1/incidents", access::respond,
            [&a](const caller& c, R req, W res) { create(a, c, req, res); });
  http.Get("/api/v1/incidents", access::read,
           [&a](const caller& c, R req, W res) { list(a, c, req, res); });
  http.Get(R"(/api/v1/incidents/([^/]+))", access::read,
           [&a](const caller& c, R req, W res) { show(a, c, req, res); });
  http.Get(
      R"(/api/v1/incidents/([^/]+)/timeline)", access::read,
      [&a](const caller& c, R req, W res) { show_list(a, c, req, res, timeline_page); });
  http.Get(
      R"(/api/v1/incidents/([^/]+)/deliveries)", access::read,
      [&a](const caller& c, R req, W res) { show_list(a, c, req, res, delivery_page); });
  http.Get(R"(/api/v1/incidents/([^/]+)/alerts)", access::read,
           [&a](const caller& c, R req, W res) {
             show_list(a, c, req, res, alert_page, alerts_shown);
           });
  http.Get(R"(/api/v1/bundles/([^/]+))", access::read,
           [&a](const caller& c, R req, W res) { show_bundle(a, c, req, res); });
  http.Post(
      R"(/api/v1/incidents/([^/]+)/ack)", access::respond,
      [&a](const caller& c, R req, W res) { transit(a, c, req, res, transition::ack); });
  http.Post(R"(/api/v1/incidents/([^/]+)/resolve)", access::respond,
            [&a](const caller& c, R req, W res) {
              transit(a, c, req, res, transition::resolve);
            });
}

} // namespace belay
