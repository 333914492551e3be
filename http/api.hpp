// The HTTP layer: cpp-httplib threads; each handler parses with protocol/, asks an
// actor (or reads storage) and renders with protocol/.
#pragma once

#include <caf/actor.hpp>

#include <chrono>

namespace caf {
class actor_system;
}
namespace httplib {
class Server;
}

namespace belay {

namespace storage {
class pool;
}
class key_store;

struct api {
  caf::actor_system& sys;
  caf::actor registry;
  storage::pool& db;
  key_store& keys;
  std::chrono::milliseconds actor_timeout{10'000};
};

void add_health_routes(httplib::Server& http, api& a);
void add_incident_routes(httplib::Server& http, api& a);
void add_ingest_routes(httplib::Server& http, api& a);

// 512 KiB: larger bodies are refused with 413 before any handler runs.
inline constexpr size_t max_body_bytes = 512 * 1024;

} // namespace belay
