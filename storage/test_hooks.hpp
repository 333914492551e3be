// Switches that turn one guard of storage off, for the simulation's planted-bug tests
// only (tests/actors/simulation_test.cpp), as actors/test_hooks.hpp's do for the actors:
// storage cannot include that layer above it. Nothing outside tests sets them; all are
// off by default.
#pragma once

#include <atomic>
#include <initializer_list>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace belay::test_hooks {

// Resolving the last firing alert of an incident leaves the incident as it was, not
// resolved (docs/guarantees.md#alerts-and-grouping).
inline std::atomic<bool> keep_incident_after_last_alert{false};
// A step's compare-and-set no longer asks that its incident be still OPEN and unchanged
// (status and version), only that it stand on that step: an acknowledge or resolve its
// actor has not heard of does not stop it (docs/guarantees.md#g4).
inline std::atomic<bool> step_ignores_settle{false};
// A step's compare-and-set no longer asks that its incident stand on that step of that
// loop, unchanged (step, loop and version), only that it be OPEN: a step retried after
// its write committed unseen fires again (docs/guarantees.md#g5).
inline std::atomic<bool> step_fires_again{false};
// An alert of a grouping integration opens or joins its incident, counted, but its alert
// row is not written (docs/guarantees.md#alerts-and-grouping).
inline std::atomic<bool> alert_row_not_written{false};
// A resolve leaves its incident's count of firing alerts as it was, instead of setting it
// to none (docs/guarantees.md#alerts-and-grouping: resolving an incident resolves its
// alerts).
inline std::atomic<bool> resolve_keeps_firing_count{false};
// An alert's events are written as a new alert without looking for the firing alert of
// their key first (docs/guarantees.md#alerts-and-grouping). The partial unique index
// alert_firing_key still refuses a second firing alert; the test that plants this drops
// it too (G1 for alerts has both guards).
inline std::atomic<bool> skip_firing_alert_lookup{false};
// Every outcome recorded writes a dead letter, not only one that leaves its delivery DEAD
// (docs/guarantees.md#g7: a dead letter after maxAttempts).
inline std::atomic<bool> dead_letter_every_outcome{false};
// The poll's release of lapsed claims releases none: a claim whose holder is gone for
// good (its node killed and replaced under another name) stays CLAIMED, its page never
// sent again (docs/guarantees.md#g6: a claim whose lease lapses returns to the pool).
inline std::atomic<bool> keep_lapsed_claims{false};
// The end of a snooze starts its ladder again without a round of its own (restarts):
// its first step's page has the key of the step that paged before the acknowledge, so it
// is never written (docs/guarantees.md#working-an-incident: new idempotency keys).
inline std::atomic<bool> snooze_end_keeps_round{false};

// `sql`, or while `on` is set, `sql` with each edit's first text replaced by its second:
// how a switch takes a condition out of a statement. The edited statement is made the
// first time a test turns the switch on, and kept (a statement is a constant); an edit
// whose text the statement no longer holds throws, so that a statement rewritten since
// cannot leave its planted bug planting nothing.
using sql_edit = std::pair<std::string_view, std::string_view>;
inline const std::string& planted(const std::atomic<bool>& on, const std::string& sql,
                                  std::initializer_list<sql_edit> edits) {
  if (!on)
    return sql;
  static std::mutex mutex;
  static std::map<std::pair<const std::atomic<bool>*, const std::string*>, std::string>
      made;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = made.try_emplace({&on, &sql}, sql);
  if (fresh)
    for (auto [guard, replacement] : edits) {
      auto at = it->second.find(guard);
      if (at == std::string::npos) {
        made.erase(it);
        throw std::logic_error("planted bug: the statement no longer holds '" +
                               std::string{guard} + "'");
      }
      it->second.replace(at, guard.size(), replacement);
    }
  return it->second;
}

} // namespace belay::test_hooks
