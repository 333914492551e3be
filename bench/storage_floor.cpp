// The storage floor: belay's own trigger statement (storage::upsert_triggers), durable,
// driven as fast as PostgreSQL takes it, with no HTTP and no actors in front of it. Each
// thread is one storage worker with its own connection, writing batches of
// in-flight / threads events, as the incident lane's workers would with that many
// clients waiting. What ingest could reach if everything before the statement cost
// nothing (bench/README.md).
//
//   belay_storage_floor --database-url URL --mode new|dup [--seconds 10]
//                       [--db-connections 4] [--in-flight 64] [--org bench]
//                       [--policy bench-far] [--prefix p]
//
// Prints one JSON line: {"events":…,"statements":…,"elapsedS":…,"eventsPerS":…}.

#include "actors/trigger_lane.hpp"
#include "bench/floor.hpp"
#include "storage/db.hpp"
#include "storage/incidents.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace belay;
using steady = std::chrono::steady_clock;

struct options {
  std::string url;
  std::string mode;
  double seconds = 10;
  int threads = 0; // the incident lane of belay's --db-connections (4 by default)
  int in_flight = 64;
  std::string org = "bench";
  std::string policy = "bench-far";
  std::string prefix = "floor";
};

constexpr int hot_keys = 100; // as bench/wrk_dup.lua

const char* usage = "usage: belay_storage_floor --database-url URL --mode new|dup "
                    "[--seconds S] [--db-connections N] [--in-flight N] [--org NAME] "
                    "[--policy NAME] [--prefix P]\n";

options parse(int argc, char** argv) {
  options o;
  auto flags = bench::flags_or_exit(argc, argv, usage, {"--database-url", "--mode"});
  o.url = flags["--database-url"];
  o.mode = flags["--mode"];
  if (flags.count("--seconds"))
    o.seconds = std::atof(flags["--seconds"].c_str());
  auto connections = std::atoi(
      flags.count("--db-connections") ? flags["--db-connections"].c_str() : "4");
  o.threads =
      static_cast<int>(incident_lane_size(static_cast<size_t>(std::max(1, connections))));
  if (flags.count("--in-flight"))
    o.in_flight = std::atoi(flags["--in-flight"].c_str());
  if (flags.count("--org"))
    o.org = flags["--org"];
  if (flags.count("--policy"))
    o.policy = flags["--policy"];
  if (flags.count("--prefix"))
    o.prefix = flags["--prefix"];
  if ((o.mode != "new" && o.mode != "dup") || o.threads < 1 || o.in_flight < o.threads ||
      o.seconds <= 0) {
    std::cerr << usage;
    std::exit(2);
  }
  return o;
}

// The event bench/wrk_new.lua or wrk_dup.lua would send, as the HTTP handler makes it.
storage::trigger_event event(const options& o, int64_t org_id, const std::string& key) {
  storage::trigger_event e;
  e.cmd.org_id = org_id;
  e.cmd.dedup_key = key;
  e.cmd.title = "bench " + key;
  e.cmd.policy = o.policy;
  e.cmd.payload_json = R"({"dedupKey":")" + key + R"(","title":"bench )" + key +
                       R"(","policy":")" + o.policy + R"(","severity":"critical"})";
  e.at = bench::wall_now();
  e.owner = {"storage-floor", e.at + 30'000'000};
  return e;
}

// One worker: batches until the deadline, each with its mark and the worker's hints, as
// a storage worker writes them (actors/storage_worker.cpp). A dup worker keeps to its own
// share of the hot keys, as belay's shards do, so two workers never wait on each other's
// rows.
void work(const options& o, int64_t org_id, int id, steady::time_point deadline,
          std::atomic<int64_t>& events, std::atomic<int64_t>& statements) {
  storage::connection c{o.url};
  size_t batch = static_cast<size_t>(o.in_flight / o.threads);
  int64_t keys_each =
      std::max(1, hot_keys / o.threads); // this worker's: id, id + threads, …
  int64_t n = 0;
  storage::trigger_hints hints;
  std::mt19937_64 mark_ids{std::random_device{}()};
  int64_t last_mark = 0;
  while (steady::now() < deadline) {
    std::vector<storage::trigger_event> b;
    for (size_t i = 0; i < batch; ++i, ++n) {
      auto key =
          o.mode == "new"
              ? o.prefix + "-" + std::to_string(id) + "-" + std::to_string(n)
              : o.prefix + "-hot-" + std::to_string(id + o.threads * (n % keys_each));
      b.push_back(event(o, org_id, key));
    }
    storage::trigger_mark mark{static_cast<int64_t>(mark_ids() >> 1) | 1, b.front().at,
                               last_mark};
    for (auto& r : storage::upsert_triggers(c, b, mark, hints))
      if (r.code != reply_code::ok)
        throw std::runtime_error("a trigger was not written (is policy '" + o.policy +
                                 "' provisioned?)");
    last_mark = mark.id;
    events += static_cast<int64_t>(b.size());
    ++statements;
  }
}

} // namespace

int main(int argc, char** argv) {
  auto o = parse(argc, argv);
  try {
    auto org_id = bench::org_id(o.url, o.org);
    std::atomic<int64_t> events{0}, statements{0};
    auto start = steady::now();
    auto deadline = start + std::chrono::duration_cast<steady::duration>(
                                std::chrono::duration<double>(o.seconds));
    if (!bench::run_workers(o.threads, "belay_storage_floor", [&](int i) {
          work(o, org_id, i, deadline, events, statements);
        }))
      return 1;
    double elapsed = std::chrono::duration<double>(steady::now() - start).count();
    std::printf(
        "{\"events\":%lld,\"statements\":%lld,\"elapsedS\":%.3f,\"eventsPerS\":%.1f}\n",
        static_cast<long long>(events), static_cast<long long>(statements), elapsed,
        static_cast<double>(events) / elapsed);
  } catch (const std::exception& e) {
    std::cerr << "belay_storage_floor: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
