// Service settings: command-line flags over BELAY_* environment variables over a
// config file over built-in defaults. One table describes every setting, so --help,
// the environment and the file can never disagree.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace belay {

struct settings {
  std::string listen = "127.0.0.1";
  int port = 8080;
  std::string database_url;
  int http_threads = 64;
  int db_connections = 4;
  std::string log_level = "info";
  std::string provision;
  std::string node_id;
  double claim_lease_seconds = 300;
  double lease_seconds = 30;
  double poll_seconds = 5;
  double orphan_sweep_seconds = 5;
  int senders = 8;
  double db_connect_timeout_seconds = 5;
  double db_statement_timeout_seconds = 30;
  int db_keepalive_seconds = 10;
  double db_acquire_timeout_seconds = 5;
  double listener_grace_seconds = 10;
  double http_read_timeout_seconds = 10;
  int api_rate_limit_per_minute = 6000;
  std::string allowed_target_networks; // validated CIDR list (protocol/network.hpp)
  int retention_days = 90;
  std::string public_url;     // empty: http://<listen>:<port> (public_url_of)
  std::string signing_secret; // empty: the one stored in the database
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
