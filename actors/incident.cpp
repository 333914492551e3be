#include "actors/incident.hpp"

#include "actors/metrics.hpp"
#include "actors/test_hooks.hpp"
#include "actors/trigger_lane.hpp"
#include "protocol/ladder.hpp"
#include "protocol/paging.hpp"
#include "protocol/views.hpp"
#include "storage/actions.hpp"
#include "storage/incidents.hpp"
#include "storage/maintenance.hpp"

#include <algorithm>
#include <caf/event_based_actor.hpp>
#include <set>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

using self_ptr = incident_actor::stateful_pointer<incident_state>;

micros now(self_ptr self) {
  return self->state.d->clock.at(self->clock().now());
}

// Every operation about this incident goes to the same storage worker
// (actors/trigger_lane.hpp).
uint64_t shard(self_ptr self) {
  return incident_shard(self->state.record.org_id, self->state.record.dedup_key);
}

bool snoozed(const incident_record& r) {
  return r.status == status_acknowledged && r.snoozed_until.has_value();
}

// (Re)arms the one timer an incident has: an OPEN one's next step or the end of its
// grace; a snoozed one's return to OPEN.
void arm(self_ptr self) {
  auto& st = self->state;
  ++st.generation;
  if (snoozed(st.record)) {
    auto wait = st.d->clock.until(*st.record.snoozed_until, self->clock().now());
    if (wait.count() == 0)
      self->send(self, atom::fire_tick_v, st.generation); // over already: at once
    else
      self->delayed_send(self, wait, atom::fire_tick_v, st.generation);
    return;
  }
  if (st.record.status != status_open || !st.record.next_fire_at)
    return;
  auto wait = st.d->clock.until(*st.record.next_fire_at, self->clock().now());
  // Held by maintenance: ask now and then whether the window ended early.
  if (st.record.held_until)
    wait = std::min(wait, st.d->maintenance_poll);
  if (wait.count() == 0)
    self->send(self, atom::fire_tick_v, st.generation); // due or overdue: fire at once
  else
    self->delayed_send(self, wait, atom::fire_tick_v, st.generation);
}

// Takes what the database says became of the incident: exit once it is resolved,
// otherwise (re)arm the ladder for where it now stands. Older news is ignored.
void follow(self_ptr self, const incident_record& latest) {
  if (latest.version < self->state.record.version)
    return;
  self->state.record = latest;
  if (latest.status == status_resolved)
    self->quit();
  else
    arm(self);
}

// The row and, when it came with one, the ladder (a reassign changes it).
void follow(self_ptr self, storage::held_incident& latest) {
  if (latest.incident.version < self->state.record.version)
    return;
  if (latest.ladder)
    self->state.ladder = std::move(latest.ladder);
  follow(self, latest.incident);
}

void retry_later(self_ptr self, const caf::error& err) {
  spdlog::warn("incident {}: storage error, retrying: {}", self->state.record.id,
               to_string(err));
  self->delayed_send(self, self->state.d->db_retry, atom::fire_tick_v,
                     self->state.generation);
}

// The compare-and-set failed: the database knows better than we do.
void reload(self_ptr self) {
  auto& st = self->state;
  self->request(st.d->storage, st.d->request_timeout, atom::load_incident_v, shard(self),
                st.record.org_id, st.record.id)
      .await(
          [self](std::optional<storage::held_incident>& h) {
            if (h)
              follow(self, h->incident);
            else
              self->quit(); // the row is gone
          },
          [self](caf::error& err) { retry_later(self, err); });
}

