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
