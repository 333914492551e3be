#include "actors/heartbeats.hpp"

#include <algorithm>
#include <caf/event_based_actor.hpp>
#include <spdlog/spdlog.h>
#include <string_view>

namespace belay {

namespace {

using self_ptr = heartbeat_actor::stateful_pointer<heartbeats_state>;

// The most pings one statement writes; more wait for the next.
constexpr size_t max_pings_per_write = 2000;

micros now(self_ptr self) {
  return self->state.d.clock.at(self->clock().now());
}

caf::timespan seconds(double s) {
  return std::chrono::duration_cast<caf::timespan>(std::chrono::duration<double>(s));
}

caf::timespan sweep_interval(self_ptr self) {
  return seconds(self->state.d.lease_seconds / 3);
}

// Arms the one timer for the earliest deadline, unless one is armed for it already (or
// sooner: it then finds nothing due and arms again).
void arm(self_ptr self) {
  auto& st = self->state;
  if (st.deadlines.empty())
    return;
  auto first = st.deadlines.begin()->first;
  if (st.armed_at && *st.armed_at <= first)
    return;
  st.armed_at = first;
  auto wait = st.d.clock.until(first, self->clock().now());
  if (wait.count() == 0)
    self->send(self, atom::fire_tick_v, ++st.generation);
  else
    self->delayed_send(self, wait, atom::fire_tick_v, ++st.generation);
}

void unschedule(self_ptr self, held_monitor& m) {
  if (m.deadline)
    self->state.deadlines.erase({*m.deadline, m.row.id});
  m.deadline.reset();
}

void schedule(self_ptr self, held_monitor& m, std::optional<micros> at) {
  unschedule(self, m);
  if (!at)
    return;
  m.deadline = at;
  self->state.deadlines.emplace(*at, m.row.id);
  arm(self);
}

void drop(self_ptr self, int64_t id) {
  auto it = self->state.held.find(id);
  if (it == self->state.held.end())
    return;
  unschedule(self, it->second);
  self->state.held.erase(it);
}

// Takes the row as the database has it, if this node holds the monitor and the row is
// not older than what it knows; schedules its next deadline.
void hold(self_ptr self, const heartbeat_record& row) {
  auto& st = self->state;
  if (row.owner != st.d.node_id)
    return drop(self, row.id);
  auto& m = st.held[row.id];
  if (m.row.id != 0 && row.version < m.row.version)
    return;
  m.row = row;
  auto next = protocol::next_deadline(row);
  schedule(self, m, next ? std::optional<micros>{next->at} : std::nullopt);
}

void settle(self_ptr self, const heartbeat_record& row, std::string pending);

void effect_failed(self_ptr self, const heartbeat_record& row, const std::string& pending,
                   const caf::error& err) {
  self->state.effects.erase({row.id, pending});
  // The row keeps it pending: the next sweep makes it again.
  spdlog::warn("heartbeat '{}': cannot {} its incident yet: {}", row.name,
               pending == pending_resolve ? "resolve" : "open", to_string(err));
}

void resolve_incident(self_ptr self, const heartbeat_record& row, bool then_settle) {
  transition_command cmd{
      row.org_id,          0,           protocol::heartbeat_dedup_key(row.name),
      transition::resolve, "heartbeat", "heartbeat",
      "heartbeat"};
  self->request(self->state.registry, self->state.d.request_timeout, atom::transition_v,
                std::move(cmd))
      .then(
          [self, row, then_settle](transition_reply&) {
            if (then_settle)
              settle(self, row, pending_resolve);
          },
          [self, row, then_settle](caf::error& err) {
            if (then_settle)
              effect_failed(self, row, pending_resolve, err);
            else
              spdlog::warn("heartbeat '{}': cannot resolve its incident: {}", row.name,
                           to_string(err));
          });
}

// Makes the side effect the row has pending, unless it is being made already: opens
// the monitor's incident through the trigger lane (missed, failed), or resolves it.
void make_pending(self_ptr self, const heartbeat_record& row) {
  auto& st = self->state;
  if (row.pending.empty() || !st.effects.emplace(row.id, row.pending).second)
    return;
  if (row.pending == pending_resolve)
    return resolve_incident(self, row, true);
  trigger_command cmd;
  cmd.org_id = row.org_id;
  cmd.dedup_key = protocol::heartbeat_dedup_key(row.name);
  cmd.title = protocol::heartbeat_title(row.name, row.pending);
  cmd.policy = row.policy;
  cmd.details_json = protocol::heartbeat_incident_details(row.name, row.pending);
  cmd.source = "heartbeat";
  auto worker = st.lane.worker_for(cmd.org_id, cmd.dedup_key);
  self->request(worker, st.d.request_timeout, atom::trigger_v, std::move(cmd))
      .then(
          [self, row](trigger_reply& r) {
            if (r.code != reply_code::ok)
              spdlog::error("heartbeat '{}': its policy '{}' does not exist: no "
                            "incident opened",
                            row.name, row.policy);
            settle(self, row, row.pending);
          },
          [self, row](caf::error& err) { effect_failed(self, row, row.pending, err); });
}

// The side effect was made: clear it in the row, if the row still asks for it. If the
// monitor came back up in between (its success saw no incident yet to resolve), the
// incident just opened is resolved now.
void settle(self_ptr self, const heartbeat_record& row, std::string pending) {
  storage::heartbeat_change change;
  change.org_id = row.org_id;
  change.id = row.id;
  change.step = storage::heartbeat_step::settle;
  change.pending = pending;
  self->request(self->state.d.storage, self->state.d.request_timeout,
                atom::change_heartbeat_v, std::move(change))
      .then(
          [self, row, pending](storage::heartbeat_changed& r) {
            self->state.effects.erase({row.id, pending});
            if (!r.row)
              return drop(self, row.id);
            if (r.row->owner == self->state.d.node_id)
              hold(self, *r.row);
            bool opened = pending != pending_resolve;
            if (!r.applied && opened && r.row->state != heartbeat_down)
              resolve_incident(self, *r.row, false);
          },
          [self, row, pending](caf::error& err) {
            effect_failed(self, row, pending, err);
          });
}

// Silence made a monitor late or down by now: a compare-and-set on the version this
// node knows. Failed, the row as it stands is taken instead (a ping through another
// node, a new definition), which schedules it anew.
void decide(self_ptr self, int64_t id, micros at) {
  auto& st = self->state;
  auto it = st.held.find(id);
  if (it == st.held.end() || st.deciding.count(id))
    return;
  auto& m = it->second;
  const char* to = protocol::due_transition(m.row, at);
  if (!to) {
    auto next = protocol::next_deadline(m.row);
    return schedule(self, m, next ? std::optional<micros>{next->at} : std::nullopt);
  }
  st.deciding.insert(id);
  storage::heartbeat_change change;
  change.org_id = m.row.org_id;
  change.id = id;
  // By value: the same literal may have another address in another translation unit.
  change.step = std::string_view{to} == heartbeat_down ? storage::heartbeat_step::down
                                                       : storage::heartbeat_step::late;
  change.version = m.row.version;
  change.owner = st.d.node_id;
  change.at = at;
  auto retry_later = [self, id] {
    auto& st = self->state;
    if (auto it = st.held.find(id); it != st.held.end())
      schedule(self, it->second,
               now(self) +
                   std::chrono::duration_cast<std::chrono::microseconds>(st.d.db_retry)
                       .count());
  };
  self->request(st.d.storage, st.d.request_timeout, atom::change_heartbeat_v,
                std::move(change))
      .then(
          [self, id, version = m.row.version,
           retry_later](storage::heartbeat_changed& r) {
            self->state.deciding.erase(id);
            if (!r.row)
              return drop(self, id);
            hold(self, *r.row);
            make_pending(self, *r.row);
            // Refused although the row did not change: never at once again (that would
            // spin), but after db_retry.
            if (!r.applied && r.row->version == version)
              retry_later();
          },
          [self, id, retry_later](caf::error& err) {
            self->state.deciding.erase(id);
            spdlog::warn("heartbeats: cannot change monitor {}, retrying: {}", id,
                         to_string(err));
            retry_later();
          });
}

void fire(self_ptr self) {
  auto& st = self->state;
  st.armed_at.reset();
  auto at = now(self);
  std::vector<int64_t> due;
  while (!st.deadlines.empty() && st.deadlines.begin()->first <= at) {
    auto id = st.deadlines.begin()->second;
    st.deadlines.erase(st.deadlines.begin());
    if (auto it = st.held.find(id); it != st.held.end())
      it->second.deadline.reset();
    due.push_back(id);
  }
  for (auto id : due)
    decide(self, id, at);
  arm(self);
}

// Writes every queued ping in one statement and answers each after its COMMIT.
void write_pings(self_ptr self) {
  auto& st = self->state;
  if (st.writing || st.queued.empty())
    return;
  st.writing = true;
  auto n = std::min(st.queued.size(), max_pings_per_write);
  std::vector<caf::typed_response_promise<reply_code>> promises;
  std::vector<storage::heartbeat_ping> pings;
  promises.reserve(n);
  pings.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    pings.push_back(st.queued[i].ping);
    promises.push_back(std::move(st.queued[i].promise));
  }
  st.queued.erase(st.queued.begin(), st.queued.begin() + static_cast<ptrdiff_t>(n));
  self->request(st.d.storage, st.d.request_timeout, atom::record_pings_v,
                std::move(pings))
      .then(
          [self, promises](std::vector<std::optional<heartbeat_record>>& rows) mutable {
            for (size_t i = 0; i < promises.size(); ++i)
              promises[i].deliver(i < rows.size() && rows[i] ? reply_code::ok
                                                             : reply_code::not_found);
            for (auto& row : rows)
              if (row) {
                if (row->owner == self->state.d.node_id)
                  hold(self, *row);
                make_pending(self, *row);
              }
            self->state.writing = false;
            write_pings(self);
          },
          [self, promises](caf::error& err) mutable {
            spdlog::warn("heartbeats: {} pings not recorded: {}", promises.size(),
                         to_string(err));
            for (auto& p : promises)
              p.deliver(err);
            self->state.writing = false;
            write_pings(self);
          });
}

void sweep(self_ptr self) {
  auto& st = self->state;
  storage::heartbeat_sweep req;
  req.now = now(self);
  req.owner = {st.d.node_id, req.now + static_cast<micros>(st.d.lease_seconds * 1e6)};
  req.known_ids.reserve(st.held.size());
  req.known_versions.reserve(st.held.size());
  for (auto& [id, m] : st.held) {
    req.known_ids.push_back(id);
    req.known_versions.push_back(m.row.version);
  }
  self->request(st.d.storage, st.d.request_timeout, atom::sweep_heartbeats_v,
                std::move(req))
      .then(
          [self](storage::heartbeat_holdings& h) {
            for (auto id : h.gone)
              drop(self, id);
            for (auto& row : h.held) {
              hold(self, row);
              make_pending(self, row);
            }
            self->delayed_send(self, sweep_interval(self), atom::sweep_tick_v);
          },
          [self](caf::error& err) {
            spdlog::warn("heartbeats: the sweep failed: {}", to_string(err));
            self->delayed_send(self, self->state.d.db_retry, atom::sweep_tick_v);
          });
}

} // namespace

heartbeat_actor::behavior_type
heartbeats(heartbeat_actor::stateful_pointer<heartbeats_state> self, deps d,
           registry_actor registry, trigger_lane lane) {
  self->state.d = std::move(d);
  self->state.registry = std::move(registry);
  self->state.lane = std::move(lane);
  self->send(self, atom::sweep_tick_v); // take this node's monitors at once
  return {
      [self](atom::ping, int64_t org, int64_t id,
             ping_kind kind) -> caf::result<reply_code> {
        auto rp = self->make_response_promise<reply_code>();
        self->state.queued.push_back({{org, id, kind, now(self)}, rp});
        write_pings(self);
        return rp;
      },
      [self](atom::fire_tick, uint64_t generation) {
        if (generation == self->state.generation)
          fire(self);
      },
      [self](atom::sweep_tick) { sweep(self); },
      [self](atom::views, int64_t org) {
        std::vector<heartbeat_record> out;
        for (auto& [id, m] : self->state.held)
          if (m.row.org_id == org)
            out.push_back(m.row);
        std::sort(out.begin(), out.end(),
                  [](auto& a, auto& b) { return a.name < b.name; });
        return out;
      },
  };
}

} // namespace belay
