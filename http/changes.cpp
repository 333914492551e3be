// Change events (docs/http.md#changes): PagerDuty's POST /v2/change/enqueue, and
// GET /api/v1/changes. A change is recorded and shown; it never pages.
#include "storage/changes.hpp"

#include "actors/metrics.hpp"
#include "http/keys.hpp"
#include "http/respond.hpp"
#include "protocol/pagerduty.hpp"
#include "storage/db.hpp"

#include <caf/actor_system.hpp>

namespace belay {

namespace {

void enqueue(api& a, const httplib::Request& req, httplib::Response& res) {
  auto parsed = protocol::parse_change_event(req.body);
  if (auto* errors = std::get_if<std::vector<std::string>>(&parsed))
    return reply_json(res, 400, protocol::render_pd_invalid(*errors));
  auto& ev = std::get<protocol::change_event>(parsed);
  auto integration = admit_routing_key(a, ev.routing_key, res);
  if (!integration)
    return;
  auto conn = a.db.acquire();
  storage::record_change(*conn, integration->org_id, integration->name, ev, now(a));
  reply_json(res, 202, protocol::render_change_accepted());
}

void list(api& a, const caller& who, const httplib::Request& req,
          httplib::Response& res) {
  auto params = page_params(req, res, 50, 500);
  if (!params)
    return;
  auto conn = a.db.acquire();
  auto page = storage::list_changes(*conn, who.org_id, params->limit, params->after);
  std::optional<std::string> next;
  if (page.next_after)
    next = std::to_string(*page.next_after);
  reply_json(res, 200, protocol::render_change_list(page.changes, next));
}

} // namespace

void add_change_routes(routes& http, api& a) {
  // The routing key is in the body: read first, then checked (as /v2/enqueue).
  http.Post("/v2/change/enqueue", [&a](const httplib::Request& req,
                                       httplib::Response& res) { enqueue(a, req, res); });
  http.Get("/api/v1/changes", access::read,
           [&a](const caller& c, const httplib::Request& req, httplib::Response& res) {
             list(a, c, req, res);
           });
}

} // namespace belay
