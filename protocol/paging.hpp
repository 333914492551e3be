// Who a ladder step pages (docs/guarantees.md#on-call): channel targets as they are, a
// user through each of their notification rules, a schedule through whoever is on call at
// the step's scheduled time. Pure: the people come in as data.
#pragma once

#include "protocol/model.hpp"
#include "protocol/oncall.hpp"

#include <map>
#include <string>
#include <vector>

namespace belay::protocol {

// One delivery a step creates.
struct page_target {
  std::string channel;
  std::string to;
  micros delay = 0;     // after the step fired (a user's rule); 0 for channel targets
  std::string user;     // whom it reaches, when a person
  std::string schedule; // through which schedule, when one
  // The contact wants one more message when the incident is acknowledged or resolved.
  bool status_updates = false;
};

// An org's people as the expansion needs them.
struct org_people {
  std::map<std::string, user_config> users;
  std::map<std::string, schedule> schedules; // zones resolved
  // Each schedule's overrides near the instant asked about.
  std::map<std::string, std::vector<schedule_override>> overrides;
};

struct step_pages {
  std::vector<page_target> pages;
  std::vector<std::string> nobody_on_call; // schedules that had nobody at `at`
};

// The deliveries of `targets` for a step scheduled at `at`. A user or schedule that no
// longer exists pages nobody (provisioning checked them when the policy was written; a
// later file may have removed them) and a schedule counts as having nobody on call.
step_pages expand_targets(const std::vector<target>& targets, const org_people& people,
                          micros at);

// Whether any target names a person or a schedule (the people must be read first).
bool needs_people(const std::vector<target>& targets);

} // namespace belay::protocol
