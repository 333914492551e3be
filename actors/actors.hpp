// The contract between belay's actors: every actor's typed interface, one comment line
// per handler, every atom (one per meaning, grouped by purpose) and every message type.
// The compiler checks each send and each handler against these lists.
//
// Supervision: the registry restarts incident actors from their rows, the dispatcher
// restarts channel actors from their configuration, and the storage router restarts
// its workers; each monitors what it spawned.
//
// Message types are registered with CAF_ALLOW_UNSAFE_MESSAGE_TYPE rather than
// CAF_ADD_TYPE_ID: in CAF 0.17, add_message_types() wants every type in the block to be
// serializable (an inspect() overload each), and belay's messages never leave the
// process. The atoms are in the block.
#pragma once

#include "actors/clock.hpp"
#include "actors/transport/transport.hpp"
#include "protocol/commands.hpp"
#include "protocol/heartbeat.hpp"
#include "protocol/model.hpp"
#include "protocol/views.hpp"
#include "storage/contacts.hpp"
#include "storage/deliveries.hpp"
#include "storage/heartbeats.hpp"
#include "storage/incidents.hpp"
#include "storage/maintenance.hpp"
#include "storage/schedules.hpp"

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/fwd.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <optional>
#include <string>
#include <vector>

CAF_BEGIN_TYPE_ID_BLOCK(belay, caf::first_custom_type_id)

// Triggers: written by the storage worker of their shard, which tells the registry.
CAF_ADD_ATOM(belay, belay::atom, trigger, "trigger")
CAF_ADD_ATOM(belay, belay::atom, written, "written")
CAF_ADD_ATOM(belay, belay::atom, duplicate, "duplicate")
CAF_ADD_ATOM(belay, belay::atom, join, "join")

// Acknowledge and resolve.
CAF_ADD_ATOM(belay, belay::atom, transition, "transition")
CAF_ADD_ATOM(belay, belay::atom, settled, "settled")
CAF_ADD_ATOM(belay, belay::atom, catch_up, "catch_up")

// The ladder.
CAF_ADD_ATOM(belay, belay::atom, fire, "fire")
CAF_ADD_ATOM(belay, belay::atom, fire_step, "fire_step")
CAF_ADD_ATOM(belay, belay::atom, exhaust, "exhaust")
CAF_ADD_ATOM(belay, belay::atom, resume, "resume")

// Ownership: adoption, node leases, loading one incident.
CAF_ADD_ATOM(belay, belay::atom, adopt, "adopt")
CAF_ADD_ATOM(belay, belay::atom, renew, "renew")
CAF_ADD_ATOM(belay, belay::atom, moved, "moved")
CAF_ADD_ATOM(belay, belay::atom, load, "load")
CAF_ADD_ATOM(belay, belay::atom, sweep, "sweep")
CAF_ADD_ATOM(belay, belay::atom, people, "people")

// Delivery.
CAF_ADD_ATOM(belay, belay::atom, nudge, "nudge")
CAF_ADD_ATOM(belay, belay::atom, nudge_all, "nudge_all")
CAF_ADD_ATOM(belay, belay::atom, retry, "retry")
CAF_ADD_ATOM(belay, belay::atom, tick, "tick")
CAF_ADD_ATOM(belay, belay::atom, reload, "reload")
CAF_ADD_ATOM(belay, belay::atom, claim, "claim")
CAF_ADD_ATOM(belay, belay::atom, recheck, "recheck")
CAF_ADD_ATOM(belay, belay::atom, release, "release")
CAF_ADD_ATOM(belay, belay::atom, lapsed, "lapsed")
CAF_ADD_ATOM(belay, belay::atom, outcome, "outcome")
CAF_ADD_ATOM(belay, belay::atom, claim_contacts, "claim_cont")
CAF_ADD_ATOM(belay, belay::atom, recheck_bundle, "recheck_bu")
CAF_ADD_ATOM(belay, belay::atom, bundle_outcome, "bundle_out")
CAF_ADD_ATOM(belay, belay::atom, replay, "replay")
CAF_ADD_ATOM(belay, belay::atom, channels, "channels")
CAF_ADD_ATOM(belay, belay::atom, send, "send")

