#include "actors/storage_router.hpp"

#include "actors/storage_functions.hpp"
#include "actors/storage_worker.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

using router_ptr = storage_router_actor::stateful_pointer<storage_router_state>;

void watch(router_ptr self) {
  auto& st = self->state;
  auto lane = st.lane.workers();
  for (size_t i = 0; i < lane.size(); ++i) {
    self->monitor(lane[i]);
    st.lane_index[lane[i].address()] = i;
  }
  if (!st.others_are_lane)
    for (size_t i = 0; i < st.others.size(); ++i) {
      self->monitor(st.others[i]);
      st.other_index[st.others[i].address()] = i;
    }
}

// A worker died: a fresh one takes its place (and, in the incident lane, joins the
// registry before any trigger can reach it).
void replace_worker(router_ptr self, const caf::actor_addr& dead) {
  auto& st = self->state;
  auto linger = st.lane_index.count(dead) > 0 ? st.linger : caf::timespan{0};
  auto fresh = spawn_storage_worker(self->system(), st.url, st.detached, linger);
  self->monitor(fresh);
  if (auto it = st.lane_index.find(dead); it != st.lane_index.end()) {
    auto i = it->second;
    st.lane_index.erase(it);
    if (st.owner)
      self->send(fresh, atom::join_lane_v, *st.owner);
    st.lane.replace(i, fresh);
    st.lane_index[fresh.address()] = i;
    if (st.others_are_lane)
      st.others[i] = fresh;
  } else if (auto it = st.other_index.find(dead); it != st.other_index.end()) {
    auto i = it->second;
    st.other_index.erase(it);
    st.others[i] = fresh;
    st.other_index[fresh.address()] = i;
  }
}

// The worker of each lane (actors/storage_operations.hpp) for an operation's arguments.
template <class... Args>
storage_worker_actor worker_for(router_ptr self, lane::incident, uint64_t shard,
                                const Args&...) {
  return self->state.lane.worker_for(shard);
}
template <class Item>
storage_worker_actor worker_for(router_ptr self, lane::steps, uint64_t shard,
                                const Item&) {
  return self->state.lane.worker_for(shard);
}
template <class... Args>
storage_worker_actor worker_for(router_ptr self, lane::other, const Args&...) {
  auto& st = self->state;
  return st.others[st.next++ % st.others.size()];
}
storage_worker_actor worker_for(router_ptr self, lane::outcomes,
                                const storage::outcome_event& outcome) {
  auto& others = self->state.others;
  return others[outcome_worker(outcome.org_id, others.size())];
}
storage_worker_actor recheck_worker_for(router_ptr self, int64_t org_id) {
  auto& st = self->state;
  return st.others[recheck_worker(org_id, st.next++, st.others.size())];
}
storage_worker_actor worker_for(router_ptr self, lane::rechecks,
                                const storage::recheck_request& request) {
  return recheck_worker_for(self,
                            request.claims.empty() ? 0 : request.claims.front().org_id);
}
storage_worker_actor worker_for(router_ptr self, lane::rechecks,
                                const storage::bundle_recheck& request) {
  return recheck_worker_for(self, request.bundle.org_id);
}

// The router's handler of one row of actors/storage_operations.def.
template <class Lane, class Atom, class Signature> struct operation_handler;

template <class Lane, class Atom, class Reply, class... Args>
struct operation_handler<Lane, Atom, Reply(Args...)> {
  static auto make(router_ptr self) {
    return [self](Atom atom, Args&... args) {
      auto worker = worker_for(self, Lane{}, args...);
      return self->delegate(worker, atom, std::move(args)...);
    };
  }
};

} // namespace

size_t outcome_worker(int64_t org_id, size_t workers) {
  return static_cast<uint64_t>(org_id) % workers;
}

size_t recheck_worker(int64_t org_id, size_t turn, size_t workers) {
  if (workers < 2)
    return 0;
  auto skipped = outcome_worker(org_id, workers);
  auto i = turn % (workers - 1);
  return i < skipped ? i : i + 1;
}

storage_router_actor::behavior_type
storage_router(router_ptr self, std::string url, bool detached, caf::timespan linger,
               trigger_lane lane, std::vector<storage_worker_actor> others) {
  auto& st = self->state;
  st.url = std::move(url);
  st.detached = detached;
  st.linger = linger;
  st.lane = std::move(lane);
  st.others_are_lane = others.empty();
  st.others = st.others_are_lane ? st.lane.workers() : std::move(others);
  watch(self);
  self->set_down_handler([self](caf::down_msg& msg) {
    if (self->state.stopping)
      return;
    spdlog::warn("storage: a worker stopped ({}); starting another",
                 to_string(msg.reason));
    replace_worker(self, msg.source);
  });
  self->set_exit_handler([self](caf::exit_msg& msg) {
    auto& st = self->state;
    st.stopping = true;
    for (auto& w : st.lane.workers())
      self->send_exit(w, msg.reason);
    if (!st.others_are_lane)
      for (auto& w : st.others)
        self->send_exit(w, msg.reason);
    self->quit(msg.reason);
  });
  return {
#define BELAY_STORAGE_OPERATION(atom_name, text, lane_name, function, signature)         \
  operation_handler<lane::lane_name, atom::atom_name, signature>::make(self),
#include "actors/storage_operations.def"
#undef BELAY_STORAGE_OPERATION
      // start_node joins the current workers itself; this is for the ones started later.
      [self](atom::join_lane, trigger_owner& owner) {
        self->state.owner = std::move(owner);
      },
      [self](atom::children) {
        auto& st = self->state;
        auto all = st.lane.workers();
        if (!st.others_are_lane)
          all.insert(all.end(), st.others.begin(), st.others.end());
        return all;
      },
  };
}

storage_actors spawn_storage(caf::actor_system& sys, const std::string& database_url,
                             size_t workers, bool detached, caf::timespan linger) {
  auto n = std::max<size_t>(workers, 1);
  auto lane_size = incident_lane_size(n);
  // Only a lane of its own lingers: the other lane's claims and re-checks are chains of
  // waits (a page goes once its re-check answered), and 1 ms more on each cut the drain
  // by a fifth (bench/JOURNAL.md, 6 December, eleventh session).
  auto lane_linger = lane_size < n ? linger : caf::timespan{0};
  std::vector<storage_worker_actor> all;
  for (size_t i = 0; i < n; ++i)
    all.push_back(spawn_storage_worker(sys, database_url, detached,
                                       i < lane_size ? lane_linger : caf::timespan{0}));
  auto half = all.begin() + static_cast<long>(lane_size);
  trigger_lane lane{{all.begin(), half}};
  auto router = sys.spawn(storage_router, database_url, detached, lane_linger, lane,
                          std::vector<storage_worker_actor>{half, all.end()});
  return {router, lane};
}

} // namespace belay
