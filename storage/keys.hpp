// Lookups of API keys and integration keys by their SHA-256 hash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace belay::storage {

class connection;

struct integration_row {
  int64_t org_id = 0;
  std::string name;
  std::string type; // events | alertmanager
  std::string policy;
  bool shadow = false;
  std::string key_hash;
  int rate_limit_per_minute = 600;
  std::string heartbeat;    // alertmanager: the heartbeat its Watchdog alert pings
  int64_t heartbeat_id = 0; // that heartbeat's id; 0: none
  // The fields its alerts are grouped by (docs/guarantees.md#alerts-and-grouping); empty:
  // it does not group.
  std::vector<std::string> group_by{};
};

struct api_key_row {
  int64_t org_id = 0;
  std::string key_hash;
  std::string name; // "" for a plain-string key
  std::string scope = "admin";
};
std::optional<api_key_row> find_api_key(connection& c, const std::string& key_hash);
std::optional<integration_row> find_integration(connection& c,
                                                const std::string& key_hash);

// Every stored hash of one kind of key: what settles an unknown key without a read per
// key (http/keys.hpp).
enum class key_table { api_key, integration, heartbeat, personal_token };
std::vector<std::string> key_hashes(connection& c, key_table table);

} // namespace belay::storage
