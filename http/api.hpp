// The HTTP layer: cpp-httplib threads; each handler parses with protocol/, asks an
// actor (or reads storage) and renders with protocol/.
//
// HTTP and storage (docs/architecture.md, the rule for HTTP → storage calls): reads go
// straight to storage through the pool (`db`); a write goes through the actor that owns
// the state it changes, except the rows no actor holds in memory that the rule lists.
#pragma once

#include "actors/actors.hpp"
#include "actors/transport/transport.hpp"
#include "actors/trigger_lane.hpp"
#include "http/callers.hpp"
#include "protocol/views.hpp"

#include <atomic>
#include <chrono>
#include <functional>

namespace caf {
class actor_system;
}

namespace belay {

namespace storage {
class pool;
}
class key_store;
class connection_guard;
class routes;

struct api {
  caf::actor_system& sys;
  registry_actor registry;
  trigger_lane triggers;
  dispatcher_actor dispatcher;
  storage::pool& db;
  key_store& keys;
  node_info node; // id, version, started_at
  size_t storage_workers = 0;
  wall_clock clock{}; // the node's: `now` for requests that ask about a time
  transport::answer_links answers{}; // checks answer tokens (docs/http.md#answering)
  std::atomic<bool> stopping{false}; // long-lived streams end when set
  std::chrono::milliseconds actor_timeout{10'000};
  // For /readyz: the storage router, and whether the NOTIFY listener is listening
  // (unset: nothing to ask).
  storage_router_actor storage{};
  std::function<bool()> listening{};
  connection_guard* connections = nullptr; // the server's, once it exists
  size_t max_streams = 16; // console live streams at once (each holds an HTTP thread)
  heartbeat_actor heartbeats{}; // pings go to it (docs/guarantees.md#heartbeats)
  std::string metrics_token{};  // empty: /metrics never shows per-org series
  caller_pool callers{};        // for ask(); declared after sys, so destroyed before it
};

void add_health_routes(routes& http, api& a);
void add_incident_routes(routes& http, api& a);
void add_incident_action_routes(routes& http, api& a);
void add_ingest_routes(routes& http, api& a);
void add_dead_letter_routes(routes& http, api& a);
void add_inspector_routes(routes& http, api& a);
void add_metrics_routes(routes& http, api& a);
void add_schedule_routes(routes& http, api& a);
void add_answer_routes(routes& http, api& a);
void add_heartbeat_routes(routes& http, api& a);
void add_maintenance_routes(routes& http, api& a);
void add_change_routes(routes& http, api& a);
void add_config_routes(routes& http, api& a);
void add_sign_in_routes(routes& http, api& a);
void add_audit_routes(routes& http, api& a);
void add_openapi_routes(routes& http);

// 512 KiB: larger bodies are refused with 413 before any handler runs.
inline constexpr size_t max_body_bytes = 512 * 1024;

} // namespace belay