// Heartbeat monitors: pings, and the state machine's compare-and-sets.
CAF_ADD_ATOM(belay, belay::atom, ping, "ping")
CAF_ADD_ATOM(belay, belay::atom, heartbeat, "heartbeat")

// Group commit inside a storage worker.
CAF_ADD_ATOM(belay, belay::atom, flush, "flush")

// Inspection and supervision.
CAF_ADD_ATOM(belay, belay::atom, view, "view")
CAF_ADD_ATOM(belay, belay::atom, views, "views")
CAF_ADD_ATOM(belay, belay::atom, stats, "stats")
CAF_ADD_ATOM(belay, belay::atom, holder, "holder")
CAF_ADD_ATOM(belay, belay::atom, children, "children")

CAF_END_TYPE_ID_BLOCK(belay)

// Commands and replies (protocol/commands.hpp).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::trigger_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::trigger_reply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::transition_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::transition_reply)

// Records and views (protocol/model.hpp, protocol/views.hpp).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::incident_record)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::optional<belay::incident_record>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::channel_config)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::channel_config>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::incident_view)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::incident_view>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::channel_view)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::channel_view>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::registry_stats)

// Storage operations' arguments and results (storage/incidents.hpp, deliveries.hpp).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::storage::upsert_result>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::fire_event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::resume_event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::optional<belay::storage::held_incident>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::storage::held_incident>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::ownership)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::orphan_sweep)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::adoption_page)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::adopted)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::lease_renewal)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::incident_keys)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<int64_t>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::claim_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::storage::claimed_delivery>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::recheck_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::storage::recheck_result>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::outcome_event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::recorded_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::contact_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::contact_claim)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::bundle_recheck)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::checked_bundle)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::bundle_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::storage::recorded_outcome>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::released_claims)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::replay_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::protocol::org_people)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::storage::heartbeat_ping>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<std::optional<belay::heartbeat_record>>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::heartbeat_change)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::heartbeat_changed)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::heartbeat_sweep)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::heartbeat_holdings)

// Heartbeats (protocol/heartbeat.hpp).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::ping_kind)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::reply_code)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::heartbeat_record>)

// Transports (actors/transport/transport.hpp).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::transport::page)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::transport::send_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::optional<belay::transport::send_result>)

