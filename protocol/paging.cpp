#include "protocol/paging.hpp"

#include "protocol/ladder.hpp"

#include <algorithm>

namespace belay::protocol {

namespace {

void page_user(const user_config& u, const std::string& via_schedule, step_pages& out) {
  for (auto& rule : u.rules)
    for (auto& c : u.contacts)
      if (c.name == rule.contact)
        out.pages.push_back({c.channel, c.to, seconds_to_micros(rule.delay_seconds),
                             u.name, via_schedule, c.status_updates});
}

} // namespace

bool needs_people(const std::vector<target>& targets) {
  return std::any_of(targets.begin(), targets.end(),
                     [](const target& t) { return !t.is_address(); });
}

step_pages expand_targets(const std::vector<target>& targets, const org_people& people,
                          micros at) {
  static const std::vector<schedule_override> none;
  step_pages out;
  for (auto& t : targets) {
    if (t.is_address()) {
      out.pages.push_back({t.channel, t.to, 0, {}, {}, false});
    } else if (t.is_user()) {
      if (auto u = people.users.find(t.user); u != people.users.end())
        page_user(u->second, {}, out);
    } else {
      auto s = people.schedules.find(t.schedule);
      std::optional<shift> now;
      if (s != people.schedules.end()) {
        auto o = people.overrides.find(t.schedule);
        now = on_call_at(s->second, o == people.overrides.end() ? none : o->second, at);
      }
      auto u = now ? people.users.find(now->user) : people.users.end();
      if (u == people.users.end())
        out.nobody_on_call.push_back(t.schedule);
      else
        page_user(u->second, t.schedule, out);
    }
  }
  return out;
}

} // namespace belay::protocol