// Fires the step the incident stands on with `pages` (its targets expanded), or ends
// the grace period when no step is left.
void fire_with(self_ptr self, protocol::step_pages pages) {
  auto& st = self->state;
  auto expected = st.record;
  auto at = now(self);
  bool step = expected.current_step < static_cast<int>(st.ladder->steps.size());
  ladder_position next;
  if (step)
    next = advance(*st.ladder, expected.current_step, expected.loop,
                   expected.next_fire_at.value_or(at));
  // What the answer needs of the pages; the pages themselves go to storage.
  std::set<std::string> channels;
  for (auto& p : pages.pages)
    channels.insert(p.channel);
  auto paged = static_cast<double>(pages.pages.size());
  auto unrouted = static_cast<double>(pages.nobody_on_call.size());
  auto nobody = pages.nobody_on_call;
  // Steps are batched with other incidents' steps into one statement; the grace
  // period's end is rare enough to run on its own.
  auto request = [&] {
    if (step)
      return self->request(st.d->storage, st.d->request_timeout, atom::fire_steps_v,
                           shard(self),
                           storage::fire_of(expected, std::move(pages), next, at));
    return self->request(st.d->storage, st.d->request_timeout, atom::exhaust_v,
                         shard(self), expected, at);
  };
  request().await(
      [self, step, channels, paged, unrouted, nobody,
       scheduled =
           expected.next_fire_at.value_or(at)](std::optional<incident_record>& after) {
        if (!after) {
          reload(self);
          return;
        }
        self->state.record = *after;
        if (!step || after->held_until) // held by maintenance: nothing was paged
          return arm(self);
        metrics::count(metrics::name::steps_fired_total);
        metrics::observe(metrics::name::step_lateness_seconds,
                         static_cast<double>(now(self) - scheduled) / 1e6);
        if (unrouted > 0)
          metrics::count(metrics::name::steps_unrouted_total, {}, unrouted);
        self->state.no_one_on_call = nobody;
        if (after->shadow)
          metrics::count(metrics::name::deliveries_total,
                         {{"channel", "*"}, {"outcome", "shadowed"}}, paged);
        else if (self->state.d->dispatcher)
          for (auto& channel : channels)
            self->send(self->state.d->dispatcher, atom::nudge_v, after->org_id, channel);
        arm(self);
      },
      [self, channels](caf::error& err) {
        // The write may have committed unseen: its pages are claimed now, not at the
        // channels' next poll; the retry's compare-and-set finds the step fired.
        if (err == caf::sec::request_timeout && self->state.d->dispatcher)
          for (auto& channel : channels)
            self->send(self->state.d->dispatcher, atom::nudge_v,
                       self->state.record.org_id, channel);
        retry_later(self, err);
      });
}

// The ladder is held by a maintenance window (docs/guarantees.md#maintenance-windows): at
// the window's end, or earlier to notice one ended early, ask whether it is over; then
// the ladder starts again from its first step.
void resume(self_ptr self) {
  auto& st = self->state;
  auto& rec = st.record;
  auto first_delay = static_cast<micros>(st.ladder->steps.front().delay_seconds * 1e6);
  storage::resume_event e{rec.org_id,      rec.id,      rec.version, rec.policy,
                          rec.integration, first_delay, now(self)};
  self->request(st.d->storage, st.d->request_timeout, atom::resume_held_v, shard(self),
                std::move(e))
      .await(
          [self](std::optional<incident_record>& after) {
            if (after)
              follow(self, *after);
            else
              reload(self); // held on until the same end, or no longer OPEN
          },
          [self](caf::error& err) { retry_later(self, err); });
}

// The snooze ran out (docs/guarantees.md#working-an-incident): OPEN again, the ladder
// from its first step with keys of its own, unless resolved or changed meanwhile.
void end_snooze(self_ptr self) {
  auto& st = self->state;
  auto& rec = st.record;
  auto first_delay = seconds_to_micros(st.ladder->steps.front().delay_seconds);
  self->request(st.d->storage, st.d->request_timeout, atom::end_snooze_v, shard(self),
                rec.org_id, rec.id, rec.version, first_delay, now(self))
      .await(
          [self](std::optional<incident_record>& after) {
            if (after)
              follow(self, *after);
            else
              reload(self);
          },
          [self](caf::error& err) { retry_later(self, err); });
}

