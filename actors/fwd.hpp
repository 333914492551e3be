// Atoms and message types shared by belay's actors, in one CAF type-ID block.
#pragma once

#include "protocol/model.hpp"
#include "protocol/views.hpp"

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/fwd.hpp>
#include <caf/type_id.hpp>
#include <functional>
#include <string>
#include <vector>

namespace belay::storage {
class connection;
}

namespace belay {

// What ingest hands the registry: one event from any of the three wire formats.
struct trigger_command {
  int64_t org_id = 0;
  std::string dedup_key;
  std::string title;
  std::string severity = "critical";
  std::string policy;
  std::string details_json = "{}";
  std::string payload_json = "{}"; // kept as evidence on the incident
  bool shadow = false;
  std::string source =
      "native"; // wire format, for metrics: native | events | alertmanager
};

enum class reply_code { ok, unchanged, not_found, conflict, unknown_policy };

struct trigger_reply {
  reply_code code = reply_code::ok;
  bool created = false;
  incident_record incident;
};

enum class transition { ack, resolve };

struct transition_command {
  int64_t org_id = 0;
  int64_t incident_id = 0; // 0: find by dedup_key
  std::string dedup_key;
  transition kind = transition::ack;
  std::string by;
  std::string source = "native"; // wire format, for metrics
};

struct transition_reply {
  reply_code code = reply_code::ok;
  incident_record incident;
};

// A unit of blocking database work, run by a storage worker on its own connection.
using db_job = std::function<caf::message(storage::connection&)>;

} // namespace belay

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::trigger_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::trigger_reply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::transition_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::transition_reply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::db_job)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::incident_record)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::incident_view)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::incident_view>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::registry_stats)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::channel_view)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<belay::channel_view>)

CAF_BEGIN_TYPE_ID_BLOCK(belay, caf::first_custom_type_id)
CAF_ADD_ATOM(belay, belay::atom, run, "run")
CAF_ADD_ATOM(belay, belay::atom, trigger, "trigger")
CAF_ADD_ATOM(belay, belay::atom, transit, "transit")
CAF_ADD_ATOM(belay, belay::atom, fire, "fire")
CAF_ADD_ATOM(belay, belay::atom, adopt, "adopt")
CAF_ADD_ATOM(belay, belay::atom, renew, "renew")
CAF_ADD_ATOM(belay, belay::atom, get, "get")
CAF_ADD_ATOM(belay, belay::atom, inspect, "inspect")
CAF_ADD_ATOM(belay, belay::atom, nudge, "nudge")
CAF_ADD_ATOM(belay, belay::atom, poll, "poll")
CAF_ADD_ATOM(belay, belay::atom, outcome, "outcome")
CAF_ADD_ATOM(belay, belay::atom, views, "views")
CAF_ADD_ATOM(belay, belay::atom, replay, "replay")
CAF_ADD_ATOM(belay, belay::atom, flush, "flush")
CAF_ADD_ATOM(belay, belay::atom, join, "join")
CAF_END_TYPE_ID_BLOCK(belay)
