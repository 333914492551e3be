// GET /metrics: Prometheus text format, for belay to be watched like anything else.
#include "actors/metrics.hpp"

#include "actors/actors.hpp"
#include "actors/metrics_tenants.hpp"
#include "http/respond.hpp"
#include "protocol/hash.hpp"
#include "storage/db.hpp"
#include "storage/stats.hpp"

namespace belay {

namespace {

// Per-org series for a scrape that presents --metrics-token; none for anyone else
// (docs/operations.md#metrics). A wrong token is refused, so a misconfigured scraper
// is noticed rather than quietly shown less.
std::optional<bool> per_org(const api& a, const httplib::Request& req,
                            httplib::Response& res) {
  auto presented = bearer_key(req);
  if (presented.empty())
    return false;
  if (!a.metrics_token.empty() && constant_time_equal(presented, a.metrics_token))
    return true;
  res.set_header("WWW-Authenticate", "Bearer");
  reply_error(res, 401, "unauthorized", "wrong metrics token (--metrics-token)");
  return std::nullopt;
}

} // namespace

void add_metrics_routes(routes& http, api& a) {
  http.Get("/metrics", [&a](const httplib::Request& req, httplib::Response& res) {
    auto with_tenants = per_org(a, req, res);
    if (!with_tenants)
      return;
    {
      auto conn = a.db.acquire();
      for (auto& [status, n] : storage::unresolved_by_status(*conn))
        metrics::set_gauge(metrics::name::incidents, static_cast<double>(n),
                           {{"status", status}});
      auto outbox = storage::outbox(*conn);
      metrics::set_gauge(metrics::name::outbox_depth, static_cast<double>(outbox.depth));
      metrics::set_gauge(metrics::name::outbox_oldest_due_age_seconds,
                         outbox.oldest_due_age_seconds);
      metrics::set_gauge(metrics::name::pages_held_by_throttle,
                         static_cast<double>(outbox.held_by_throttle));
    }
    if (auto stats = ask<registry_stats>(a, a.registry, res, atom::stats_v))
      metrics::set_gauge(metrics::name::incident_actors,
                         static_cast<double>(stats->held));
    else
      return;
    res.status = 200;
    res.set_content(*with_tenants ? metrics::render() : metrics::render_tenant_free(),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
}

} // namespace belay
