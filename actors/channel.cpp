#include "actors/channel.hpp"

#include "actors/metrics.hpp"
#include "actors/storage.hpp"

#include <caf/actor_pool.hpp>
#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

using self_ptr = channel_actor::stateful_pointer<channel_state>;

micros now(self_ptr self) {
  return self->state.d.clock.at(self->clock().now());
}

void claim(self_ptr self);

// Mirrors an outcome the database recorded in the counters, the retry schedule and
// the metrics ("" when the claim had lapsed and another claimer took over).
void note_outcome(self_ptr self, const storage::claimed_delivery& cd,
                  const storage::recorded_outcome& out) {
  auto& st = self->state;
  auto count = [&](const char* outcome) {
    metrics::count(metrics::name::deliveries_total,
                   {{"channel", st.config.name}, {"outcome", outcome}});
  };
  if (out.status == "SENT") {
    ++st.sent;
    count("sent");
    metrics::observe(metrics::name::delivery_latency_seconds,
                     static_cast<double>(now(self) - cd.delivery.created_at) / 1e6,
                     {{"channel", st.config.name}});
  } else if (out.status == "PENDING") {
    ++st.failed;
    count("retried");
    auto due = out.next_attempt_at.value_or(now(self));
    st.retries[cd.delivery.id] = {cd.delivery.id, cd.delivery.incident_id,
                                  cd.delivery.target, cd.delivery.attempts + 1, due};
    self->delayed_send(self, st.d.clock.until(due, self->clock().now()), atom::retry_v);
  } else if (out.status == "CANCELLED") {
    ++st.failed;
    count("cancelled");
  } else if (out.status == "DEAD") {
    ++st.dead;
    count("dead_lettered");
    spdlog::warn("channel {}: delivery {} dead after {} attempt(s)", st.config.name,
                 cd.delivery.id, cd.delivery.attempts);
    if (out.failover_delivery_id && st.dispatcher)
      self->send(st.dispatcher, atom::nudge_v, st.config.org_id, st.config.failover_to);
  }
}

void settle(self_ptr self, const storage::claimed_delivery& cd,
            const transport::send_result& res) {
  auto& st = self->state;
  storage::attempt_result attempt{res.result == transport::outcome::sent,
                                  res.result == transport::outcome::permanent,
                                  res.ambiguous, res.error};
  auto event = storage::outcome_of(cd, st.config, st.d.node_id, attempt, now(self));
  self->request(st.d.storage, caf::infinite, atom::outcome_v, std::move(event))
      .then(
          [self, cd](storage::recorded_outcome& out) {
            --self->state.sending;
            note_outcome(self, cd, out);
          },
          [self, cd](caf::error& err) {
            // The claim stays CLAIMED and returns to the pool when its lease lapses.
            --self->state.sending;
            spdlog::error("channel {}: cannot record delivery {}: {}",
                          self->state.config.name, cd.delivery.id, to_string(err));
          });
}

void send_page(self_ptr self, storage::claimed_delivery cd) {
  auto& st = self->state;
  st.retries.erase(cd.delivery.id);
  transport::page p{cd.delivery.idempotency_key,
                    cd.delivery.target,
                    cd.incident,
                    cd.delivery.loop,
                    cd.delivery.step,
                    cd.delivery.attempts};
  transport::with_answer(p, st.d.answers, cd.delivery, now(self));
  ++st.waiting;
  self->request(st.senders, caf::infinite, atom::send_v, st.config, std::move(p))
      .then(
          [self, cd](transport::send_result& res) {
            auto& st = self->state;
            --st.waiting;
            ++st.sending;
            if (res.ambiguous) {
              ++st.ambiguous;
              metrics::count(metrics::name::deliveries_total,
                             {{"channel", st.config.name}, {"outcome", "ambiguous"}});
            }
            settle(self, cd, res);
          },
          [self, cd](caf::error& err) {
            --self->state.waiting;
            ++self->state.sending;
            settle(self, cd,
                   {transport::outcome::retry, false, 0, "sender: " + to_string(err)});
          });
}

void claim(self_ptr self) {
  auto& st = self->state;
  if (st.claiming) {
    st.again = true; // one claim at a time; run another when this one is done
    return;
  }
  st.claiming = true;
  st.again = false;
  storage::claim_request req{st.config.org_id,
                             st.config.name,
                             st.d.node_id,
                             now(self),
                             now(self) +
                                 static_cast<micros>(st.opts.claim_lease_seconds * 1e6),
                             st.opts.claim_batch};
  self->request(st.d.storage, caf::infinite, atom::claim_v, std::move(req))
      .then(
          [self](std::vector<storage::claimed_delivery>& claimed) {
            auto& st = self->state;
            st.claiming = false;
            bool full = static_cast<int>(claimed.size()) >= st.opts.claim_batch;
            for (auto& cd : claimed)
              send_page(self, std::move(cd));
            if (full || st.again)
              claim(self);
          },
          [self](caf::error& err) {
            auto& st = self->state;
            st.claiming = false;
            spdlog::error("channel {}: claim failed: {}", st.config.name, to_string(err));
            self->delayed_send(self, st.d.db_retry, atom::retry_v);
          });
}

struct sender_state {
  static inline const char* name = "sender";
};

// `index` only names the worker; it also keeps CAF 0.17 off its argument-less spawn
// path, which trips UBSan.
sender_actor::behavior_type sender(sender_actor::stateful_pointer<sender_state>,
                                   size_t /*index*/) {
  return {
      [](atom::send, const channel_config& ch, const transport::page& p) {
        return transport::send(ch, p);
      },
  };
}

} // namespace

channel_actor::behavior_type channel(self_ptr self, channel_config config,
                                     sender_actor senders, dispatcher_actor dispatcher,
                                     delivery_options opts, deps d) {
  auto& st = self->state;
  st.config = std::move(config);
  st.senders = std::move(senders);
  st.dispatcher = std::move(dispatcher);
  st.opts = opts;
  st.d = std::move(d);
  return {
      [self](atom::nudge) { claim(self); },
      [self](atom::retry) { claim(self); },
      [self](atom::view) {
        auto& st = self->state;
        channel_view v{st.config, st.waiting, st.sending,   st.sent,
                       st.failed, st.dead,    st.ambiguous, {}};
        for (auto& [id, r] : st.retries)
          v.retries.push_back(r);
        return v;
      },
  };
}

sender_actor spawn_senders(caf::actor_system& sys, size_t workers, bool detached) {
  auto index = std::make_shared<size_t>(0);
  auto factory = [&sys, detached, index] {
    auto i = (*index)++;
    return caf::actor_cast<caf::actor>(detached ? sys.spawn<caf::detached>(sender, i)
                                                : sys.spawn(sender, i));
  };
  return caf::actor_cast<sender_actor>(caf::actor_pool::make(
      sys.dummy_execution_unit(), workers, factory, caf::actor_pool::round_robin()));
}

} // namespace belay
