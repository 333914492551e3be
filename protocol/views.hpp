// What the actors report about themselves for the inspector: plain data, rendered by
// protocol/inspector_json.hpp and gathered by asking the actors (not the database).
#pragma once

#include "protocol/model.hpp"

#include <string>
#include <vector>

namespace belay {

struct incident_view {
  incident_record incident;
  std::string actor_id;
  micros up_since = 0;
  size_t mailbox = 0;
  // The schedules that had nobody on call when the last step fired
  // (docs/guarantees.md#on-call).
  std::vector<std::string> no_one_on_call = {};
};

struct registry_stats {
  size_t held = 0;
  uint64_t created = 0;
  uint64_t deduplicated = 0;
  uint64_t respawned = 0;
  uint64_t adopted = 0; // by the orphan sweep
};

struct scheduled_retry {
  int64_t delivery_id = 0;
  int64_t incident_id = 0;
  std::string target;
  int attempt = 0; // the attempt that will be made
  micros due_at = 0;
};

struct channel_view {
  channel_config config; // secrets included: renderers show name and type only
  size_t queued = 0;     // claimed, waiting for a sender
  size_t in_flight = 0;  // being sent, or its outcome being recorded
  uint64_t sent = 0;
  uint64_t failed = 0; // failed attempts that were retried (or cancelled by an ack)
  uint64_t dead = 0;
  uint64_t ambiguous = 0;
  std::vector<scheduled_retry> retries;
};

// A contact whose pages wait for its throttle to open (docs/guarantees.md#storms).
struct throttled_contact {
  std::string channel;
  std::string target;
  int64_t waiting = 0; // pages (and status updates) held
  micros opens_at = 0; // when the first of them may go
};

struct node_info {
  std::string id;
  std::string version;
  micros started_at = 0;
  micros now = 0;
};

struct storage_info {
  size_t workers = 0;
  size_t pool_size = 0;
  size_t pool_busy = 0;
};

struct inspector_snapshot {
  node_info node;
  registry_stats registry;
  std::vector<incident_view> incidents;
  std::vector<channel_view> channels;
  std::vector<dead_letter_record> dead_letters;
  storage_info storage;
  // Read from storage like the dead letters: throttles are the org's, not the node's.
  std::vector<throttled_contact> throttled;
};

} // namespace belay