// A step that pages people or schedules reads the org's people first: who is on call is
// decided at the step's scheduled time, not when the policy was written.
void fire(self_ptr self) {
  auto& st = self->state;
  if (st.record.current_step >= static_cast<int>(st.ladder->steps.size()))
    return fire_with(self, {});
  auto& targets = st.ladder->steps[st.record.current_step].targets;
  auto scheduled = st.record.next_fire_at.value_or(now(self));
  if (!protocol::needs_people(targets))
    return fire_with(self, protocol::expand_targets(targets, {}, scheduled));
  self->request(st.d->storage, st.d->request_timeout, atom::load_people_v,
                st.record.org_id, scheduled)
      .await(
          [self, scheduled](protocol::org_people& people) {
            auto& st = self->state;
            auto& targets = st.ladder->steps[st.record.current_step].targets;
            fire_with(self, protocol::expand_targets(targets, people, scheduled));
          },
          [self](caf::error& err) { retry_later(self, err); });
}

} // namespace

incident_actor::behavior_type incident(self_ptr self, incident_record rec,
                                       ladder_ptr ladder, std::shared_ptr<const deps> d) {
  self->state.record = std::move(rec);
  self->state.ladder = std::move(ladder);
  self->state.d = std::move(d);
  self->state.up_since = now(self);
  arm(self);
  return {
      [self](atom::fire_tick, uint64_t generation) {
        auto& rec = self->state.record;
        if (generation != self->state.generation)
          return;
        if (snoozed(rec))
          end_snooze(self);
        else if (rec.status != status_open)
          return;
        else if (rec.held_until)
          resume(self);
        else
          fire(self);
      },
      [self](atom::act, incident_action& action) -> caf::result<storage::action_reply> {
        auto rp = self->make_response_promise<storage::action_reply>();
        self->request(self->state.d->storage, self->state.d->request_timeout,
                      atom::apply_action_v, shard(self), std::move(action), now(self))
            .await(
                [self, rp](storage::action_reply& reply) mutable {
                  auto latest = reply.held;
                  rp.deliver(std::move(reply));
                  if (latest.incident.id != 0)
                    follow(self, latest);
                },
                [rp](caf::error& err) mutable { rp.deliver(err); });
        return rp;
      },
      [self](atom::transition, transition_command& cmd) -> caf::result<transition_reply> {
        auto rp = self->make_response_promise<transition_reply>();
        self->request(self->state.d->storage, self->state.d->request_timeout,
                      atom::apply_transition_v, shard(self), std::move(cmd), now(self))
            .await(
                [self, rp](transition_reply& reply) mutable {
                  rp.deliver(reply);
                  if (reply.code != reply_code::not_found)
                    follow(self, reply.incident);
                },
                [rp](caf::error& err) mutable { rp.deliver(err); });
        return rp;
      },
      [self](atom::follow, const incident_record& changed) {
        // Acknowledged or resolved in the database without us (by dedup key, or by
        // another node), or reopened while we were on our way out.
        follow(self, changed);
      },
      [self](atom::follow, storage::held_incident& changed) { follow(self, changed); },
      [self](atom::duplicate, const incident_record& seen) {
        // A duplicate was absorbed: only the evidence counters changed.
        auto& rec = self->state.record;
        rec.event_count = std::max(rec.event_count, seen.event_count);
        rec.last_seen_at = std::max(rec.last_seen_at, seen.last_seen_at);
        if (test_hooks::duplicate_fires_now)
          self->send(self, atom::fire_tick_v, self->state.generation);
        // A live event made a shadow incident live: storage re-issued its last step's
        // shadowed pages (storage/triggers.cpp); the channels send them now.
        if (rec.shadow && !seen.shadow) {
          rec.shadow = false;
          if (self->state.d->dispatcher)
            self->send(self->state.d->dispatcher, atom::nudge_all_v);
        }
      },
      [self](atom::view) {
        auto& st = self->state;
        return incident_view{st.record, std::to_string(self->id()), st.up_since,
                             self->mailbox().size(), st.no_one_on_call};
      },
  };
}

} // namespace belay
