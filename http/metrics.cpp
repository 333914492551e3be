// GET /metrics: Prometheus text format, for belay to be watched like anything else.
#include "actors/metrics.hpp"

#include "actors/actors.hpp"
#include "http/respond.hpp"
#include "storage/db.hpp"
#include "storage/stats.hpp"

namespace belay {

void add_metrics_routes(routes& http, api& a) {
  http.Get("/metrics", [&a](const httplib::Request&, httplib::Response& res) {
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
    res.set_content(metrics::render(), "text/plain; version=0.0.4; charset=utf-8");
  });
}

} // namespace belay
