// What a message names, without what it holds: every atom (one per meaning, grouped by
// purpose) and declarations of the types messages carry. actors/actors.hpp builds the
// typed handles on these; a file that sends or handles a message includes the headers
// of the types it touches itself.
//
// Message types are registered with CAF_ALLOW_UNSAFE_MESSAGE_TYPE rather than
// CAF_ADD_TYPE_ID: in CAF 0.17, add_message_types() wants every type in the block to be
// serializable (an inspect() overload each), and belay's messages never leave the
// process. Neither needs a complete type.
//
// CAF 0.17 atoms: the text is at most ten characters. A storage operation's atom is
// named after the storage:: function it runs; what an actor sends itself to be done
// later has an atom of its own (fire_tick, never fire_steps).
#pragma once

// Defined, not declared: a handle whose messages carry std::optional<T> needs T complete
// wherever argument-dependent lookup meets the handle (a request to it, a std::vector
// of handles), since the lookup instantiates std::optional<T>. These are the records
// that travel in a std::optional; each header holds little else.
#include "protocol/heartbeat.hpp"
#include "protocol/model.hpp"
#include "storage/held_incident.hpp"

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/fwd.hpp>
#include <caf/type_id.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace belay {

// protocol/commands.hpp, views.hpp, paging.hpp
struct trigger_command;
struct trigger_reply;
struct transition_command;
struct attribution;
struct transition_reply;
struct incident_action;
enum class reply_code;
struct incident_view;
struct channel_view;
struct registry_stats;
namespace protocol {
struct org_people;
}

// storage/incidents.hpp, maintenance.hpp, deliveries.hpp, heartbeats.hpp
namespace storage {
class connection;
struct upsert_result;
struct ownership;
struct fire_event;
struct resume_event;
struct adoption_page;
struct adopted;
struct lease_renewal;
struct orphan_sweep;
struct action_reply;
using incident_keys = std::vector<std::pair<int64_t, int64_t>>;
struct claim_request;
struct claimed_delivery;
struct recheck_request;
struct recheck_result;
struct outcome_event;
struct recorded_outcome;
struct contact_request;
struct contact_claim;
struct bundle_recheck;
struct checked_bundle;
struct bundle_outcome;
using released_claims = std::vector<std::pair<int64_t, std::string>>;
struct replay_result;
struct heartbeat_ping;
struct heartbeat_change;
struct heartbeat_changed;
struct heartbeat_sweep;
struct heartbeat_holdings;
} // namespace storage

// protocol/page.hpp; actors/transport/transport.hpp names them as the transports' own
namespace protocol {
struct page;
struct answer_links;
} // namespace protocol
namespace transport {
using page = protocol::page;
using answer_links = protocol::answer_links;
struct send_result;
} // namespace transport

// actors/
struct wall_clock;    // clock.hpp
struct deps;          // deps.hpp
struct trigger_owner; // trigger_lane.hpp
class trigger_lane;   // trigger_lane.hpp

} // namespace belay

CAF_BEGIN_TYPE_ID_BLOCK(belay, caf::first_custom_type_id)

// Triggers: written by the storage worker of their shard, which tells the registry.
CAF_ADD_ATOM(belay, belay::atom, trigger, "trigger")
CAF_ADD_ATOM(belay, belay::atom, written, "written")
CAF_ADD_ATOM(belay, belay::atom, duplicate, "duplicate")
CAF_ADD_ATOM(belay, belay::atom, join_lane, "join_lane")

// Acknowledge and resolve.
CAF_ADD_ATOM(belay, belay::atom, transition, "transition")
CAF_ADD_ATOM(belay, belay::atom, settled, "settled")
CAF_ADD_ATOM(belay, belay::atom, catch_up, "catch_up")
CAF_ADD_ATOM(belay, belay::atom, follow, "follow")

// Working an incident: a note, escalate, snooze, reassign, priority.
CAF_ADD_ATOM(belay, belay::atom, act, "act")

// Adoption at start.
CAF_ADD_ATOM(belay, belay::atom, adopt, "adopt")

// Delivery.
CAF_ADD_ATOM(belay, belay::atom, nudge, "nudge")
CAF_ADD_ATOM(belay, belay::atom, nudge_all, "nudge_all")
CAF_ADD_ATOM(belay, belay::atom, reload, "reload")
CAF_ADD_ATOM(belay, belay::atom, replay, "replay")
CAF_ADD_ATOM(belay, belay::atom, send, "send")

// Heartbeat monitors: a ping of one.
CAF_ADD_ATOM(belay, belay::atom, ping, "ping")

// Timers: what an actor sends itself, to be done later.
CAF_ADD_ATOM(belay, belay::atom, fire_tick, "fire_tick")
CAF_ADD_ATOM(belay, belay::atom, renew_tick, "renew_tick")
CAF_ADD_ATOM(belay, belay::atom, sweep_tick, "sweep_tick")
CAF_ADD_ATOM(belay, belay::atom, poll_tick, "poll_tick")
CAF_ADD_ATOM(belay, belay::atom, retry_tick, "retry_tick")
CAF_ADD_ATOM(belay, belay::atom, respawn, "respawn")

// Group commit inside a storage worker.
CAF_ADD_ATOM(belay, belay::atom, commit, "commit")

// Inspection and supervision.
CAF_ADD_ATOM(belay, belay::atom, view, "view")
CAF_ADD_ATOM(belay, belay::atom, views, "views")
CAF_ADD_ATOM(belay, belay::atom, stats, "stats")
CAF_ADD_ATOM(belay, belay::atom, holder, "holder")
CAF_ADD_ATOM(belay, belay::atom, children, "children")
CAF_ADD_ATOM(belay, belay::atom, watch, "watch")

// Storage operations, one per row of actors/storage_operations.def.
#define BELAY_STORAGE_OPERATION(name, text, lane, function, signature)                   \
  CAF_ADD_ATOM(belay, belay::atom, name, text)
#include "actors/storage_operations.def"
#undef BELAY_STORAGE_OPERATION

CAF_END_TYPE_ID_BLOCK(belay)

// Commands and replies (protocol/commands.hpp).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::trigger_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::trigger_reply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::transition_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::transition_reply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::incident_action)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::action_reply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::storage::held_incident)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::attribution)

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

// The trigger lane's owner travels in a join_lane.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::trigger_owner)
