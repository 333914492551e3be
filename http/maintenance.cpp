// Maintenance windows (docs/http.md#maintenance): /api/v1/maintenance. Windows live in
// the database; the step and claim statements read them, so a window created or ended on
// one node holds on every node at once (a ladder held already notices an early end
// within deps::maintenance_poll, 10 s).
#include "storage/maintenance.hpp"

#include "http/respond.hpp"
#include "storage/db.hpp"

#include <caf/actor_system.hpp>

namespace belay {

namespace {

void create(api& a, const caller& who, const httplib::Request& req,
            httplib::Response& res) {
  auto t = now(a);
  auto parsed = protocol::parse_maintenance_request(req.body, t);
  if (auto* e = std::get_if<protocol::error>(&parsed))
    return reply_error(res, *e);
  auto& m = std::get<protocol::maintenance_window>(parsed);
  auto conn = a.db.acquire();
  auto stored = storage::add_maintenance(*conn, who.org_id, m, t, attributed(who));
  if (!stored) {
    if (!m.policy.empty())
      return reply_error(res, 400, "unknown_policy", "no policy named '" + m.policy + "'",
                         "policy");
    return reply_error(res, 400, "unknown_integration",
                       "no integration named '" + m.integration + "'", "integration");
  }
  reply_json(res, 201, protocol::render_maintenance(*stored));
}

void list(api& a, const caller& who, const httplib::Request&, httplib::Response& res) {
  auto conn = a.db.acquire();
  reply_json(res, 200,
             protocol::render_maintenance_list(
                 storage::list_maintenance(*conn, who.org_id, now(a))));
}

void end(api& a, const caller& who, const httplib::Request& req, httplib::Response& res) {
  auto id = parse_id(req.matches[1].str());
  if (!id)
    return reply_error(res, 404, "not_found", "no such maintenance window");
  auto conn = a.db.acquire();
  if (!storage::end_maintenance(*conn, who.org_id, *id, now(a), attributed(who)))
    return reply_error(res, 404, "not_found", "no such maintenance window");
  res.status = 204;
}

} // namespace

void add_maintenance_routes(routes& http, api& a) {
  using R = const httplib::Request&;
  using W = httplib::Response&;
  http.Post("/api/v1/maintenance", access::respond,
            [&a](const caller& c, R req, W res) { create(a, c, req, res); });
  http.Get("/api/v1/maintenance", access::read,
           [&a](const caller& c, R req, W res) { list(a, c, req, res); });
  http.Delete(R"(/api/v1/maintenance/([^/]+))", access::respond,
              [&a](const caller& c, R req, W res) { end(a, c, req, res); });
}

} // namespace belay
