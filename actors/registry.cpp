#include "actors/registry.hpp"

#include "actors/gather.hpp"
#include "actors/incident.hpp"
#include "actors/metrics.hpp"
#include "actors/storage.hpp"
#include "storage/incidents.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/exit_reason.hpp>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

using self_ptr = caf::stateful_actor<registry_state>*;

micros now(self_ptr self) {
  return self->state.d.clock.at(self->clock().now());
}

storage::ownership owner(self_ptr self) {
  auto& d = self->state.d;
  return {d.node_id, now(self) + static_cast<micros>(d.lease_seconds * 1e6)};
}

void hold(self_ptr self, storage::held_incident h) {
  auto& st = self->state;
  auto& rec = h.incident;
  if (rec.status == status_resolved || st.by_id.count(rec.id))
    return;
  auto actor = self->spawn(incident, rec, std::move(h.ladder), st.d);
  self->monitor(actor);
  st.by_id[rec.id] = actor;
  st.held[actor->address()] = {rec.org_id, rec.id};
}

void forget(self_ptr self, const caf::actor_addr& addr) {
  auto& st = self->state;
  auto it = st.held.find(addr);
  if (it == st.held.end())
    return;
  st.by_id.erase(it->second.second);
  st.held.erase(it);
}

// An incident actor died without resolving its incident: start it again from the
// row, so its ladder resumes where the database says it stands.
void respawn(self_ptr self, int64_t org, int64_t id) {
  auto job = make_db_job(
      [org, id](storage::connection& c) { return storage::load_incident(c, org, id); });
  self->request(self->state.d.storage, caf::infinite, atom::run_v, job)
      .then(
          [self](std::optional<storage::held_incident>& h) {
            if (h && h->incident.status != status_resolved) {
              ++self->state.stats.respawned;
              hold(self, std::move(*h));
            }
          },
          [self, org, id](caf::error& err) {
            spdlog::error("registry: cannot respawn incident {}: {}", id, to_string(err));
            self->delayed_send(self, self->state.d.db_retry, atom::adopt_v);
            (void)org;
          });
}

// No live actor holds the incident here: the compare-and-set in the database is the
// whole story.
void transit_in_storage(self_ptr self, caf::typed_response_promise<transition_reply> rp,
                        transition_command cmd) {
  auto job = make_db_job([cmd, at = now(self)](storage::connection& c) {
    return storage::apply_transition(c, cmd, at);
  });
  // By key, the incident's shard is known; by id it is not, and any worker will do.
  static std::atomic<uint64_t> spread{0};
  auto shard =
      cmd.incident_id == 0 ? incident_shard(cmd.org_id, cmd.dedup_key) : spread++;
  self->request(self->state.d.storage, caf::infinite, atom::run_v, shard, job)
      .then(
          [self, rp, kind = cmd.kind, source = cmd.source](transition_reply& r) mutable {
            if (r.code == reply_code::ok) {
              metrics::count_transition(kind == transition::ack);
              if (kind == transition::resolve && source != "native")
                metrics::count("belay_events_total",
                               {{"format", source}, {"outcome", "resolved"}});
              if (auto it = self->state.by_id.find(r.incident.id);
                  it != self->state.by_id.end())
                self->send(it->second, atom::transit_v, r.incident);
            }
            rp.deliver(std::move(r));
          },
          [rp](caf::error& err) mutable { rp.deliver(err); });
}

} // namespace

