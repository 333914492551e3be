// The contract between belay's actors: every actor's typed interface, one comment line
// per handler. The compiler checks each send and each handler against these lists. The
// atoms and the types messages carry are declared in actors/fwd.hpp; a file that sends
// a message includes this and the headers of the types it touches, nothing more.
//
// Supervision: the registry restarts incident actors from their rows, the dispatcher
// restarts channel actors from their configuration, and the storage router restarts
// its workers; each monitors what it spawned. The watchdog stops the node when one of
// them dies.
#pragma once

#include "actors/fwd.hpp"
#include "actors/storage_operations.hpp"

#include <caf/timespan.hpp>
#include <caf/typed_actor.hpp>

namespace belay {

// One per non-resolved incident: its escalation ladder and timers (actors/incident.hpp).
using incident_actor = caf::typed_actor<
    // Timer: fire the due step or end the grace period (stale generations are dropped).
    caf::reacts_to<atom::fire_tick, uint64_t>,
    // Acknowledge or resolve, answered once committed.
    caf::replies_to<atom::transition, transition_command>::with<transition_reply>,
    // A note, escalate, snooze, reassign or priority, answered once committed.
    caf::replies_to<atom::act, incident_action>::with<storage::action_reply>,
    // Acknowledged, resolved or reopened in the database without this actor: follow
    // the row.
    caf::reacts_to<atom::follow, incident_record>,
    // Changed in the database through another node: follow the row and its ladder.
    caf::reacts_to<atom::follow, storage::held_incident>,
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
    // A note, escalate, snooze, reassign or priority, answered once committed.
    caf::replies_to<atom::act, incident_action>::with<storage::action_reply>,
    // Adopt every non-resolved incident this node may hold; answers how many.
    caf::replies_to<atom::adopt>::with<size_t>,
    // (org, incident) was acknowledged, resolved or worked on through some node (NOTIFY).
    caf::reacts_to<atom::settled, int64_t, int64_t>,
    // The listener missed notifications: every holder follows its row as it stands.
    caf::reacts_to<atom::catch_up>,
    // Timer: renew this node's lease and take over lapsed ones.
    caf::reacts_to<atom::renew_tick>,
    // Timer: load (org, incident) and hold it again (a respawn that failed).
    caf::reacts_to<atom::respawn, int64_t, int64_t>,
    // Timer: adopt overdue incidents that no live actor holds (the orphan sweep).
    caf::reacts_to<atom::sweep_tick>,
    // The views of the org's incident actors, from the actors themselves.
    caf::replies_to<atom::views, int64_t>::with<std::vector<incident_view>>,
    // The live actor holding an incident, or none.
    caf::replies_to<atom::holder, int64_t>::with<incident_actor>,
    caf::replies_to<atom::stats>::with<registry_stats>>;

// The storage operations, one row each in actors/storage_operations.def: a row names the
// storage:: function an operation runs and the lane it runs on, and makes its handler
// here, in the router and in the workers.
using storage_actor = caf::typed_actor<
#define BELAY_STORAGE_OPERATION(atom_name, text, lane_name, function, signature)         \
  storage_operation<lane::lane_name, atom::atom_name, signature>,
#include "actors/storage_operations.def"
#undef BELAY_STORAGE_OPERATION
    // The registry and lease the trigger lane stamps triggers with (trigger_owner): a
    // worker of the lane takes it before any trigger, the router keeps it for the
    // workers it starts later.
    caf::reacts_to<atom::join_lane, trigger_owner>>;

// A storage worker: the operations on its own connection, plus the triggers of its
// shard, which skip the router (actors/storage_worker.hpp).
using storage_worker_actor = storage_actor::extend<
    // storage::upsert_triggers, batched; answered after COMMIT, the registry told first.
    caf::replies_to<atom::trigger, trigger_command>::with<trigger_reply>,
    // Write everything queued since the last commit (sent to itself).
    caf::reacts_to<atom::commit>>;

// The storage router: hands operations to its workers and restarts a worker that dies
// (actors/storage_router.hpp).
using storage_router_actor = storage_actor::extend<
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
    caf::reacts_to<atom::retry_tick>,
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
    caf::reacts_to<atom::poll_tick>,
    // (Re)load the channel configuration and spawn what is missing.
    caf::reacts_to<atom::reload>,
    // The views of the org's channel actors.
    caf::replies_to<atom::views, int64_t>::with<std::vector<channel_view>>,
    // A dead letter's recipient gets a fresh delivery (org, dead letter).
    caf::replies_to<atom::replay, int64_t, int64_t,
                    attribution>::with<storage::replay_result>,
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
    caf::reacts_to<atom::fire_tick, uint64_t>,
    // Timer: take monitors nobody holds, read changed ones again, drop those gone, and
    // make the side effects still pending.
    caf::reacts_to<atom::sweep_tick>,
    // The org's monitors this node holds, as it holds them (tests, inspection).
    caf::replies_to<atom::views, int64_t>::with<std::vector<heartbeat_record>>>;

// One per node: stops the node when one of its top-level actors dies, which nothing
// above them could restart with their state (actors/watchdog.hpp).
using watchdog_actor = caf::typed_actor<
    // Watch this actor (the node keeps it alive), named so in the log.
    caf::reacts_to<atom::watch, std::string, caf::actor_addr>>;

} // namespace belay

// Handles travel in replies.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::incident_actor)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::storage_worker_actor>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::channel_actor>)
