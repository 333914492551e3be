// What the floors of scripts/bench share (bench/storage_floor.cpp, delivery_floor.cpp):
// their flags, the org they write for, the wall clock their rows carry, and the worker
// threads whose first failure fails the run.
#pragma once

#include "storage/db.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <map>
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