caf::behavior registry(caf::stateful_actor<registry_state>* self, deps d) {
  self->state.d = std::move(d);
  self->set_down_handler([self](caf::down_msg& msg) {
    auto it = self->state.held.find(msg.source);
    if (it == self->state.held.end())
      return;
    auto [org, id] = it->second;
    forget(self, msg.source);
    if (msg.reason != caf::exit_reason::normal && !self->state.stopping) {
      spdlog::warn("registry: incident {} actor died ({}), respawning", id,
                   to_string(msg.reason));
      respawn(self, org, id);
    }
  });
  self->set_exit_handler([self](caf::exit_msg& msg) {
    self->state.stopping = true;
    for (auto& [id, actor] : self->state.by_id)
      self->send_exit(actor, msg.reason);
    self->quit(msg.reason);
  });
  return {
      [self](atom::trigger, trigger_command cmd) -> caf::result<trigger_reply> {
        auto rp = self->make_response_promise<trigger_reply>();
        auto job =
            make_db_job([cmd, at = now(self), own = owner(self)](storage::connection& c) {
              return storage::upsert_trigger(c, cmd, at, own);
            });
        auto shard = incident_shard(cmd.org_id, cmd.dedup_key);
        self->request(self->state.d.storage, caf::infinite, atom::run_v, shard, job)
            .then(
                [self, rp, source = cmd.source](storage::upsert_result& r) mutable {
                  if (r.code ==
                      reply_code::ok) // rejections are counted where they are answered
                    metrics::count("belay_events_total",
                                   {{"format", source},
                                    {"outcome", r.created ? "created" : "deduplicated"}});
                  if (r.code != reply_code::ok) {
                    rp.deliver(trigger_reply{r.code, false, {}});
                    return;
                  }
                  auto& st = self->state;
                  if (r.created)
                    ++st.stats.created;
                  else
                    ++st.stats.deduplicated;
                  trigger_reply reply{reply_code::ok, r.created, r.held.incident};
                  if (r.created)
                    hold(self, std::move(r.held));
                  else if (auto it = st.by_id.find(r.held.incident.id);
                           it != st.by_id.end())
                    self->send(it->second, atom::trigger_v,
                               r.held.incident); // fresh counts
                  // A duplicate of an incident held elsewhere stays with its owner
                  // (section 9).
                  rp.deliver(std::move(reply));
                },
                [rp](caf::error& err) mutable { rp.deliver(err); });
        return rp;
      },
      [self](atom::transit, transition_command cmd) -> caf::result<transition_reply> {
        auto& st = self->state;
        auto id = cmd.incident_id;
        auto rp = self->make_response_promise<transition_reply>();
        // By dedup key, only the database knows which incident is current (another node
        // may have resolved ours and opened the next one): decide there, then tell the
        // local actor, if any, what became of its incident.
        auto it = id == 0 ? st.by_id.end() : st.by_id.find(id);
        if (it != st.by_id.end() && st.held[it->second->address()].first == cmd.org_id) {
          // The actor may be exiting (a concurrent resolve): then the database decides.
          self->request(it->second, caf::infinite, atom::transit_v, cmd)
              .then([rp](transition_reply& r) mutable { rp.deliver(std::move(r)); },
                    [self, rp, cmd](caf::error&) mutable {
                      transit_in_storage(self, rp, cmd);
                    });
          return rp;
        }
        transit_in_storage(self, rp, cmd);
        return rp;
      },
      [self](atom::adopt) -> caf::result<size_t> {
        auto rp = self->make_response_promise<size_t>();
        auto job =
            make_db_job([own = owner(self), at = now(self)](storage::connection& c) {
              return storage::adopt_unresolved(c, own, at);
            });
        self->request(self->state.d.storage, caf::infinite, atom::run_v, job)
            .then(
                [self, rp](std::vector<storage::held_incident>& all) mutable {
                  for (auto& h : all)
                    hold(self, std::move(h));
                  spdlog::info("registry: adopted {} non-resolved incidents", all.size());
                  rp.deliver(all.size());
                },
                [rp](caf::error& err) mutable { rp.deliver(err); });
        return rp;
      },
      [self](atom::views, int64_t org) {
        std::vector<caf::actor> of_org;
        for (auto& [id, actor] : self->state.by_id)
          if (self->state.held[actor->address()].first == org)
            of_org.push_back(actor);
        return gather_views<incident_view>(self, of_org, std::chrono::seconds{2});
      },
      [self](atom::get, int64_t id) {
        auto it = self->state.by_id.find(id);
        return it == self->state.by_id.end() ? caf::actor{} : it->second;
      },
      [self](atom::get) {
        auto stats = self->state.stats;
        stats.held = self->state.by_id.size();
        return stats;
      },
  };
}

} // namespace belay
