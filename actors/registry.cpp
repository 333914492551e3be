#include "actors/registry.hpp"

#include "actors/gather.hpp"
#include "actors/incident.hpp"
#include "actors/metrics.hpp"
#include "actors/org_counts.hpp"
#include "actors/test_hooks.hpp"
#include "actors/trigger_lane.hpp"
#include "protocol/commands.hpp"
#include "storage/actions.hpp"
#include "storage/incidents.hpp"
#include "storage/merges.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/exit_reason.hpp>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

using self_ptr = registry_actor::stateful_pointer<registry_state>;

micros now(self_ptr self) {
  return self->state.d->clock.at(self->clock().now());
}

storage::ownership owner(self_ptr self) {
  auto& d = *self->state.d;
  return {d.node_id, now(self) + static_cast<micros>(d.lease_seconds * 1e6)};
}

void respawn(self_ptr self, int64_t org, int64_t id);

// Spawns the incident's actor unless one holds it already; returns whether it did (or,
// for a row read without its ladder, started loading it whole).
bool hold(self_ptr self, storage::held_incident h) {
  auto& st = self->state;
  auto& rec = h.incident;
  if (rec.status == status_resolved || st.by_id.count(rec.id) || st.stopping)
    return false;
  if (!h.ladder) { // read without its ladder: load it whole
    respawn(self, rec.org_id, rec.id);
    return true;
  }
  auto actor = self->spawn(incident, rec, std::move(h.ladder), st.d);
  self->monitor(actor);
  st.by_id[rec.id] = {actor, rec.org_id};
  st.id_of[actor->address()] = rec.id;
  return true;
}

// The live actor holding the incident, if this node holds it for that org.
incident_actor held_actor(self_ptr self, int64_t org, int64_t id) {
  auto it = self->state.by_id.find(id);
  return it != self->state.by_id.end() && it->second.org_id == org ? it->second.actor
                                                                   : incident_actor{};
}

// Counts a transition once it committed, whichever path it took.
void count_transition(const transition_command& cmd, const transition_reply& r) {
  if (r.code != reply_code::ok)
    return;
  metrics::count_transition(cmd.kind == transition::ack);
  if (cmd.kind == transition::resolve && cmd.source != "native")
    metrics::count(metrics::name::events_total,
                   {{"format", cmd.source}, {"outcome", "resolved"}});
}

// An incident actor died without resolving its incident: start it again from the
// row, so its ladder resumes where the database says it stands.
void respawn(self_ptr self, int64_t org, int64_t id) {
  if (self->state.stopping) // storage is stopping too: nothing new starts
    return;
  // By id the incident's shard is unknown; any worker of the lane will do for a read.
  self->request(self->state.d->storage, self->state.d->request_timeout,
                atom::load_incident_v, static_cast<uint64_t>(id), org, id)
      .then(
          [self](std::optional<storage::held_incident>& h) {
            if (h && h->incident.status != status_resolved) {
              ++self->state.stats.respawned;
              org_counts::add(self->id(), h->incident.org_id,
                              org_counts::counted::respawned);
              hold(self, std::move(*h));
            }
          },
          [self, org, id](caf::error& err) {
            if (self->state.stopping) // failed because storage stopped
              return;
            spdlog::error("registry: cannot respawn incident {}: {}", id, to_string(err));
            self->delayed_send(self, self->state.d->db_retry, atom::respawn_v, org, id);
          });
}

// No live actor holds the incident here: the compare-and-set in the database is the
// whole story.
void transit_in_storage(self_ptr self, caf::typed_response_promise<transition_reply> rp,
                        transition_command cmd) {
  // By key, the incident's shard is known; by id it is not, and any worker will do.
  auto shard = cmd.incident_id == 0 ? incident_shard(cmd.org_id, cmd.dedup_key)
                                    : static_cast<uint64_t>(cmd.incident_id);
  self->request(self->state.d->storage, self->state.d->request_timeout,
                atom::apply_transition_v, shard, cmd, now(self))
      .then(
          [self, rp, cmd](transition_reply& r) mutable {
            count_transition(cmd, r);
            if (r.code == reply_code::ok) // tell the local holder, if any
              if (auto actor = held_actor(self, cmd.org_id, r.incident.id))
                self->send(actor, atom::follow_v, r.incident);
            rp.deliver(std::move(r));
          },
          [rp](caf::error& err) mutable { rp.deliver(err); });
}

