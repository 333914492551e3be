#include "actors/org_counts.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace belay::org_counts {

namespace {

std::mutex mutex;
std::map<std::pair<uint64_t, int64_t>, registry_stats>& all() {
  static std::map<std::pair<uint64_t, int64_t>, registry_stats> counts;
  return counts;
}

} // namespace

void add(uint64_t registry_id, int64_t org, counted what, uint64_t n) {
  std::lock_guard lock{mutex};
  auto& s = all()[{registry_id, org}];
  switch (what) {
  case counted::created:
    s.created += n;
    break;
  case counted::deduplicated:
    s.deduplicated += n;
    break;
  case counted::respawned:
    s.respawned += n;
    break;
  case counted::adopted:
    s.adopted += n;
    break;
  }
}

registry_stats of(uint64_t registry_id, int64_t org) {
  std::lock_guard lock{mutex};
  auto it = all().find({registry_id, org});
  return it == all().end() ? registry_stats{} : it->second;
}

} // namespace belay::org_counts
