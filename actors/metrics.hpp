// Process-wide counters and histograms, rendered in the Prometheus text format at
// GET /metrics. Every name is prefixed belay_. Cheap enough for the hot path: one
// short mutex-protected map update per event.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace belay::metrics {

using labels = std::vector<std::pair<std::string, std::string>>;

// Every metric's name, defined once (rendered at GET /metrics; alerts are written
// against them).
namespace name {
inline constexpr const char* events_total = "belay_events_total";
inline constexpr const char* acks_total = "belay_acks_total";
inline constexpr const char* resolves_total = "belay_resolves_total";
inline constexpr const char* steps_fired_total = "belay_steps_fired_total";
inline constexpr const char* steps_unrouted_total = "belay_steps_unrouted_total";
inline constexpr const char* deliveries_total = "belay_deliveries_total";
inline constexpr const char* incidents = "belay_incidents";
inline constexpr const char* incident_actors = "belay_incident_actors";
inline constexpr const char* outbox_depth = "belay_outbox_depth";
inline constexpr const char* outbox_oldest_due_age_seconds =
    "belay_outbox_oldest_due_age_seconds";
inline constexpr const char* ingest_latency_seconds = "belay_ingest_latency_seconds";
inline constexpr const char* step_lateness_seconds = "belay_step_lateness_seconds";
inline constexpr const char* delivery_latency_seconds = "belay_delivery_latency_seconds";
inline constexpr const char* lost_commits_total = "belay_lost_commits_total";
inline constexpr const char* storage_refused_total = "belay_storage_refused_total";
inline constexpr const char* orphans_adopted_total = "belay_orphans_adopted_total";
inline constexpr const char* inspector_snapshots_total =
    "belay_inspector_snapshots_total";
inline constexpr const char* http_deadline_closed_total =
    "belay_http_deadline_closed_total";
inline constexpr const char* http_shed_total = "belay_http_shed_total";
inline constexpr const char* rate_limited_total = "belay_rate_limited_total";
inline constexpr const char* delivery_claims_total = "belay_delivery_claims_total";
inline constexpr const char* delivery_rechecks_total = "belay_delivery_rechecks_total";
inline constexpr const char* deliveries_rechecked_total =
    "belay_deliveries_rechecked_total";
inline constexpr const char* pages_bundled_total = "belay_pages_bundled_total";
inline constexpr const char* bundles_sent_total = "belay_bundles_sent_total";
inline constexpr const char* pages_held_by_throttle = "belay_pages_held_by_throttle";
} // namespace name

void count(const std::string& name, const labels& l = {}, double by = 1);
void observe(const std::string& name, double seconds, const labels& l = {});
// A gauge computed at scrape time (set just before rendering).
void set_gauge(const std::string& name, double value, const labels& l = {});

// Current value of a counter series (tests).
double value(const std::string& name, const labels& l = {});

// Counts a committed ack or resolve (belay_acks_total, belay_resolves_total).
void count_transition(bool ack);

// Renders everything in the Prometheus text exposition format 0.0.4.
std::string render();

} // namespace belay::metrics
