#include "actors/trigger_lane.hpp"

#include "storage/incidents.hpp"

namespace belay {

trigger_lane::trigger_lane() : shared_(std::make_shared<shared>()) {}

trigger_lane::trigger_lane(std::vector<storage_worker_actor> workers) : trigger_lane() {
  shared_->workers = std::move(workers);
}

storage_worker_actor trigger_lane::worker_for(uint64_t shard) const {
  std::lock_guard lock{shared_->mutex};
  return shared_->workers[shard % shared_->workers.size()];
}

storage_worker_actor trigger_lane::worker_for(int64_t org_id,
                                              const std::string& dedup_key) const {
  return worker_for(incident_shard(org_id, dedup_key));
}

std::vector<storage_worker_actor> trigger_lane::workers() const {
  std::lock_guard lock{shared_->mutex};
  return shared_->workers;
}

void trigger_lane::replace(size_t index, storage_worker_actor worker) {
  std::lock_guard lock{shared_->mutex};
  shared_->workers.at(index) = std::move(worker);
}

} // namespace belay
