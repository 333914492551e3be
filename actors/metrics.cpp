#include "actors/metrics.hpp"

#include "actors/metrics_tenants.hpp"

#include <array>
#include <cmath>
#include <sstream>

namespace belay::metrics {

namespace {

// Latency buckets in seconds: sub-millisecond HTTP up to multi-second deliveries.
constexpr std::array<double, 14> bounds = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

struct histogram {
  std::array<uint64_t, bounds.size()> buckets{};
  uint64_t count = 0;
  double sum = 0;
};

struct family {
  std::string type; // counter | gauge | histogram
  std::string help;
  std::map<labels, double> values;
  std::map<labels, histogram> histograms;
};

const std::map<std::string, std::pair<std::string, std::string>> known = {
    {name::events_total, {"counter", "Events received, by format and outcome."}},
    {name::acks_total, {"counter", "Incidents acknowledged."}},
    {name::resolves_total, {"counter", "Incidents resolved."}},
    {name::steps_fired_total, {"counter", "Escalation steps fired."}},
    {name::lost_commits_total,
     {"counter",
      "Trigger writes whose connection was lost, by what reading back found."}},
    {name::storage_refused_total,
     {"counter", "Storage operations refused at once because their worker's queue was "
                 "full (a database too slow or out of reach)."}},
    {name::orphans_adopted_total,
     {"counter", "Overdue incidents the orphan sweep found without a live actor and "
                 "adopted."}},
    {name::inspector_snapshots_total,
     {"counter", "Snapshots the console's live streams took (one per org a second, "
                 "however many watch)."}},
    {name::http_deadline_closed_total,
     {"counter", "HTTP connections closed for sending a request too slowly."}},
    {name::http_shed_total,
     {"counter", "Requests answered 503 because every HTTP thread was busy and the "
                 "queue full."}},
    {name::rate_limited_total, {"counter", "Requests answered 429, by kind of key."}},
    {name::delivery_claims_total,
     {"counter", "Statements that claimed due deliveries for a channel's senders."}},
    {name::delivery_rechecks_total,
     {"counter", "Statements that checked claimed deliveries against their incidents "
                 "again before sending them (they had waited for a sender)."}},
    {name::deliveries_rechecked_total,
     {"counter", "Claimed deliveries checked against their incidents again before "
                 "sending."}},
    {name::steps_unrouted_total,
     {"counter", "Schedules a fired step found nobody on call for."}},
    {name::deliveries_total, {"counter", "Delivery attempts, by channel and outcome."}},
    {name::pages_bundled_total,
     {"counter", "Pages sent inside a bundle (one message for several incidents), by "
                 "channel."}},
    {name::bundles_sent_total, {"counter", "Bundles sent, by channel."}},
    {name::pages_held_by_throttle,
     {"gauge", "Pages waiting for their contact's throttle to open."}},
    {name::incidents, {"gauge", "Incidents by status (non-resolved)."}},
    {name::incident_actors, {"gauge", "Live incident actors on this node."}},
    {name::outbox_depth,
     {"gauge", "Deliveries waiting to be sent (PENDING or CLAIMED)."}},
    {name::outbox_oldest_due_age_seconds,
     {"gauge", "Age of the oldest due, unsent delivery (0 when none)."}},
    {name::ingest_latency_seconds, {"histogram", "Time to answer an ingest request."}},
    {name::step_lateness_seconds,
     {"histogram", "Actual minus scheduled fire time of escalation steps."}},
    {name::delivery_latency_seconds,
     {"histogram", "Time from a delivery's creation to its successful send."}},
};

std::mutex mutex;
std::map<std::string, family>& families() {
  static std::map<std::string, family> all;
  return all;
}

family& get(const std::string& name, const char* type) {
  auto& f = families()[name];
  if (f.type.empty()) {
    auto it = known.find(name);
    f.type = it != known.end() ? it->second.first : type;
    f.help = it != known.end() ? it->second.second : name;
  }
  return f;
}

std::string escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string series(const std::string& name, const labels& l,
                   const std::string& extra = "") {
  std::string out = name;
  if (l.empty() && extra.empty())
    return out;
  out += "{";
  bool first = true;
  for (auto& [k, v] : l) {
    out += (first ? "" : ",") + k + "=\"" + escape(v) + "\"";
    first = false;
  }
  if (!extra.empty())
    out += (first ? "" : ",") + extra;
  return out + "}";
}

std::string number(double v) {
  if (std::isinf(v))
    return v > 0 ? "+Inf" : "-Inf";
  std::ostringstream s;
  s.precision(15);
  s << v;
  return s.str();
}

labels without_tenants(const labels& l) {
  labels out;
  for (auto& label : l)
    if (!names_tenant(label.first))
      out.push_back(label);
  return out;
}

// The families as a stranger may see them: series that differ only by tenant summed.
std::map<std::string, family> tenant_free(const std::map<std::string, family>& all) {
  std::map<std::string, family> out;
  for (auto& [name, f] : all) {
    auto& g = out[name];
    g.type = f.type;
    g.help = f.help;
    for (auto& [l, v] : f.values)
      g.values[without_tenants(l)] += v;
    for (auto& [l, h] : f.histograms) {
      auto& sum = g.histograms[without_tenants(l)];
      for (size_t i = 0; i < bounds.size(); ++i)
        sum.buckets[i] += h.buckets[i];
      sum.count += h.count;
      sum.sum += h.sum;
    }
  }
  return out;
}

} // namespace

bool names_tenant(const std::string& label) {
  return label == "channel" || label == "org" || label == "user";
}

void count(const std::string& name, const labels& l, double by) {
  std::lock_guard lock{mutex};
  get(name, "counter").values[l] += by;
}

void set_gauge(const std::string& name, double v, const labels& l) {
  std::lock_guard lock{mutex};
  get(name, "gauge").values[l] = v;
}

void observe(const std::string& name, double seconds, const labels& l) {
  std::lock_guard lock{mutex};
  auto& h = get(name, "histogram").histograms[l];
  for (size_t i = 0; i < bounds.size(); ++i)
    if (seconds <= bounds[i])
      ++h.buckets[i];
  ++h.count;
  h.sum += seconds;
}

double value(const std::string& name, const labels& l) {
  std::lock_guard lock{mutex};
  auto f = families().find(name);
  if (f == families().end())
    return 0;
  auto v = f->second.values.find(l);
  return v == f->second.values.end() ? 0 : v->second;
}

void count_transition(bool ack) {
  count(ack ? name::acks_total : name::resolves_total);
}

namespace {

std::string render_families(const std::map<std::string, family>& all) {
  std::ostringstream out;
  for (auto& [name, f] : all) {
    out << "# HELP " << name << " " << f.help << "\n# TYPE " << name << " " << f.type
        << "\n";
    for (auto& [l, v] : f.values)
      out << series(name, l) << " " << number(v) << "\n";
    for (auto& [l, h] : f.histograms) {
      for (size_t i = 0; i < bounds.size(); ++i)
        out << series(name + "_bucket", l, "le=\"" + number(bounds[i]) + "\"") << " "
            << h.buckets[i] << "\n";
      out << series(name + "_bucket", l, "le=\"+Inf\"") << " " << h.count << "\n";
      out << series(name + "_sum", l) << " " << number(h.sum) << "\n";
      out << series(name + "_count", l) << " " << h.count << "\n";
    }
  }
  return out.str();
}

} // namespace

std::string render() {
  std::lock_guard lock{mutex};
  return render_families(families());
}

std::string render_tenant_free() {
  std::lock_guard lock{mutex};
  return render_families(tenant_free(families()));
}

} // namespace belay::metrics