storage::incident_keys held_keys(self_ptr self) {
  storage::incident_keys keys;
  keys.reserve(self->state.by_id.size());
  for (auto& [id, held] : self->state.by_id)
    keys.emplace_back(held.org_id, id);
  return keys;
}

// Each held actor among `keys` takes its row as it stands, with its ladder (a reassign
// changes it), as it would on the local path; older news is ignored there.
void tell_current(self_ptr self, storage::incident_keys keys) {
  self->request(self->state.d->storage, self->state.d->request_timeout,
                atom::current_among_v, std::move(keys))
      .then(
          [self](std::vector<storage::held_incident>& current) {
            for (auto& h : current) {
              if (h.incident.resolved_via == "merge") // another node merged
                storage::note_merges();
              if (auto actor = held_actor(self, h.incident.org_id, h.incident.id))
                self->send(actor, atom::follow_v, std::move(h));
            }
          },
          [](caf::error& err) {
            spdlog::warn("registry: cannot read the incidents it holds: {}",
                         to_string(err));
          });
}

// The pages an action wrote (responders, a status update) are claimed now, not at the
// channels' next poll.
void answer_action(self_ptr self, caf::typed_response_promise<storage::action_reply>& rp,
                   storage::action_reply& r) {
  if (self->state.d->dispatcher)
    for (auto& channel : r.channels)
      self->send(self->state.d->dispatcher, atom::nudge_v, r.held.incident.org_id,
                 channel);
  rp.deliver(std::move(r));
}

// An action on an incident no live actor holds here: the database decides, and the node
// holding it, if any, hears through NOTIFY.
void act_in_storage(self_ptr self, caf::typed_response_promise<storage::action_reply> rp,
                    incident_action action) {
  self->request(self->state.d->storage, self->state.d->request_timeout,
                atom::apply_action_v, static_cast<uint64_t>(action.incident_id), action,
                now(self))
      .then([self, rp](storage::action_reply& r) mutable { answer_action(self, rp, r); },
            [rp](caf::error& err) mutable { rp.deliver(err); });
}

// Another node took over incidents while this node's lease had lapsed: their actors here
// stop (until then, the step compare-and-set kept the two nodes from paging twice).
void let_go(self_ptr self) {
  self->request(self->state.d->storage, self->state.d->request_timeout,
                atom::owned_elsewhere_v, self->state.d->node_id, held_keys(self))
      .then(
          [self](std::vector<int64_t>& moved) {
            auto& st = self->state;
            for (auto id : moved) {
              auto it = st.by_id.find(id);
              if (it == st.by_id.end())
                continue;
              auto actor = it->second.actor;
              st.id_of.erase(actor->address());
              st.by_id.erase(it);
              self->demonitor(actor.address());
              self->send_exit(actor, caf::exit_reason::user_shutdown);
            }
            spdlog::warn("registry: this node's lease had lapsed; other nodes took over "
                         "{} of its incidents, whose actors here stop",
                         moved.size());
          },
          [](caf::error& err) {
            spdlog::error("registry: cannot find which incidents moved: {}",
                          to_string(err));
          });
}

// Stopping: the incident actors are told to exit a slice at a time, the next as the
// last ones go down, and the registry quits after the last. Told all at once, 1,000,000
// of them waited in one worker's queue, from whose tail CAF 0.17's work stealing takes a
// job by walking the whole queue (double_ended_queue::take_tail): stopping took 115 s
// (bench/README.md).
constexpr size_t exiting_at_most = 256;

void tell_some_to_exit(self_ptr self) {
  auto& st = self->state;
  auto down = st.to_exit.size() - st.by_id.size(); // told or not (some resolved)
  while (st.exit_next < st.to_exit.size() && st.exit_next < down + exiting_at_most)
    self->send_exit(st.to_exit[st.exit_next++], st.exit_reason);
  if (st.by_id.empty())
    self->quit(st.exit_reason);
}

caf::timespan seconds(double s) {
  return std::chrono::duration_cast<caf::timespan>(std::chrono::duration<double>(s));
}

