// Every SQL statement about incidents. Each function is one round trip and, where it
// writes, one atomic statement: the database arbitrates (G1) and every step, ack and
// resolve is a compare-and-set (G4).
#pragma once

#include "protocol/commands.hpp"
#include "protocol/ladder.hpp"
#include "protocol/model.hpp"
#include "protocol/paging.hpp"
#include "storage/held_incident.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace belay::storage {

class connection;

struct upsert_result {
  reply_code code = reply_code::ok; // ok or unknown_policy
  bool created = false;             // or reopened: a ladder to run either way
  bool reopened = false; // a resolved incident reopened within its policy's window
  bool joined = false;   // a new alert that joined an incident
                         // (docs/guarantees.md#alerts-and-grouping)
  held_incident held;
};

struct ownership {
  std::string node;
  micros lease_until = 0;
};

// One trigger event as a storage worker writes it: the command, when it arrived,
// and the lease this node takes on the incident if the event creates it.
struct trigger_event {
  trigger_command cmd;
  micros at = 0;
  ownership owner;
};

// Upserts the events as if one after the other, in order, but in one statement: the
// events of one dedup key become one row (the first may create the incident, the rest
// count as duplicates) and every event still gets its own timeline entry and its own
// result. A key whose events name different policies takes a second statement, so an
// unknown policy answers just its own events. The statement is the light one, which
// skips the reopen and maintenance probes, unless an org of the batch needs them: then
// the light one writes nothing and the full one follows (storage/triggers.cpp). Runs in
// the caller's transaction, if any, else atomically on its own.
std::vector<upsert_result> upsert_triggers(connection& c,
                                           const std::vector<trigger_event>& events);

// What a batch of triggers writes about itself, in its own statement, so that a lost
// reply to its COMMIT can be settled by reading back (storage/migrations/0009_*.sql).
struct trigger_mark {
  int64_t id = 0; // random, one per batch
  micros at = 0;
  int64_t previous = 0; // the writer's last committed mark, deleted now; 0 for none
};

// What a writer learned from its last batches, to pick the cheapest trigger statement
// that writes the next one as the others would (storage/triggers.cpp): the keys it last
// wrote a duplicate for (the duplicate statement, a plain UPDATE), and the orgs whose
// batches need the statement that probes for reopen and maintenance windows, until when
// (the light statement tried first would write nothing). One per writer, so no lock.
// Hints only: a wrong one costs a statement, and every event is still written as the
// probing statement would write it.
class trigger_hints {
public:
  bool probes_needed(const std::set<int64_t>& orgs, micros at) const;
  void need_probes(const std::set<int64_t>& orgs, micros until);

  bool open(int64_t org_id, const std::string& dedup_key) const;
  void saw_open(int64_t org_id, const std::string& dedup_key);
  void forget_open(int64_t org_id, const std::string& dedup_key);

  // Batches the duplicate statement wrote, and those it was tried for and could not
  // (a key with no open incident or an unknown policy, a shadow incident meeting a live
  // event, a deadlock): the upsert wrote those.
  int64_t duplicate_statements = 0;
  int64_t duplicate_misses = 0;

private:
  std::map<int64_t, micros> probes_until_;
  // A hash of each open key, not the key: a collision only makes the duplicate statement
  // miss, and the hints stay ~40 B a key however long the keys.
  std::unordered_set<uint64_t> open_;
};

// upsert_triggers, which also writes `mark`, and learns and follows `hints`.
std::vector<upsert_result> upsert_triggers(connection& c,
                                           const std::vector<trigger_event>& events,
                                           const trigger_mark& mark,
                                           trigger_hints& hints);

// The connection broke while `events` were written with `mark`: did they commit? The
// mark is fenced first, so that a write still in flight on the old connection can no
// longer commit. Returns nullopt when nothing was written, else each event's result as
// upsert_triggers would have answered it (from the incidents as they stand now). Throws
// db_error when the database cannot tell (out of reach, or the old transaction held the
// mark's key for too long).
std::optional<std::vector<upsert_result>>
read_back_triggers(connection& c, const std::vector<trigger_event>& events,
                   const trigger_mark& mark);

// Deletes the marks written before `before`: fences, and the last marks of workers that
// stopped. No read-back needs a mark for longer than a lost connection takes to notice.
void prune_trigger_marks(connection& c, micros before);

// The channel on which a committed acknowledge or resolve is announced, as
// "<org id> <incident id>".
inline constexpr const char* incident_channel = "belay_incident";

transition_reply apply_transition(connection& c, const transition_command& cmd,
                                  micros now);

// Fires the step the incident stands on, if it still stands there (status OPEN,
// same step, loop and version): advances the ladder to `next` and inserts one
// delivery per target. fire_of() describes one such step; fire_steps() fires many in
// one statement, each with its own compare-and-set, and returns each new row, or
// nullopt where the compare-and-set failed (acknowledged, resolved or moved on).
struct fire_event {
  int64_t org_id = 0;
  int64_t id = 0;
  int step = 0; // expected: the step about to fire, of this loop, at this version
  int loop = 0;
  int64_t version = 0;
  ladder_position next;
  protocol::step_pages pages; // the step's targets, people and schedules expanded
  micros at = 0;
  micros scheduled_at = 0; // when the step was due (for the timeline)
  // What a maintenance window may cover (docs/guarantees.md#maintenance-windows): a step
  // due while one does is held instead (the row answered has held_until set).
  std::string policy{};
  std::string integration{};
};

