#include "actors/channel.hpp"

#include "actors/metrics.hpp"
#include "actors/test_hooks.hpp"
#include "protocol/views.hpp"
#include "storage/contacts.hpp"
#include "storage/deliveries.hpp"

#include <algorithm>
#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <cmath>
#include <optional>
#include <spdlog/spdlog.h>

namespace belay {

size_t claim_capacity(const delivery_options& opts, const channel_config& ch) {
  // A send is over within its timeout; a second more for the outcome and the hand-over.
  double per_send = std::max(ch.timeout_seconds, 0.1) + 1;
  auto rounds = std::max(1.0, std::floor(opts.claim_lease_seconds / per_send));
  return opts.concurrency * static_cast<size_t>(rounds);
}

namespace {

using self_ptr = channel_actor::stateful_pointer<channel_state>;

micros now(self_ptr self) {
  return self->state.d.clock.at(self->clock().now());
}

void claim(self_ptr self);
void dispatch(self_ptr self);
void start_bundle(self_ptr self, storage::claimed_bundle b);
void take_claimed(self_ptr self, std::vector<storage::claimed_delivery>& claimed,
                  bool maybe_more);
void wake_when_throttle_opens(self_ptr self, micros opens_at);

void count(self_ptr self, const char* outcome, double n = 1) {
  metrics::count(metrics::name::deliveries_total,
                 {{"channel", self->state.config.name}, {"outcome", outcome}}, n);
}

// Rows held here: queued, being re-checked, or with a sender.
size_t held(self_ptr self) {
  auto& st = self->state;
  return st.queue.size() + st.checking + st.sending + st.bundles.size() + st.bundling;
}

// Idle senders not reserved for a bundle being checked.
size_t free_senders(self_ptr self) {
  auto& st = self->state;
  auto busy = st.sending + st.bundle_checks;
  return busy >= st.opts.concurrency ? 0 : st.opts.concurrency - busy;
}

// Something left: claim again if a claim was wanted, there is room for what it takes,
// and less than a round of the senders' work is left waiting. Each claim commits, so
// claims come a claim's worth at a time, not as each sender frees up.
void claim_if_wanted(self_ptr self) {
  auto& st = self->state;
  auto waiting = st.queue.size() + st.checking;
  if (st.again && !st.claiming && held(self) < claim_capacity(st.opts, st.config) &&
      waiting < st.opts.concurrency)
    claim(self);
}

// Mirrors an outcome the database recorded in the counters, the retry schedule and
// the metrics ("" when the claim had lapsed and another claimer took over).
void note_outcome(self_ptr self, const storage::claimed_delivery& cd,
                  const storage::recorded_outcome& out) {
  auto& st = self->state;
  st.holding.erase(cd.delivery.id);
  if (out.status == "SENT") {
    ++st.sent;
    count(self, "sent");
    metrics::observe(metrics::name::delivery_latency_seconds,
                     static_cast<double>(now(self) - cd.delivery.created_at) / 1e6,
                     {{"channel", st.config.name}});
  } else if (out.status == "PENDING") {
    ++st.failed;
    count(self, "retried");
    auto due = out.next_attempt_at.value_or(now(self));
    st.retries[cd.delivery.id] = {cd.delivery.id, cd.delivery.incident_id,
                                  cd.delivery.target, cd.delivery.attempts + 1, due};
    self->delayed_send(self, st.d.clock.until(due, self->clock().now()),
                       atom::retry_tick_v);
  } else if (out.status == "CANCELLED") {
    ++st.failed;
    count(self, "cancelled");
  } else if (out.status == "DEAD") {
    ++st.dead;
    count(self, "dead_lettered");
    spdlog::warn("channel {}: delivery {} dead after {} attempt(s)", st.config.name,
                 cd.delivery.id, cd.delivery.attempts);
    if (out.failover_delivery_id && st.dispatcher)
      self->send(st.dispatcher, atom::nudge_v, st.config.org_id, st.config.failover_to);
  }
}

storage::attempt_result attempt_of(const transport::send_result& res) {
  return {res.result == transport::outcome::sent,
          res.result == transport::outcome::permanent, res.ambiguous, res.error};
}

// How long an outcome is recorded again: a little less than the claim lease, after which
// another claimer may send the page again.
caf::timespan lease_margin(self_ptr self) {
  return std::chrono::duration_cast<caf::timespan>(
      std::chrono::duration<double>(self->state.opts.claim_lease_seconds * 0.9));
}

void settle(self_ptr self, const storage::claimed_delivery& cd,
            const transport::send_result& res,
            std::optional<caf::actor_clock::time_point> give_up_at = std::nullopt) {
  auto& st = self->state;
  if (!give_up_at)
    give_up_at = self->clock().now() + lease_margin(self);
  auto attempt = attempt_of(res);
  auto event = storage::outcome_of(cd, st.config, st.d.node_id, attempt, now(self));
  ++st.settling;
  // Recorded again after an error or the deadline: the write is a compare-and-set on the
  // claim, so one that committed unseen is not written twice.
  self->request(st.d.storage, st.d.request_timeout, atom::record_outcomes_v,
                std::move(event))
      .then(
          [self, cd](storage::recorded_outcome& out) {
            --self->state.settling;
            note_outcome(self, cd, out);
          },
          [self, cd, res, until = *give_up_at](caf::error& err) {
            auto& st = self->state;
            --st.settling;
            if (self->clock().now() >= until) {
              // The claim returns to the pool when its lease lapses: sent again then.
              st.holding.erase(cd.delivery.id);
              spdlog::error("channel {}: cannot record delivery {}: {}; giving up",
                            st.config.name, cd.delivery.id, to_string(err));
              return;
            }
            spdlog::warn("channel {}: cannot record delivery {} yet: {}", st.config.name,
                         cd.delivery.id, to_string(err));
            st.unrecorded.push_back({cd, res, until});
            self->delayed_send(self, st.d.db_retry, atom::retry_tick_v);
          });
}

void settle_bundle(self_ptr self, storage::claimed_bundle b,
                   const transport::send_result& res,
                   std::optional<caf::actor_clock::time_point> give_up_at = std::nullopt);

void settle_unrecorded(self_ptr self) {
  auto pending = std::move(self->state.unrecorded);
  self->state.unrecorded.clear();
  for (auto& u : pending)
    settle(self, u.claimed, u.result, u.give_up_at);
  auto bundles = std::move(self->state.unrecorded_bundles);
  self->state.unrecorded_bundles.clear();
  for (auto& u : bundles)
    settle_bundle(self, u.bundle, u.result, u.give_up_at);
}

struct sender_state {
  static inline const char* name = "sender";
};

// `index` only names the worker; it also keeps CAF 0.17 off its argument-less spawn
// path, which trips UBSan. A page it gets to after `start_by` goes back unsent, to be
// checked again first; the channel gives pages to idle senders only, with no such bound.
sender_actor::behavior_type sender(sender_actor::stateful_pointer<sender_state> self,
                                   size_t /*index*/) {
  return {
      [self](atom::send, const channel_config& ch, const transport::page& p,
             caf::timespan start_by) -> std::optional<transport::send_result> {
        if (self->clock().now().time_since_epoch() > start_by)
          return std::nullopt;
        if (test_hooks::around_send)
          test_hooks::around_send(p.idempotency_key, false);
        auto res = transport::send(ch, p);
        if (test_hooks::around_send)
          test_hooks::around_send(p.idempotency_key, true);
        return res;
      },
  };
}

// An idle sender, or a new one (the caller checked free_senders(), so one of them is).
sender_slot& take_sender(self_ptr self) {
  auto& st = self->state;
  auto idle = std::find_if(st.senders.begin(), st.senders.end(),
                           [](auto& s) { return s.pages == 0; });
  if (idle != st.senders.end())
    return *idle;
  auto index = st.senders.size();
  auto actor = st.opts.detached ? self->system().spawn<caf::detached>(sender, index)
                                : self->system().spawn(sender, index);
  return st.senders.emplace_back(sender_slot{std::move(actor), 0});
}

// Called when the sender answers or dies: its page is no longer with it.
void returned(self_ptr self, const sender_actor& sender, bool died) {
  auto& st = self->state;
  --st.sending;
  auto it = std::find_if(st.senders.begin(), st.senders.end(),
                         [&](auto& s) { return s.actor == sender; });
  if (it == st.senders.end())
    return; // it died with another page: already gone
  if (died)
    st.senders.erase(it); // a fresh one takes its place when needed
  else
    --it->pages;
}

// The transport gives up after the channel's timeout; the deadline is a backstop.
caf::timespan send_deadline(self_ptr self) {
  auto& st = self->state;
  return std::chrono::duration_cast<caf::timespan>(
             std::chrono::duration<double>(st.config.timeout_seconds)) +
         st.d.send_margin;
}

// A sender died, or missed its deadline while still in its call: it gets no other page
// (one would wait behind that call, unchecked) and ends once the call returns.
void give_up_on(self_ptr self, const sender_actor& sender) {
  returned(self, sender, true);
  self->send_exit(sender, caf::exit_reason::user_shutdown);
}

// What became of a page whose sender died or missed its deadline: nobody knows whether
// it went out, so it is an ambiguous attempt, retried (at least once, G6).
transport::send_result sender_lost(const caf::error& err) {
  if (test_hooks::sender_lost_as_sent)
    return {transport::outcome::sent, false, 200, ""};
  return {transport::outcome::retry, true, 0, "sender: " + to_string(err)};
}

void start_send(self_ptr self, queued_delivery q) {
  auto& st = self->state;
  auto& cd = q.claimed;
  st.retries.erase(cd.delivery.id);
  transport::page p{cd.delivery.idempotency_key,
                    cd.delivery.target,
                    cd.incident,
                    cd.delivery.loop,
                    cd.delivery.step,
                    cd.delivery.attempts};
  p.message = cd.message;
  static const transport::answer_links no_links;
  protocol::with_answer(p, st.d.answers ? *st.d.answers : no_links, cd.delivery,
                        now(self));
  test_hooks::observe(test_hooks::on_page_handed_over, cd.delivery.idempotency_key);
  auto& slot = take_sender(self);
  ++slot.pages;
  ++st.sending;
  auto sender = slot.actor;
  self->request(sender, send_deadline(self), atom::send_v, st.config, std::move(p),
                caf::timespan::max())
      .then(
          [self, q, sender](std::optional<transport::send_result>& res) {
            auto& st = self->state;
            returned(self, sender, false);
            if (!res) { // not sent: checked again first
              st.queue.push_front({q.claimed, 0});
            } else {
              if (res->ambiguous) {
                ++st.ambiguous;
                count(self, "ambiguous");
              }
              settle(self, q.claimed, *res);
            }
            dispatch(self);
          },
          [self, q, sender](caf::error& err) {
            give_up_on(self, sender);
            settle(self, q.claimed, sender_lost(err));
            dispatch(self);
          });
}

// A bundle's answer (docs/architecture.md#storms): one outcome for every member, and
// the bundle's own; sent, it is the contact's last message.
void settle_bundle(self_ptr self, storage::claimed_bundle b,
                   const transport::send_result& res,
                   std::optional<caf::actor_clock::time_point> give_up_at) {
  auto& st = self->state;
  if (!give_up_at)
    give_up_at = self->clock().now() + lease_margin(self);
  auto attempt = attempt_of(res);
  storage::bundle_outcome o{b.org_id, b.id, "DEAD", res.error, now(self), {}};
  for (auto& m : b.members) {
    o.members.push_back(
        storage::outcome_of(m, st.config, st.d.node_id, attempt, now(self)));
    if (o.members.back().status != "DEAD")
      o.status = o.members.back().status; // SENT, or retried whole (PENDING)
  }
  self->request(st.d.storage, st.d.request_timeout, atom::record_bundle_outcome_v,
                std::move(o))
      .then(
          [self, b, sent = attempt.sent](std::vector<storage::recorded_outcome>& outs) {
            auto& st = self->state;
            --st.bundling;
            for (size_t i = 0; i < outs.size() && i < b.members.size(); ++i)
              note_outcome(self, b.members[i], outs[i]);
            if (sent) {
              metrics::count(metrics::name::bundles_sent_total,
                             {{"channel", st.config.name}});
              metrics::count(metrics::name::pages_bundled_total,
                             {{"channel", st.config.name}},
                             static_cast<double>(b.members.size()));
            }
            dispatch(self);
          },
          [self, b, res, until = *give_up_at](caf::error& err) {
            auto& st = self->state;
            if (self->clock().now() < until) {
              // Recorded again (a compare-and-set on the members' claims and the
              // bundle's status), not sent again once the claims lapse.
              spdlog::warn("channel {}: cannot record bundle {} yet: {}", st.config.name,
                           b.id, to_string(err));
              st.unrecorded_bundles.push_back({b, res, until});
              self->delayed_send(self, st.d.db_retry, atom::retry_tick_v);
              return;
            }
            --st.bundling;
            // Its members' claims return to the pool when their lease lapses: the
            // bundle is claimed and sent again then (at least once, G6).
            for (auto& m : b.members)
              st.holding.erase(m.delivery.id);
            spdlog::error("channel {}: cannot record bundle {}: {}; giving up",
                          st.config.name, b.id, to_string(err));
            dispatch(self);
          });
}

// The page a bundle is: every incident once, in the order claimed, each member's with
// its own link, then the carried ones (answered through the bundle's link).
transport::page bundle_page(self_ptr self, const storage::claimed_bundle& b) {
  auto& st = self->state;
  static const transport::answer_links no_links;
  const auto& links = st.d.answers ? *st.d.answers : no_links;
  transport::page p;
  p.idempotency_key = "bundle:" + std::to_string(b.id);
  p.target = b.target;
  std::vector<protocol::bundled_incident> incidents;
  std::set<int64_t> listed;
  for (auto& m : b.members) {
    p.attempt = std::max(p.attempt, m.delivery.attempts);
    if (!listed.insert(m.incident.id).second)
      continue;
    transport::page single;
    protocol::with_answer(single, links, m.delivery, now(self));
    p.update = single.update;
    incidents.push_back({m.incident, single.answer_url});
  }
  for (auto& i : b.carried)
    if (listed.insert(i.id).second)
      incidents.push_back({i, ""});
  protocol::with_bundle(p, links, b.id, std::move(incidents), now(self));
  return p;
}

void send_bundle(self_ptr self, storage::claimed_bundle b) {
  auto& st = self->state;
  auto p = bundle_page(self, b);
  auto& slot = take_sender(self);
  ++slot.pages;
  ++st.sending;
  auto sender = slot.actor;
  self->request(sender, send_deadline(self), atom::send_v, st.config, std::move(p),
                caf::timespan::max())
      .then(
          [self, b, sender](std::optional<transport::send_result>& res) {
            returned(self, sender, false);
            settle_bundle(self, b,
                          res.value_or(transport::send_result{transport::outcome::retry,
                                                              false, 0, "not sent"}));
            dispatch(self);
          },
          [self, b, sender](caf::error& err) {
            give_up_on(self, sender);
            settle_bundle(self, b, sender_lost(err));
            dispatch(self);
          });
}

// Right before a bundle goes (G4 per member): members whose incident was settled leave
// it, carried incidents no longer open are dropped, and a bundle left without a member
// is not sent at all. A sender stays reserved for it meanwhile, so that it is sent in
// the round its check answered, by an idle sender.
void start_bundle(self_ptr self, storage::claimed_bundle b) {
  auto& st = self->state;
  ++st.bundling;
  ++st.bundle_checks;
  storage::bundle_recheck req{b, st.d.node_id, now(self),
                              now(self) +
                                  static_cast<micros>(st.opts.claim_lease_seconds * 1e6)};
  self->request(st.d.storage, st.d.request_timeout, atom::recheck_bundle_v,
                std::move(req))
      .then(
          [self, b](storage::checked_bundle& checked) mutable {
            auto& st = self->state;
            --st.bundle_checks;
            std::set<int64_t> live(checked.live_members.begin(),
                                   checked.live_members.end());
            std::set<int64_t> open(checked.open_carried.begin(),
                                   checked.open_carried.end());
            std::vector<storage::claimed_delivery> members;
            for (auto& m : b.members) {
              if (live.count(m.delivery.id)) {
                members.push_back(std::move(m));
                continue;
              }
              st.holding.erase(m.delivery.id);
              ++st.failed;
              count(self, "cancelled");
            }
            b.members = std::move(members);
            b.carried.erase(std::remove_if(b.carried.begin(), b.carried.end(),
                                           [&](auto& i) { return !open.count(i.id); }),
                            b.carried.end());
            if (checked.cancelled()) {
              --st.bundling;
              dispatch(self);
              return;
            }
            send_bundle(self, std::move(b));
          },
          [self, b](caf::error& err) {
            auto& st = self->state;
            --st.bundling;
            --st.bundle_checks;
            spdlog::error("channel {}: cannot check bundle {}: {}", st.config.name, b.id,
                          to_string(err));
            st.bundles.push_front(b);
            self->delayed_send(self, st.d.db_retry, atom::retry_tick_v);
          });
}

// Checks the rows against their incidents once more, renewing their claims: the live
// ones are sent, those of settled incidents were cancelled, lost claims are dropped.
void recheck(self_ptr self, std::vector<storage::claimed_delivery> rows) {
  auto& st = self->state;
  st.checking += rows.size();
  storage::recheck_request req{st.d.node_id,
                               now(self),
                               now(self) +
                                   static_cast<micros>(st.opts.claim_lease_seconds * 1e6),
                               {}};
  for (auto& r : rows)
    req.claims.push_back({r.delivery.org_id, r.delivery.id, r.delivery.attempts});
  metrics::count(metrics::name::delivery_rechecks_total, {{"channel", st.config.name}});
  metrics::count(metrics::name::deliveries_rechecked_total, {{"channel", st.config.name}},
                 static_cast<double>(rows.size()));
  self->request(st.d.storage, st.d.request_timeout, atom::recheck_claims_v,
                std::move(req))
      .then(
          [self, rows](std::vector<storage::recheck_result>& results) mutable {
            auto& st = self->state;
            st.checking -= rows.size();
            std::map<int64_t, bool> live;
            for (auto& r : results)
              live[r.delivery_id] = r.live;
            // The live ones go back to the front, in their order, checked this round.
            for (auto row = rows.rbegin(); row != rows.rend(); ++row) {
              auto it = live.find(row->delivery.id);
              if (it == live.end() || !it->second)
                st.holding.erase(row->delivery.id);
              if (it == live.end())
                continue; // the claim lapsed and was taken over
              if (!it->second) {
                ++st.failed;
                count(self, "cancelled");
                continue;
              }
              test_hooks::observe(test_hooks::on_page_checked,
                                  row->delivery.idempotency_key);
              st.queue.push_front({std::move(*row), st.round});
            }
            dispatch(self);
          },
          [self, rows](caf::error& err) mutable {
            auto& st = self->state;
            st.checking -= rows.size();
            spdlog::error("channel {}: cannot re-check {} deliveries: {}", st.config.name,
                          rows.size(), to_string(err));
            // Back in front of the queue, checked again once storage answers.
            for (auto it = rows.rbegin(); it != rows.rend(); ++it)
              st.queue.push_front({std::move(*it), 0});
            self->delayed_send(self, st.d.db_retry, atom::retry_tick_v);
          });
}

// Starts what the free senders can take, in claim order. A row goes out without another
// check only in the round its claim or re-check answered: one that waited for a sender
// at all might have been acknowledged meanwhile, and is checked again first (G4). The
// check is as late as it can be, the send's start only the hand-over to an idle sender
// after it. A re-check takes as many waiting rows as there are free senders: a row
// checked and not handed over in that round would wait again and be checked again. A
// re-check of rows unchanged since their claim is a read by key that commits nothing
// (storage::recheck_claims), so claims take a claim's worth and what waits pays a read,
// not a commit: that is G4's price (bench/JOURNAL.md, 6 December).
void dispatch(self_ptr self) {
  auto& st = self->state;
  auto stale = [&](const queued_delivery& q) {
    return q.checked != st.round && !test_hooks::skip_send_recheck;
  };
  auto room = free_senders(self);
  while (room > 0 && !st.bundles.empty()) {
    start_bundle(self, std::move(st.bundles.front()));
    st.bundles.pop_front();
    --room;
  }
  while (room > 0 && !st.queue.empty() && !stale(st.queue.front())) {
    start_send(self, std::move(st.queue.front()));
    st.queue.pop_front();
    --room;
  }
  if (room > 0 && !st.queue.empty() && st.checking == 0) {
    std::vector<storage::claimed_delivery> waited;
    while (!st.queue.empty() && stale(st.queue.front()) && waited.size() < room) {
      waited.push_back(std::move(st.queue.front().claimed));
      st.queue.pop_front();
    }
    recheck(self, std::move(waited));
  }
  ++st.round; // what is still queued has waited: checked again before it is sent
  claim_if_wanted(self);
}

// What a claim took: the pages queued for a sender, the cancelled ones counted.
void take_claimed(self_ptr self, std::vector<storage::claimed_delivery>& claimed,
                  bool maybe_more) {
  auto& st = self->state;
  st.claiming = false;
  st.claim_lost = false;
  size_t cancelled = 0;
  for (auto& cd : claimed) {
    if (cd.delivery.status == "CANCELLED")
      ++cancelled; // left pending by a settled incident: never sent
    else {
      test_hooks::observe(test_hooks::on_page_checked, cd.delivery.idempotency_key);
      st.holding.insert(cd.delivery.id);
      st.queue.push_back({std::move(cd), st.round});
    }
  }
  if (cancelled > 0) {
    st.failed += cancelled;
    count(self, "cancelled", static_cast<double>(cancelled));
  }
  if (maybe_more)
    st.again = true; // there may be more due
  dispatch(self);
}

// Pages held by a contact's throttle are due when it opens: claim then, not at the next
// poll. One timer, at the earliest opening.
void wake_when_throttle_opens(self_ptr self, micros opens_at) {
  auto& st = self->state;
  if (st.wake_at && *st.wake_at <= opens_at && *st.wake_at > now(self))
    return;
  st.wake_at = opens_at;
  self->delayed_send(self, st.d.clock.until(opens_at, self->clock().now()),
                     atom::nudge_v);
}

// A claim is itself a check (G4): its rows go out without another in the round it
// answers, as many as there are free senders; the rest wait, and are re-checked as
// senders free up (dispatch()).
void claim(self_ptr self) {
  auto& st = self->state;
  st.again = true;
  if (st.claiming)
    return; // one claim at a time; another follows when this one is done
  auto capacity = claim_capacity(st.opts, st.config);
  if (held(self) >= capacity)
    return; // claimed again as rows leave
  auto limit =
      std::min<size_t>(static_cast<size_t>(st.opts.claim_batch), capacity - held(self));
  st.claiming = true;
  st.again = false;
  storage::claim_request req{st.config.org_id,
                             st.config.name,
                             st.d.node_id,
                             now(self),
                             now(self) +
                                 static_cast<micros>(st.opts.claim_lease_seconds * 1e6),
                             static_cast<int>(limit)};
  req.release_unheld = st.claim_lost;
  metrics::count(metrics::name::delivery_claims_total, {{"channel", st.config.name}});
  if (req.release_unheld)
    req.held.assign(st.holding.begin(), st.holding.end());
  auto failed = [self](caf::error& err) {
    auto& st = self->state;
    st.claiming = false;
    st.claim_lost = true;
    spdlog::error("channel {}: claim failed: {}", st.config.name, to_string(err));
    self->delayed_send(self, st.d.db_retry, atom::retry_tick_v);
  };
  if (st.config.per_contact()) {
    storage::contact_request creq{
        std::move(req),
        test_hooks::skip_throttle ? throttle_windows{} : st.config.throttle,
        st.config.status_throttle, st.config.bundle, st.opts.max_bundle_members};
    self->request(st.d.storage, st.d.request_timeout, atom::claim_contacts_v,
                  std::move(creq))
        .then(
            [self, limit](storage::contact_claim& claimed) {
              auto taken = claimed.pages.size() + claimed.bundles.size();
              for (auto& b : claimed.bundles) {
                for (auto& m : b.members)
                  self->state.holding.insert(m.delivery.id);
                self->state.bundles.push_back(std::move(b));
              }
              if (claimed.opens_at)
                wake_when_throttle_opens(self, *claimed.opens_at);
              take_claimed(self, claimed.pages, taken >= limit);
            },
            failed);
    return;
  }
  self->request(st.d.storage, st.d.request_timeout, atom::claim_due_v, std::move(req))
      .then(
          [self, limit](std::vector<storage::claimed_delivery>& claimed) {
            take_claimed(self, claimed, claimed.size() >= limit);
          },
          failed);
}

// Retries due by now are claimed now: the schedule keeps only those still to come (one
// cancelled by an acknowledge would otherwise stay listed for ever).
void forget_due_retries(self_ptr self) {
  auto& st = self->state;
  auto at = now(self);
  for (auto it = st.retries.begin(); it != st.retries.end();)
    it = it->second.due_at <= at ? st.retries.erase(it) : std::next(it);
}

} // namespace

channel_actor::behavior_type channel(self_ptr self, channel_config config,
                                     dispatcher_actor dispatcher, delivery_options opts,
                                     deps d) {
  auto& st = self->state;
  st.config = std::move(config);
  st.dispatcher = std::move(dispatcher);
  st.opts = opts;
  st.d = std::move(d);
  // Started again after a crash, it holds nothing: what its last life claimed goes back
  // to the pool at its first claim (claim_lost), not when the lease lapses
  // (docs/guarantees.md#g6).
  st.claim_lost = true;
  return {
      [self](atom::nudge) { claim(self); },
      [self](atom::retry_tick) {
        settle_unrecorded(self);
        forget_due_retries(self);
        claim(self);
        dispatch(self);
      },
      [self](atom::reload, channel_config& cfg) { self->state.config = std::move(cfg); },
      [self](atom::view) {
        auto& st = self->state;
        channel_view v{st.config,
                       st.queue.size() + st.checking,
                       st.sending + st.settling,
                       st.sent,
                       st.failed,
                       st.dead,
                       st.ambiguous,
                       {}};
        for (auto& [id, r] : st.retries)
          v.retries.push_back(r);
        return v;
      },
  };
}

} // namespace belay