caf::timespan renewal_interval(self_ptr self) {
  return seconds(self->state.d->lease_seconds / 3);
}

// Every third of the lease: renew it, and take over the incidents of nodes whose leases
// lapsed (docs/architecture.md#ownership), so a node that dies still has its ladders run
// (G5).
void renew(self_ptr self) {
  if (self->state.stopping) // storage is stopping too: nothing new starts
    return;
  self->request(self->state.d->storage, self->state.d->request_timeout,
                atom::renew_lease_v, owner(self), now(self))
      .then(
          [self](storage::lease_renewal& r) {
            if (r.lost)
              let_go(self);
            if (!r.taken.empty())
              spdlog::warn("registry: took over {} incidents from nodes whose leases "
                           "lapsed",
                           r.taken.size());
            for (auto& h : r.taken)
              hold(self, std::move(h));
            self->delayed_send(self, renewal_interval(self), atom::renew_tick_v);
          },
          [self](caf::error& err) {
            if (self->state.stopping) // failed because storage stopped
              return;
            spdlog::error("registry: cannot renew this node's lease: {}", to_string(err));
            self->delayed_send(self, self->state.d->db_retry, atom::renew_tick_v);
          });
}

// The most orphans one sweep adopts: a backlog is worked off over several passes,
// instead of one pass spawning thousands of actors and firing their steps at once.
constexpr int orphans_per_sweep = 200;

constexpr micros retention_interval = 60'000'000;
constexpr int retention_batch = 500;

void sweep_page(self_ptr self, storage::orphan_sweep req, uint64_t adopted);

