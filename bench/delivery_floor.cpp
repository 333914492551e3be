// The delivery floor: belay's own claim and outcome statements (storage::claim_due,
// storage::record_outcomes), durable, draining an outbox as fast as PostgreSQL takes
// them, with no network call, no actors and no timers between them. Each thread is one
// worker of the storage lane that holds deliveries, with its own connection: it claims
// up to --claim due rows and records every one of them SENT, until the outbox is empty.
// What the drain could reach if sending a page cost nothing (bench/README.md).
//
//   belay_delivery_floor --database-url URL [--channel bench-hook] [--org bench]
//                        [--db-connections 4] [--claim 64]
//
// Prints one JSON line:
//   {"deliveries":…,"claims":…,"outcomes":…,"elapsedS":…,"deliveriesPerS":…}

#include "actors/trigger_lane.hpp"
#include "bench/floor.hpp"
#include "storage/db.hpp"
#include "storage/deliveries.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace belay;
using steady = std::chrono::steady_clock;

struct options {
  std::string url;
  std::string channel = "bench-hook";
  std::string org = "bench";
  int threads = 0; // the delivery lane of belay's --db-connections (4 by default)
  int claim = 64;  // belay's claim limit (storage::claim_request)
};

const char* usage = "usage: belay_delivery_floor --database-url URL [--channel NAME] "
                    "[--org NAME] [--db-connections N] [--claim N]\n";

options parse(int argc, char** argv) {
  options o;
  auto flags = bench::flags_or_exit(argc, argv, usage, {"--database-url"});
  o.url = flags["--database-url"];
  if (flags.count("--channel"))
    o.channel = flags["--channel"];
  if (flags.count("--org"))
    o.org = flags["--org"];
  auto connections = std::max(1, std::atoi(flags.count("--db-connections")
                                               ? flags["--db-connections"].c_str()
                                               : "4"));
  // The workers that are not the incident lane's; with one connection, that one.
  auto lane = incident_lane_size(static_cast<size_t>(connections));
  o.threads = connections > 1 ? connections - static_cast<int>(lane) : 1;
  if (flags.count("--claim"))
    o.claim = std::atoi(flags["--claim"].c_str());
  if (o.claim < 1) {
    std::cerr << usage;
    std::exit(2);
  }
  return o;
}

struct tally {
  std::atomic<int64_t> deliveries{0}, claims{0}, outcomes{0};
};

// One worker: claims and settles until a claim comes back empty.
void drain(const options& o, int64_t org_id, tally& t) {
  storage::connection c{o.url};
  const std::string node = "delivery-floor";
  for (;;) {
    auto now = bench::wall_now();
    storage::claim_request req;
    req.org_id = org_id;
    req.channel = o.channel;
    req.node = node;
    req.now = now;
    req.lease_until = now + 300'000'000;
    req.limit = o.claim;
    auto claimed = storage::claim_due(c, req);
    ++t.claims;
    if (claimed.empty())
      return;
    std::vector<storage::outcome_event> sent;
    sent.reserve(claimed.size());
    for (auto& d : claimed) {
      if (d.delivery.status != "CLAIMED")
        continue; // cancelled on the way (its incident was settled): nothing to send
      storage::outcome_event e;
      e.org_id = org_id;
      e.delivery_id = d.delivery.id;
      e.node = node;
      e.attempts = d.delivery.attempts;
      e.status = "SENT";
      e.at = bench::wall_now();
      sent.push_back(std::move(e));
    }
    for (auto& r : storage::record_outcomes(c, sent))
      if (r.status != "SENT")
        throw std::runtime_error("an outcome was not recorded (status '" + r.status +
                                 "')");
    ++t.outcomes;
    t.deliveries += static_cast<int64_t>(sent.size());
  }
}

} // namespace

int main(int argc, char** argv) {
  auto o = parse(argc, argv);
  try {
    auto org_id = bench::org_id(o.url, o.org);
    tally t;
    auto start = steady::now();
    if (!bench::run_workers(o.threads, "belay_delivery_floor",
                            [&](int) { drain(o, org_id, t); }))
      return 1;
    double elapsed = std::chrono::duration<double>(steady::now() - start).count();
    std::printf(
        "{\"deliveries\":%lld,\"claims\":%lld,\"outcomes\":%lld,\"elapsedS\":%.3f,"
        "\"deliveriesPerS\":%.1f}\n",
        static_cast<long long>(t.deliveries), static_cast<long long>(t.claims),
        static_cast<long long>(t.outcomes), elapsed,
        static_cast<double>(t.deliveries) / elapsed);
  } catch (const std::exception& e) {
    std::cerr << "belay_delivery_floor: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
