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
//
// With --rate R it is an open loop instead, the floor of the latency scenario: events
// come due at R a second, whether or not earlier ones were written, and each worker
// writes whatever is due when it is free (at most its share of --in-flight), as a storage
// worker writes what its mailbox holds. Each event's latency runs from when it was due to
// its commit; the line adds "p50Ms", "p99Ms" and "maxMs".

#include "actors/trigger_lane.hpp"
#include "bench/floor.hpp"
#include "storage/db.hpp"
#include "storage/incidents.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using namespace belay;
using steady = std::chrono::steady_clock;

struct options {
  std::string url;
  std::string mode;
  double seconds = 10;
  double rate = 0; // events/s, open loop; 0 = as fast as the workers write
  int threads = 0; // the incident lane of belay's --db-connections (4 by default)
  int in_flight = 64;
  std::string org = "bench";
  std::string policy = "bench-far";
  std::string prefix = "floor";
};

constexpr int hot_keys = 100; // as bench/wrk_dup.lua

const char* usage = "usage: belay_storage_floor --database-url URL --mode new|dup "
                    "[--seconds S] [--db-connections N] [--in-flight N] [--org NAME] "
                    "[--policy NAME] [--prefix P] [--rate EVENTS_PER_S]\n";

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
  if (flags.count("--rate"))
    o.rate = std::atof(flags["--rate"].c_str());
  if ((o.mode != "new" && o.mode != "dup") || o.threads < 1 || o.in_flight < o.threads ||
      o.seconds <= 0 || o.rate < 0) {
    std::cerr << usage;
    std::exit(2);
  }
  return o;
}

// The event bench/wrk_new.lua or wrk_dup.lua would send, as the HTTP handler makes it.
storage::trigger_event event(const options& o, int64_t org_id, const std::string& key) {
  trigger_command cmd;
  cmd.org_id = org_id;
  cmd.dedup_key = key;
  cmd.title = "bench " + key;
  cmd.policy = o.policy;
  cmd.payload_json = R"({"dedupKey":")" + key + R"(","title":"bench )" + key +
                     R"(","policy":")" + o.policy + R"(","severity":"critical"})";
  return bench::stamped(std::move(cmd), "storage-floor");
}

// The open loop's schedule: the times events came due, not yet taken by a worker, and the
// latency of every event written.
struct schedule {
  std::mutex m;
  std::condition_variable due_cv;
  std::vector<steady::time_point> due;
  bool over = false;
  std::vector<double> latencies_ms;
};

// Events come due at o.rate a second until the deadline, then the schedule is over.
void make_due(const options& o, steady::time_point start, steady::time_point deadline,
              schedule& s) {
  for (int64_t i = 0;; ++i) {
    auto at = start + std::chrono::duration_cast<steady::duration>(
                          std::chrono::duration<double>(static_cast<double>(i) / o.rate));
    if (at >= deadline)
      break;
    std::this_thread::sleep_until(at);
    std::lock_guard<std::mutex> lock(s.m);
    s.due.push_back(at);
    s.due_cv.notify_one();
  }
  std::lock_guard<std::mutex> lock(s.m);
  s.over = true;
  s.due_cv.notify_all();
}

// Takes up to `most` of the events due, waiting for one; none once the schedule is over.
std::vector<steady::time_point> take_due(schedule& s, size_t most) {
  std::unique_lock<std::mutex> lock(s.m);
  s.due_cv.wait(lock, [&] { return !s.due.empty() || s.over; });
  size_t n = std::min(most, s.due.size());
  std::vector<steady::time_point> taken(s.due.begin(),
                                        s.due.begin() + static_cast<long>(n));
  s.due.erase(s.due.begin(), s.due.begin() + static_cast<long>(n));
  return taken;
}

// One worker: batches until the deadline (or, open loop, until the schedule is over),
// each with its mark and the worker's hints, as a storage worker writes them
// (actors/storage_worker.cpp). A dup worker keeps to its own share of the hot keys, as
// belay's shards do, so two workers never wait on each other's rows.
void work(const options& o, int64_t org_id, int id, steady::time_point deadline,
          std::atomic<int64_t>& events, std::atomic<int64_t>& statements,
          schedule* open_loop) {
  storage::connection c{o.url};
  size_t batch = static_cast<size_t>(o.in_flight / o.threads);
  int64_t keys_each =
      std::max(1, hot_keys / o.threads); // this worker's: id, id + threads, …
  int64_t n = 0;
  storage::trigger_hints hints;
  bench::mark_sequence marks;
  while (open_loop || steady::now() < deadline) {
    std::vector<steady::time_point> due;
    if (open_loop) {
      due = take_due(*open_loop, batch);
      if (due.empty())
        break;
    }
    std::vector<storage::trigger_event> b;
    for (size_t i = 0; i < (open_loop ? due.size() : batch); ++i, ++n) {
      auto key =
          o.mode == "new"
              ? o.prefix + "-" + std::to_string(id) + "-" + std::to_string(n)
              : o.prefix + "-hot-" + std::to_string(id + o.threads * (n % keys_each));
      b.push_back(event(o, org_id, key));
    }
    auto mark = marks.next(b.front().at);
    for (auto& r : storage::upsert_triggers(c, b, mark, hints))
      if (r.code != reply_code::ok)
        throw std::runtime_error("a trigger was not written (is policy '" + o.policy +
                                 "' provisioned?)");
    marks.committed(mark);
    events += static_cast<int64_t>(b.size());
    ++statements;
    if (open_loop) {
      auto written = steady::now();
      std::lock_guard<std::mutex> lock(open_loop->m);
      for (auto at : due)
        open_loop->latencies_ms.push_back(
            std::chrono::duration<double, std::milli>(written - at).count());
    }
  }
}

double percentile(std::vector<double>& v, double p) {
  if (v.empty())
    return 0;
  auto k = static_cast<size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
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
    schedule open_loop;
    std::thread due_maker;
    if (o.rate > 0)
      due_maker = std::thread([&] { make_due(o, start, deadline, open_loop); });
    bool ok = bench::run_workers(o.threads, "belay_storage_floor", [&](int i) {
      work(o, org_id, i, deadline, events, statements, o.rate > 0 ? &open_loop : nullptr);
    });
    if (due_maker.joinable())
      due_maker.join();
    if (!ok)
      return 1;
    double elapsed = std::chrono::duration<double>(steady::now() - start).count();
    std::printf(
        "{\"events\":%lld,\"statements\":%lld,\"elapsedS\":%.3f,\"eventsPerS\":%.1f",
        static_cast<long long>(events), static_cast<long long>(statements), elapsed,
        static_cast<double>(events) / elapsed);
    auto& l = open_loop.latencies_ms;
    if (o.rate > 0)
      std::printf(",\"p50Ms\":%.3f,\"p99Ms\":%.3f,\"maxMs\":%.3f", percentile(l, 0.5),
                  percentile(l, 0.99),
                  l.empty() ? 0.0 : *std::max_element(l.begin(), l.end()));
    std::printf("}\n");
  } catch (const std::exception& e) {
    std::cerr << "belay_storage_floor: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
