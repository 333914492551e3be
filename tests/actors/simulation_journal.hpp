// What the simulation's client side saw (tests/actors/simulation_test.cpp): every
// operation in the order it was issued — a single client on the test scheduler, so that
// is also the order its writes committed in — with what was answered and when, and the
// model the invariants are checked against: which events were accepted, which incidents
// the client opened and when, and when they were settled.
#pragma once

#include "actors/clock.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace belay::test {

struct journal_entry {
  uint64_t seq = 0; // the operation's place in the run, from 1
  micros at = 0;    // simulated wall time when it was issued
  std::string what;
  std::string answer; // what the node answered, or why there was no answer
};

// An event answered 2xx: G3 says its incident exists with its key.
struct accepted_event {
  uint64_t seq = 0;
  std::string key;
  int64_t incident = 0;
};

// An incident as the client knows it: opened by a trigger it saw answered "created" at
// `opened`, on `policy`. Its ladder is modelled only while nothing the client could not
// see may have changed it (a reopen, a settle whose answer was lost).
struct modelled_incident {
  micros opened = 0;
  std::string policy;
  std::optional<micros> settled; // the earliest acknowledge or resolve that may have
                                 // committed
  bool modelled = true;
};

class simulation_journal {
public:
  uint64_t begin(micros at, std::string what) {
    entries_.push_back({entries_.size() + 1, at, std::move(what), {}});
    return entries_.back().seq;
  }
  void answer(std::string answer) { entries_.back().answer = std::move(answer); }

  void accepted(const std::string& key, int64_t incident, bool created, micros at,
                const std::string& policy) {
    events_.push_back({entries_.back().seq, key, incident});
    auto [it, fresh] = incidents_.try_emplace(incident);
    if (fresh && created) {
      it->second.opened = at;
      it->second.policy = policy;
    } else if (fresh || it->second.settled) {
      it->second.modelled = false; // joined before the client saw it open, or reopened
    }
  }
  // An alert of a grouping integration answered 2xx with `incident`, to which it
  // belongs (G3 for alerts); accepted() takes its event as its incident's.
  void accepted_alert(const std::string& alert_key, int64_t incident) {
    alerts_.push_back({entries_.back().seq, alert_key, incident});
  }
  // An acknowledge or resolve that may have committed at `at` (answered or not).
  void may_settle(int64_t incident, micros at) {
    auto& i = incidents_[incident];
    if (!i.settled || at < *i.settled)
      i.settled = at;
  }
  const std::vector<accepted_event>& events() const { return events_; }
  const std::vector<accepted_event>& alerts() const { return alerts_; }
  const std::map<int64_t, modelled_incident>& incidents() const { return incidents_; }
  const std::vector<journal_entry>& entries() const { return entries_; }

  // An operation's line in what a failure prints (simulation_test.cpp).
  static std::string line(const journal_entry& e) {
    return "#" + std::to_string(e.seq) + " t=" + std::to_string(e.at) + " " + e.what +
           (e.answer.empty() ? "" : " -> " + e.answer);
  }

private:
  std::vector<journal_entry> entries_;
  std::vector<accepted_event> events_;
  std::vector<accepted_event> alerts_; // key: the alert's
  std::map<int64_t, modelled_incident> incidents_;
};

} // namespace belay::test
