// Every SQL statement about heartbeat monitors (docs/guarantees.md#heartbeats). The row
// is the monitor's whole state; every change is one statement, and those the state
// machine makes are compare-and-sets on the row's version, so a ping through another
// node, a restart or a takeover in between is seen instead of overwritten.
#pragma once

#include "protocol/heartbeat.hpp"
#include "storage/incidents.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace belay::storage {

class connection;

struct heartbeat_ping {
  int64_t org_id = 0;
  int64_t id = 0;
  ping_kind kind = ping_kind::success;
  micros at = 0;
};

// Records the pings, in order, with one statement per round: the pings of one monitor
// and kind in a row become one (the latest), and a monitor whose pings change kind
// takes one more round per change. Returns, for each ping, its monitor's row after it,
// or nullopt when the monitor is gone (provisioning removed it). Runs in the caller's
// transaction, if any, else in its own when it takes more than one round.
std::vector<std::optional<heartbeat_record>>
record_pings(connection& c, const std::vector<heartbeat_ping>& pings);

// The changes the state machine makes.
enum class heartbeat_step {
  late,   // silence made it late: new or up, at this version, late_at passed
  down,   // silence made it down: not down, at this version, down_at passed; pending
          // becomes missed
  settle, // the pending side effect `pending` was made: pending cleared if still it
  read,   // nothing: the row as it stands
};

struct heartbeat_change {
  int64_t org_id = 0;
  int64_t id = 0;
  heartbeat_step step = heartbeat_step::read;
  int64_t version = 0; // late, down: the version the decision was made on
  std::string owner;   // late, down: only the monitor's holder makes them
  std::string pending; // settle
  micros at = 0;       // late, down: now
};

struct heartbeat_changed {
  bool applied = false;
  std::optional<heartbeat_record> row; // as it stands now; nullopt: gone
};

heartbeat_changed change_heartbeat(connection& c, const heartbeat_change& change);

// One pass of a node's heartbeat holder: takes the monitors nobody holds (new ones,
// and those of nodes whose leases lapsed, as incidents are taken), then answers those
// of `owner` that it does not know at the version it knows, or that have a side effect
// pending, and the known ones it no longer holds.
struct heartbeat_sweep {
  ownership owner;
  micros now = 0;
  std::vector<int64_t> known_ids;
  std::vector<int64_t> known_versions;
};

struct heartbeat_holdings {
  std::vector<heartbeat_record> held; // new to the holder, changed, or pending
  std::vector<int64_t> gone;          // known ids removed or held by another node
};

heartbeat_holdings sweep_heartbeats(connection& c, const heartbeat_sweep& sweep);

// The org's monitors by name (GET /api/v1/heartbeats).
std::vector<heartbeat_record> list_heartbeats(connection& c, int64_t org_id);

// A ping key's monitor, by the key's SHA-256 hash.
struct heartbeat_key {
  int64_t org_id = 0;
  int64_t id = 0;
  std::string key_hash;
};
std::optional<heartbeat_key> find_heartbeat(connection& c, const std::string& key_hash);

} // namespace belay::storage