namespace belay {

// One per non-resolved incident: its escalation ladder and timers (actors/incident.hpp).
using incident_actor = caf::typed_actor<
    // Timer: fire the due step or end the grace period (stale generations are dropped).
    caf::reacts_to<atom::fire, uint64_t>,
    // Acknowledge or resolve, answered once committed.
    caf::replies_to<atom::transition, transition_command>::with<transition_reply>,
    // Acknowledged or resolved in the database without this actor: follow the row.
    caf::reacts_to<atom::settled, incident_record>,
    // A duplicate was absorbed: take the fresh counters.
    caf::reacts_to<atom::duplicate, incident_record>,
    // For the inspector.
    caf::replies_to<atom::view>::with<incident_view>>;

// One per node: holds the node's incidents and supervises their actors
// (actors/registry.hpp).
using registry_actor = caf::typed_actor<
    // What a storage worker committed for the triggers sent to it.
    caf::reacts_to<atom::written, std::vector<storage::upsert_result>>,
    // Acknowledge or resolve by id or dedup key, answered once committed.
    caf::replies_to<atom::transition, transition_command>::with<transition_reply>,
    // Adopt every non-resolved incident this node may hold; answers how many.
    caf::replies_to<atom::adopt>::with<size_t>,
    // (org, incident) was acknowledged or resolved through some node (NOTIFY).
    caf::reacts_to<atom::settled, int64_t, int64_t>,
    // The listener missed notifications: every holder of a settled incident follows.
    caf::reacts_to<atom::catch_up>,
    // Timer: renew this node's lease and take over lapsed ones.
    caf::reacts_to<atom::renew>,
    // Timer: load (org, incident) and hold it again (a respawn that failed).
    caf::reacts_to<atom::load, int64_t, int64_t>,
    // Timer: adopt overdue incidents that no live actor holds (the orphan sweep).
    caf::reacts_to<atom::sweep>,
    // The views of the org's incident actors, from the actors themselves.
    caf::replies_to<atom::views, int64_t>::with<std::vector<incident_view>>,
    // The live actor holding an incident, or none.
    caf::replies_to<atom::holder, int64_t>::with<incident_actor>,
    caf::replies_to<atom::stats>::with<registry_stats>>;

// What the workers of the incident lane need to take triggers from their callers: how
// to stamp them, and whom to tell what each batch wrote.
struct trigger_owner {
  registry_actor registry;
  wall_clock clock;
  std::string node_id;
  double lease_seconds = 30;
};

// The storage operations, one-to-one with storage:: functions (storage/incidents.hpp,
// storage/deliveries.hpp). Operations about one incident carry its shard
// (incident_shard) and run on the worker of that shard; the others on any worker.
using storage_actor = caf::typed_actor<
    // storage::load_incident(org, id)
    caf::replies_to<atom::load, uint64_t, int64_t,
                    int64_t>::with<std::optional<storage::held_incident>>,
    // storage::apply_transition(command, now)
    caf::replies_to<atom::transition, uint64_t, transition_command,
                    micros>::with<transition_reply>,
    // storage::fire_steps, batched with the worker's other steps
    caf::replies_to<atom::fire_step, uint64_t,
                    storage::fire_event>::with<std::optional<incident_record>>,
    // storage::load_people(org, at): whom a step's users and schedules page
    caf::replies_to<atom::people, int64_t, micros>::with<protocol::org_people>,
    // storage::exhaust(expected, now)
    caf::replies_to<atom::exhaust, uint64_t, incident_record,
                    micros>::with<std::optional<incident_record>>,
    // storage::resume_held(event): has the maintenance window holding a ladder ended?
    caf::replies_to<atom::resume, uint64_t,
                    storage::resume_event>::with<std::optional<incident_record>>,
    // storage::adopt_unresolved(page): one page of a node's adoption at start
    caf::replies_to<atom::adopt, storage::adoption_page>::with<storage::adopted>,
    // storage::renew_lease(owner, now)
    caf::replies_to<atom::renew, storage::ownership,
                    micros>::with<storage::lease_renewal>,
    // storage::adopt_orphans(sweep), and stale trigger marks pruned
    caf::replies_to<atom::sweep,
                    storage::orphan_sweep>::with<std::vector<storage::held_incident>>,
    // storage::settled_among(keys)
    caf::replies_to<atom::settled,
                    storage::incident_keys>::with<std::vector<storage::held_incident>>,
    // storage::owned_elsewhere(node, keys)
    caf::replies_to<atom::moved, std::string,
                    storage::incident_keys>::with<std::vector<int64_t>>,
    // storage::claim_due(request)
    caf::replies_to<atom::claim,
                    storage::claim_request>::with<std::vector<storage::claimed_delivery>>,
    // storage::recheck_claims(request)
    caf::replies_to<atom::recheck,
                    storage::recheck_request>::with<std::vector<storage::recheck_result>>,
    // storage::release_claims_of(node, now)
    caf::replies_to<atom::release, std::string, micros>::with<storage::released_claims>,
    // storage::release_expired_claims(now)
    caf::replies_to<atom::lapsed, micros>::with<storage::released_claims>,
    // storage::record_outcomes, batched with the worker's other outcomes
    caf::replies_to<atom::outcome,
                    storage::outcome_event>::with<storage::recorded_outcome>,
    // storage::claim_contacts: a throttling or bundling channel's claim
    caf::replies_to<atom::claim_contacts,
                    storage::contact_request>::with<storage::contact_claim>,
    // storage::recheck_bundle: right before a bundle's send
    caf::replies_to<atom::recheck_bundle,
                    storage::bundle_recheck>::with<storage::checked_bundle>,
    // storage::record_bundle_outcome
    caf::replies_to<atom::bundle_outcome, storage::bundle_outcome>::with<
        std::vector<storage::recorded_outcome>>,
    // storage::replay_dead_letter(org, dead letter, now)
    caf::replies_to<atom::replay, int64_t, int64_t, micros>::with<storage::replay_result>,
    // storage::load_channels()
    caf::replies_to<atom::channels>::with<std::vector<channel_config>>,
    // storage::record_pings(pings): a heartbeat holder's group commit of pings
    caf::replies_to<atom::ping, std::vector<storage::heartbeat_ping>>::with<
        std::vector<std::optional<heartbeat_record>>>,
    // storage::change_heartbeat(change): late, down, a side effect settled
    caf::replies_to<atom::heartbeat,
                    storage::heartbeat_change>::with<storage::heartbeat_changed>,
    // storage::sweep_heartbeats(sweep)
    caf::replies_to<atom::sweep,
                    storage::heartbeat_sweep>::with<storage::heartbeat_holdings>>;

// A storage worker: the operations on its own connection, plus the triggers of its
// shard, which skip the router (actors/storage.hpp).
using storage_worker_actor = storage_actor::extend<
    // The registry and lease the worker stamps triggers with; before any trigger.
    caf::reacts_to<atom::join, trigger_owner>,
    // storage::upsert_triggers, batched; answered after COMMIT, the registry told first.
    caf::replies_to<atom::trigger, trigger_command>::with<trigger_reply>,
    // Write everything queued since the last flush (sent to itself).
    caf::reacts_to<atom::flush>>;

// The storage router: hands operations to its workers and restarts a worker that dies.
using storage_router_actor = storage_actor::extend<
    // Joins every trigger worker, now and after a restart.
    caf::reacts_to<atom::join, trigger_owner>,
    // The workers as they are now (tests of supervision).
    caf::replies_to<atom::children>::with<std::vector<storage_worker_actor>>>;

// Makes the blocking transport call of one page (each channel has its own:
// actors/channel.hpp), unless it is past the time given (on the actor clock, since its
// epoch) when the sender gets to it: then nothing is sent and the answer is empty.
using sender_actor = caf::typed_actor<
    caf::replies_to<atom::send, channel_config, transport::page,
                    caf::timespan>::with<std::optional<transport::send_result>>>;

// One per configured channel: claims, sends, retries, dead letters (actors/channel.hpp).
using channel_actor = caf::typed_actor<
    // Deliveries may be due: claim now.
    caf::reacts_to<atom::nudge>,
    // Timer: a retry is due, or a failed claim is tried again.
    caf::reacts_to<atom::retry>,
    // The channel's configuration as provisioning left it (the dispatcher's poll).
    caf::reacts_to<atom::reload, channel_config>,
    // For the inspector.
    caf::replies_to<atom::view>::with<channel_view>>;

// One per node: spawns and supervises the channel actors (actors/dispatcher.hpp).
using dispatcher_actor = caf::typed_actor<
    // A step or failover created deliveries on (org, channel).
    caf::reacts_to<atom::nudge, int64_t, std::string>,
    // Every channel claims.
    caf::reacts_to<atom::nudge_all>,
    // Timer: reload the channels, return lapsed claims to the pool, poll every channel.
    caf::reacts_to<atom::tick>,
    // (Re)load the channel configuration and spawn what is missing.
    caf::reacts_to<atom::reload>,
    // The views of the org's channel actors.
    caf::replies_to<atom::views, int64_t>::with<std::vector<channel_view>>,
    // A dead letter's recipient gets a fresh delivery (org, dead letter).
    caf::replies_to<atom::replay, int64_t, int64_t>::with<storage::replay_result>,
    // The channel actors as they are now (tests of supervision).
    caf::replies_to<atom::children>::with<std::vector<channel_actor>>>;

// One per node: holds the heartbeat monitors this node owns on one timer set, records
// every ping it is sent in group commits, and opens and resolves their incidents
// (actors/heartbeats.hpp).
using heartbeat_actor = caf::typed_actor<
    // A ping of (org, monitor), answered once committed: ok, or not_found when the
    // monitor is gone.
    caf::replies_to<atom::ping, int64_t, int64_t, ping_kind>::with<reply_code>,
    // Timer: the earliest deadline may have come (stale generations are dropped).
    caf::reacts_to<atom::fire, uint64_t>,
    // Timer: take monitors nobody holds, read changed ones again, drop those gone, and
    // make the side effects still pending.
    caf::reacts_to<atom::sweep>,
    // The org's monitors this node holds, as it holds them (tests, inspection).
    caf::replies_to<atom::views, int64_t>::with<std::vector<heartbeat_record>>>;

} // namespace belay

// Handles travel in replies, and the trigger lane's owner in a join.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::trigger_owner)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::incident_actor)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::storage_worker_actor>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::channel_actor>)
