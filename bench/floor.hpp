// What the floors of scripts/bench share (bench/storage_floor.cpp, delivery_floor.cpp):
// their flags, the org they write for, the wall clock their rows carry, and the worker
// threads whose first failure fails the run.
#pragma once

#include "storage/db.hpp"
#include "storage/incidents.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace belay::bench {

// "--flag value" pairs; exits 2 with `usage` when they do not pair up or one of
// `required` is missing.
inline std::map<std::string, std::string>
flags_or_exit(int argc, char** argv, const char* usage,
              std::initializer_list<const char*> required) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i + 1 < argc; i += 2)
    flags[argv[i]] = argv[i + 1];
  bool ok = argc % 2 == 1;
  for (auto name : required)
    ok = ok && flags.count(name);
  if (!ok) {
    std::cerr << usage;
    std::exit(2);
  }
  return flags;
}

inline micros wall_now() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

// A trigger as a storage worker receives it: stamped now, with the lease its incident's
// owner takes if it opens one.
inline storage::trigger_event stamped(trigger_command cmd, const char* owner) {
  storage::trigger_event e;
  e.cmd = std::move(cmd);
  e.at = wall_now();
  e.owner = {owner, e.at + 30'000'000};
  return e;
}

// The marks of one writer's trigger batches, as a storage worker keeps them: a fresh
// id each, naming the last one that committed.
struct mark_sequence {
  std::mt19937_64 ids{std::random_device{}()};
  int64_t last = 0;
  storage::trigger_mark next(micros at) {
    return {static_cast<int64_t>(ids() >> 1) | 1, at, last};
  }
  void committed(const storage::trigger_mark& m) { last = m.id; }
};

// The provisioned org's id; throws when there is none.
inline int64_t org_id(const std::string& url, const std::string& name) {
  storage::connection c{url};
  auto r = c.query(std::string{"SELECT id FROM org WHERE name = $1"}, name);
  if (r.rows() != 1)
    throw std::runtime_error("no org '" + name + "' (provision the database first)");
  return r.int64(0, 0);
}

// Runs work(i) for i in [0, n) on a thread each; false when any of them threw (what it
// threw is printed after `tool`).
template <class Work> bool run_workers(int n, const char* tool, Work work) {
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      try {
        work(i);
      } catch (const std::exception& e) {
        std::cerr << tool << ": " << e.what() << "\n";
        failed = true;
      }
    });
  for (auto& t : threads)
    t.join();
  return !failed;
}

} // namespace belay::bench
