// Service settings: command-line flags over BELAY_* environment variables over a
// config file over built-in defaults. One table describes every setting, so --help,
// the environment and the file can never disagree. A default is the one of the options
// the setting becomes (the node's, the HTTP server's, the database connections', the
// key store's), so it is written once.
#pragma once

#include "actors/node.hpp"
#include "http/keys.hpp"
#include "http/server.hpp"
#include "storage/db.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace belay {

struct settings {
  std::string listen = "127.0.0.1";
  int port = 8080;
  std::string database_url;
  int http_threads = server_options{}.threads;
  int db_connections = static_cast<int>(node_options{}.storage_workers);
  std::string log_level = "info";
  std::string provision;
  std::string node_id;
  double claim_lease_seconds = node_options{}.claim_lease_seconds;
  double lease_seconds = node_options{}.lease_seconds;
  double poll_seconds = node_options{}.poll_seconds;
  double orphan_sweep_seconds = node_options{}.orphan_sweep_seconds;
  int senders = static_cast<int>(node_options{}.senders);
  double db_connect_timeout_seconds =
      storage::connection_limits{}.connect_timeout_seconds;
  double db_statement_timeout_seconds =
      storage::connection_limits{}.statement_timeout_seconds;
  int db_keepalive_seconds = storage::connection_limits{}.keepalive_idle_seconds;
  double db_acquire_timeout_seconds =
      std::chrono::duration<double>{storage::pool::default_acquire_timeout}.count();
  double listener_grace_seconds = node_options{}.listener_grace_seconds;
  double http_read_timeout_seconds = server_options{}.read_timeout_seconds;
  int api_rate_limit_per_minute =
      static_cast<int>(key_store_options{}.api_rate_per_minute);
  std::string allowed_target_networks; // validated CIDR list (protocol/network.hpp)
  int retention_days = static_cast<int>(node_options{}.retention_days);
  int audit_retention_days = static_cast<int>(node_options{}.audit_retention_days);
  double session_hours =
      static_cast<double>(key_store_options{}.session_idle) / 3'600'000'000.0;
  std::string public_url;     // empty: http://<listen>:<port> (public_url_of)
  std::string signing_secret; // empty: the one stored in the database

  // The attack surface (docs/operations.md#metrics, docs/guarantees.md#rate-limits).
  std::string metrics_token; // empty: /metrics shows no per-org series
  int token_rate_limit_per_minute =
      static_cast<int>(route_limit_options{}.per_token_per_minute);
  int address_rate_limit_per_minute =
      static_cast<int>(route_limit_options{}.per_address_per_minute);

  // Secrets at rest (docs/operations.md#data-encryption-key).
  std::string data_encryption_key_file;     // empty: secrets stay in clear
  std::string data_encryption_key_old_file; // read-only, until `belay rekey`
  std::string config_file;
};

// The base of every link in a page: --public-url, else http://<listen>:<port>.
std::string public_url_of(const settings& s);

struct setting_info {
  std::string flag;     // "port" for --port
  std::string env;      // BELAY_PORT
  std::string fallback; // default shown in --help
  std::string help;
  bool secret = false; // never echoed
};

const std::vector<setting_info>& setting_table();

// Builds settings from argv (after the subcommand), the environment and the config
// file. Throws std::invalid_argument naming the offending flag, variable or line.
settings load_settings(const std::vector<std::string>& args);

std::string settings_help();

// Settings as "name=value" for the start-up log line, with secrets redacted.
std::string describe(const settings& s);

} // namespace belay