// The orphan sweep (docs/guarantees.md#every-accepted-event-pages): non-resolved
// incidents with an overdue step and no live holder get one here. A lost reply (a trigger
// write nobody could read back, a takeover whose answer never came) or a node gone
// without a word leaves such incidents; adoption at start and lease takeover see only
// some of them. A step is overdue once due for a whole sweep period: a live actor fires
// it long before.
void sweep(self_ptr self) {
  auto& st = self->state;
  if (st.stopping) // storage is stopping too: nothing new starts
    return;
  auto& d = *st.d;
  auto at = now(self);
  storage::orphan_sweep req{owner(self), at,
                            at - static_cast<micros>(d.orphan_sweep_seconds * 1e6),
                            orphans_per_sweep};
  for (auto id : st.lagging)
    if (st.by_id.count(id))
      req.held.push_back(id);
  // Retention rides on the sweep, one batch a minute: a backlog (the first start with
  // retention) goes over many minutes instead of one long statement.
  if (d.retention_days > 0 && at - st.retained_at >= retention_interval) {
    st.retained_at = at;
    req.resolved_before = at - static_cast<micros>(d.retention_days * 86'400e6);
    req.retention_batch = retention_batch;
  }
  if (d.audit_retention_days > 0 && at - st.audit_retained_at >= retention_interval) {
    st.audit_retained_at = at;
    req.audit_before = at - static_cast<micros>(d.audit_retention_days * 86'400e6);
  }
  sweep_page(self, std::move(req), 0);
}

// One pass of a sweep. Its own incidents that live actors hold come back too (the
// database cannot tell them from those whose actor was never told): a full pass with
// such laggards in it (a storm) may hide real orphans behind them, so the sweep passes
// them over and looks again at once, until a pass is not full or adopted its share.
void sweep_page(self_ptr self, storage::orphan_sweep req, uint64_t adopted) {
  auto period = seconds(self->state.d->orphan_sweep_seconds);
  self->request(self->state.d->storage,
                std::max<caf::timespan>(period, std::chrono::seconds{30}),
                atom::sweep_orphans_v, req)
      .then(
          [self, period, req,
           adopted](std::vector<storage::held_incident>& found) mutable {
            auto& st = self->state;
            auto passed = req.held.size();
            uint64_t now_adopted = 0;
            for (auto& h : found) {
              if (st.by_id.count(h.incident.id))
                req.held.push_back(h.incident.id);
              else if (auto org = h.incident.org_id; hold(self, std::move(h))) {
                ++now_adopted;
                org_counts::add(self->id(), org, org_counts::counted::adopted);
              }
            }
            if (now_adopted > 0) {
              st.stats.adopted += now_adopted;
              metrics::count(metrics::name::orphans_adopted_total, {},
                             static_cast<double>(now_adopted));
              spdlog::warn("registry: adopted {} overdue incidents that no live actor "
                           "held",
                           now_adopted);
            }
            adopted += now_adopted;
            bool hidden = found.size() >= static_cast<size_t>(req.limit) &&
                          req.held.size() > passed && adopted < orphans_per_sweep;
            if (hidden && !st.stopping) {
              req.resolved_before = 0; // retention ran with the first pass
              req.audit_before = 0;
              return sweep_page(self, std::move(req), adopted);
            }
            st.lagging = std::move(req.held);
            self->delayed_send(self, period, atom::sweep_tick_v);
          },
          [self, period](caf::error& err) {
            if (self->state.stopping) // failed because storage stopped
              return;
            spdlog::error("registry: the orphan sweep failed: {}", to_string(err));
            self->delayed_send(self, period, atom::sweep_tick_v);
          });
}

// Adoption at start, a page at a time (storage::adoption_page), each page's incidents
// held as it arrives: the page after the key (after_org, after_id), where the previous
// one ended; `total` is how many were held so far. Each page is a request of its own,
// with its own deadline.
void adopt_page(self_ptr self, caf::typed_response_promise<size_t> rp, int64_t after_org,
                int64_t after_id, size_t total) {
  storage::adoption_page page{owner(self), now(self), after_org, after_id,
                              self->state.d->adopt_page_size};
  self->request(self->state.d->storage, self->state.d->request_timeout,
                atom::adopt_unresolved_v, page)
      .then(
          [self, rp, total](storage::adopted& got) mutable {
            auto before = total;
            total += got.held.size();
            if (got.more) {
              // The next page is read while this one's actors are spawned (1,000,000
              // open: ~240 ms of statement and ~400 ms of spawning per 10,000); its
              // reply comes after this handler, so every page is held in order.
              adopt_page(self, rp, got.last_org, got.last_id, total);
            }
            for (auto& h : got.held)
              hold(self, std::move(h));
            if (got.more) {
              if (total / 100000 != before / 100000)
                spdlog::info("registry: adopting, {} non-resolved incidents so far",
                             total);
              return;
            }
            spdlog::info("registry: adopted {} non-resolved incidents", total);
            if (!std::exchange(self->state.renewing, true)) { // adoption renewed it
              self->delayed_send(self, renewal_interval(self), atom::renew_tick_v);
              if (self->state.d->orphan_sweep_seconds > 0)
                self->delayed_send(self, seconds(self->state.d->orphan_sweep_seconds),
                                   atom::sweep_tick_v);
            }
            rp.deliver(total);
          },
          [rp](caf::error& err) mutable { rp.deliver(err); });
}

} // namespace

registry_actor::behavior_type
registry(registry_actor::stateful_pointer<registry_state> self, deps d) {
  self->state.d = std::make_shared<const deps>(std::move(d));
  self->set_down_handler([self](caf::down_msg& msg) {
    auto& st = self->state;
    auto it = st.id_of.find(msg.source);
    if (it == st.id_of.end())
      return;
    auto id = it->second;
    auto org = st.by_id[id].org_id;
    st.by_id.erase(id);
    st.id_of.erase(it);
    if (st.stopping) {
      tell_some_to_exit(self);
      return;
    }
    if (st.reopened.erase(id)) {
      respawn(self, org, id); // reopened while its old actor was exiting
      return;
    }
    if (msg.reason != caf::exit_reason::normal && !test_hooks::no_respawn) {
      spdlog::warn("registry: incident {} actor died ({}), respawning", id,
                   to_string(msg.reason));
      respawn(self, org, id);
    }
  });
  self->set_exit_handler([self](caf::exit_msg& msg) {
    auto& st = self->state;
    if (std::exchange(st.stopping, true))
      return;
    st.exit_reason = msg.reason;
    st.to_exit.reserve(st.by_id.size());
    for (auto& [id, held] : st.by_id)
      st.to_exit.push_back(held.actor);
    tell_some_to_exit(self);
  });
  return {
      // What a storage worker of the trigger lane committed (actors/trigger_lane.hpp).
      [self](atom::written, std::vector<storage::upsert_result>& written) {
        auto& st = self->state;
        for (auto& r : written) {
          if (r.created) {
            ++st.stats.created;
            auto& rec = r.held.incident;
            org_counts::add(self->id(), rec.org_id, org_counts::counted::created);
            // A reopened incident whose resolve's actor is still here: that actor
            // follows the reopened row if it is still running, or is held again once
            // it is down.
            if (auto actor = r.reopened ? held_actor(self, rec.org_id, rec.id)
                                        : incident_actor{}) {
              st.reopened.insert(rec.id);
              self->send(actor, atom::follow_v, rec);
              continue;
            }
            hold(self, std::move(r.held));
            continue;
          }
          ++st.stats.deduplicated;
          org_counts::add(self->id(), r.held.incident.org_id,
                          org_counts::counted::deduplicated);
          // A duplicate of an incident held elsewhere stays with its owner
          // (docs/architecture.md#ownership).
          if (auto actor = held_actor(self, r.held.incident.org_id, r.held.incident.id))
            self->send(actor, atom::duplicate_v, r.held.incident); // fresh counts
        }
      },
      [self](atom::transition, transition_command& cmd) -> caf::result<transition_reply> {
        auto rp = self->make_response_promise<transition_reply>();
        // By dedup key, only the database knows which incident is current (another node
        // may have resolved ours and opened the next one): decide there, then tell the
        // local actor, if any, what became of its incident.
        auto actor = cmd.incident_id == 0 ? incident_actor{}
                                          : held_actor(self, cmd.org_id, cmd.incident_id);
        if (!actor) {
          transit_in_storage(self, rp, cmd);
          return rp;
        }
        // The actor may be exiting (a concurrent resolve): then the database decides.
        self->request(actor, 2 * self->state.d->request_timeout, atom::transition_v, cmd)
            .then(
                [rp, cmd](transition_reply& r) mutable {
                  count_transition(cmd, r);
                  rp.deliver(std::move(r));
                },
                [self, rp, cmd](caf::error&) mutable {
                  transit_in_storage(self, rp, cmd);
                });
        return rp;
      },
      [self](atom::act, incident_action& action) -> caf::result<storage::action_reply> {
        auto rp = self->make_response_promise<storage::action_reply>();
        auto actor = held_actor(self, action.org_id, action.incident_id);
        if (!actor) {
          act_in_storage(self, rp, std::move(action));
          return rp;
        }
        // The actor may be exiting (a concurrent resolve): then the database decides.
        self->request(actor, 2 * self->state.d->request_timeout, atom::act_v, action)
            .then([self,
                   rp](storage::action_reply& r) mutable { answer_action(self, rp, r); },
                  [self, rp, action](caf::error&) mutable {
                    act_in_storage(self, rp, std::move(action));
                  });
        return rp;
      },
      [self](atom::adopt) -> caf::result<size_t> {
        auto rp = self->make_response_promise<size_t>();
        adopt_page(self, rp, 0, 0, 0);
        return rp;
      },
      [self](atom::settled, int64_t org, int64_t id) {
        // Acknowledged, resolved or worked on through some node (NOTIFY).
        if (held_actor(self, org, id))
          tell_current(self, {{org, id}});
      },
      // The listener was deaf for a while: catch up on every held incident.
      [self](atom::catch_up) { tell_current(self, held_keys(self)); },
      [self](atom::renew_tick) { renew(self); },
      [self](atom::sweep_tick) { sweep(self); },
      [self](atom::respawn, int64_t org, int64_t id) { respawn(self, org, id); },
      [self](atom::views, int64_t org) {
        std::vector<incident_actor> of_org;
        for (auto& [id, held] : self->state.by_id)
          if (held.org_id == org)
            of_org.push_back(held.actor);
        return gather_views<incident_view>(self, of_org, std::chrono::seconds{2});
      },
      [self](atom::holder, int64_t id) {
        auto it = self->state.by_id.find(id);
        return it == self->state.by_id.end() ? incident_actor{} : it->second.actor;
      },
      [self](atom::stats) {
        auto stats = self->state.stats;
        stats.held = self->state.by_id.size();
        return stats;
      },
  };
}

} // namespace belay
