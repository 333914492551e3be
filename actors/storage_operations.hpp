// The storage operations are one table, actors/storage_operations.def: a row each, from
// which the atom (actors/fwd.hpp), the storage actor's typed interface
// (actors/actors.hpp), the worker's handler (actors/storage_worker.cpp) and the router's
// (actors/storage_router.cpp) are made. Adding an operation is one row and its
// storage:: function. A row reads
//
//   BELAY_STORAGE_OPERATION(atom, "text", lane, function, reply(arguments))
//
//   atom             atom::<atom>, named after the function; "text" is the atom's text
//                    (CAF 0.17: at most ten characters, and no other atom's)
//   lane             which worker runs it, and how (below)
//   function         what it runs on the worker's connection, with the arguments (less
//                    the shard), inside the worker's next transaction
//   reply(arguments) the message as CAF sees it: its arguments and the reply
//
// The table is included where each of those is made, with BELAY_STORAGE_OPERATION
// defined for the purpose; types it names need only be declared (actors/fwd.hpp, with
// CAF_ALLOW_UNSAFE_MESSAGE_TYPE for a type new to messages). The storage actors see
// them whole through actors/storage_functions.hpp, which lists the storage headers.
#pragma once

#include <caf/replies_to.hpp>
#include <cstdint>
#include <type_traits>

namespace belay::lane {

// About one incident: the worker of the incident lane whose shard is the first
// argument (incident_shard in actors/trigger_lane.hpp), the worker its triggers and
// steps go to, so that batches on different workers do not wait on each other's row
// locks.
struct incident {};

// As `incident`, and written with the other steps queued on that worker by one call of
// the function, which takes them all (a statement has a fixed cost however few rows it
// writes).
struct steps {};

// Anything else: any worker of the other lane, in turn.
struct other {};

// Delivery outcomes: the one worker of the other lane that takes the org's outcomes,
// written with the others queued there by one call of the function. An org's outcomes
// batch together, as many to a statement as arrive while its last one runs.
struct outcomes {};

// A re-check right before a send: any worker of the other lane, in turn, but the one
// taking the org's outcomes, and queued there as `other` is. The send it gates waits for
// its answer, and behind an outcome batch it waited for that batch's commit too: routed
// around it, the drain went 1.20x faster (bench/JOURNAL.md, 6 December (later)).
struct rechecks : other {};

} // namespace belay::lane

namespace belay {

template <class Lane>
inline constexpr bool sharded =
    std::is_same_v<Lane, lane::incident> || std::is_same_v<Lane, lane::steps>;

template <class... Args> struct starts_with_shard : std::false_type {};
template <class... Rest> struct starts_with_shard<uint64_t, Rest...> : std::true_type {};

// The storage actor's handler of one row.
template <class Lane, class Atom, class Signature> struct storage_operation_of;

template <class Lane, class Atom, class Reply, class... Args>
struct storage_operation_of<Lane, Atom, Reply(Args...)> {
  static_assert(!sharded<Lane> || starts_with_shard<Args...>::value,
                "an operation about one incident takes its shard first");
  using type = typename caf::replies_to<Atom, Args...>::template with<Reply>;
};

template <class Lane, class Atom, class Signature>
using storage_operation = typename storage_operation_of<Lane, Atom, Signature>::type;

} // namespace belay