fire_event fire_of(const incident_record& expected, protocol::step_pages pages,
                   const ladder_position& next, micros now);

std::vector<std::optional<incident_record>>
fire_steps(connection& c, const std::vector<fire_event>& fires);

// OPEN -> EXHAUSTED once the grace period after the last step has run out.
std::optional<incident_record> exhaust(connection& c, const incident_record& expected,
                                       micros now);

std::optional<held_incident> load_incident(connection& c, int64_t org_id, int64_t id);

// One page of a node's adoption at start: the non-resolved incidents after the key
// (after_org, after_id), in key order, at most `limit`. A million open incidents taken
// in one statement took longer than any request may
// (docs/guarantees.md#nothing-waits-for-ever); a page of 10,000 takes well under a
// second.
struct adoption_page {
  ownership owner;
  micros now = 0;
  int64_t after_org = 0;
  int64_t after_id = 0;
  int limit = 10000;
};

struct adopted {
  std::vector<held_incident> held;
  bool more = false; // the page was full: ask for the one after (last_org, last_id)
  int64_t last_org = 0;
  int64_t last_id = 0;
};

// Renews `page.owner`'s lease (taking over the incidents of nodes whose leases lapsed),
// then takes ownership of the page's non-resolved incidents that are unowned or whose
// owner's lease lapsed, reads those it owns already without rewriting them, and returns
// them all for their actors to be spawned. A node whose lease holds keeps its
// incidents, however old their own leases.
adopted adopt_unresolved(connection& c, const adoption_page& page);

// A node's lease (docs/architecture.md#ownership): one row per node, which the node
// renews well before it lapses. Renewing one row, not the lease of each of 100,000
// incidents, keeps holding them at one small update per renewal.
struct lease_renewal {
  // The row was gone: other nodes may have taken this node's incidents over after its
  // lease lapsed (a long pause, or the database out of reach). See owned_elsewhere.
  bool lost = false;
  std::vector<held_incident> taken; // from nodes whose leases lapsed
};

// Renews `owner`'s lease to owner.lease_until, then takes over the non-resolved incidents
// of every other node whose lease lapsed before `now`, and forgets those nodes. Runs in a
// transaction of its own unless the caller's.
lease_renewal renew_lease(connection& c, const ownership& owner, micros now);

// One pass of the orphan sweep (docs/guarantees.md#every-accepted-event-pages): `owner`
// looks for non-resolved incidents whose step was due before `overdue_before` and that no
// live node holds.
struct orphan_sweep {
  ownership owner;
  micros now = 0;
  micros overdue_before = 0;
  int limit = 100; // incidents per pass, the most overdue first
  // Incidents of sweep.owner that live actors hold, passed over: a step lagging in a
  // storm is theirs to fire, and must not fill the pass and hide the real orphans.
  std::vector<int64_t> held{};
  // Retention (docs/guarantees.md#retention): when not 0, this pass also deletes up to
  // retention_batch incidents resolved before it (delete_resolved_before).
  micros resolved_before = 0;
  int retention_batch = 500;
  // Audit log rows written before it go too, retention_batch at most
  // (docs/security.md#audit-log); 0: none.
  micros audit_before = 0;
};

// Takes for sweep.owner every incident of the sweep that is unowned, owned by a node
// whose lease lapsed (its row gone or expired, and the incident's own lease too), or
// owned by sweep.owner itself: its registry holds those it has no actor for. Rows being
// written now (a live actor firing a step) are skipped.
std::vector<held_incident> adopt_orphans(connection& c, const orphan_sweep& sweep);

// Incidents by their primary key: (org id, incident id) each.
using incident_keys = std::vector<std::pair<int64_t, int64_t>>;

// Of the incidents `keys`, the ids of those now owned by another node than `node`.
std::vector<int64_t> owned_elsewhere(connection& c, const std::string& node,
                                     const incident_keys& keys);

// The incidents `keys` that exist, as they stand, with their ladders: what a holder
// follows after a notification (an acknowledge, a resolve, an action of
// storage/actions.hpp on another node) or a listener that was deaf.
std::vector<held_incident> current_among(connection& c, const incident_keys& keys);

struct incident_page {
  std::vector<incident_record> incidents;
  std::optional<int64_t> next_after; // cursor: the last id of this page, when more follow
};

// Newest first; `status` and `priority` empty for any.
incident_page list_incidents(connection& c, int64_t org_id, const std::string& status,
                             int limit, int64_t after_id,
                             const std::string& priority = "");

std::vector<timeline_entry> load_timeline(connection& c, int64_t org_id, int64_t id);

struct timeline_page {
  std::vector<timeline_entry> entries;
  std::optional<int64_t> next_after; // the last entry's seq, when more follow
};
// Oldest first, after entry `after_seq` (0: from the first).
timeline_page load_timeline(connection& c, int64_t org_id, int64_t id, int64_t after_seq,
                            int limit);

// Retention (docs/guarantees.md#retention): deletes up to `batch` incidents resolved
// before `resolved_before`, with their timelines, deliveries and dead letters, in one
// transaction. Returns how many incidents went.
size_t delete_resolved_before(connection& c, micros resolved_before, int batch);
// The sweep's retention pass, if it asks for one.
size_t sweep_retention(connection& c, const orphan_sweep& sweep);

// One whole pass of the orphan sweep: stale trigger marks and resolved incidents past
// retention go in the same transaction as the adoption of orphans (adopt_orphans).
std::vector<held_incident> sweep_orphans(connection& c, const orphan_sweep& sweep);

} // namespace belay::storage
