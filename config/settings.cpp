#include "config/settings.hpp"

#include "protocol/network.hpp"
#include "storage/db.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace belay {

namespace {

// A default as --help shows it: 30, 0.5.
template <class T> std::string text(T value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

} // namespace

const std::vector<setting_info>& setting_table() {
  static const settings d; // the defaults
  static const std::vector<setting_info> table = {
      {"config", "BELAY_CONFIG", "",
       "config file of name = value lines (see config/belay.conf)"},
      {"listen", "BELAY_LISTEN", d.listen, "address the HTTP server binds"},
      {"port", "BELAY_PORT", text(d.port), "HTTP port"},
      {"database-url", "DATABASE_URL", "", "PostgreSQL connection string (required)",
       true},
      {"http-threads", "BELAY_HTTP_THREADS", text(d.http_threads),
       "HTTP worker threads, one per open client connection; the requests they hold "
       "at once are what one commit can share"},
      {"db-connections", "BELAY_DB_CONNECTIONS", text(d.db_connections),
       "database connections of the storage workers: half for incidents, half for "
       "deliveries"},
      {"log-level", "BELAY_LOG_LEVEL", d.log_level, "trace, debug, info, warn or error"},
      {"provision", "BELAY_PROVISION", "",
       "provisioning JSON applied at start (orgs, keys, channels)"},
      {"node-id", "BELAY_NODE_ID", "<hostname>",
       "name this node uses for leases and claims; stable across restarts so a restarted "
       "node re-adopts its incidents at once (give each process on one host its own)"},
      {"claim-lease-seconds", "BELAY_CLAIM_LEASE_SECONDS", text(d.claim_lease_seconds),
       "how long a claimed delivery stays claimed before another worker may retry it"},
      {"lease-seconds", "BELAY_LEASE_SECONDS", text(d.lease_seconds),
       "this node's lease on its incidents, renewed every third of it; once it lapses, "
       "another node takes them over"},
      {"poll-seconds", "BELAY_POLL_SECONDS", text(d.poll_seconds),
       "how often lapsed delivery claims are released and every channel polled"},
      {"orphan-sweep-seconds", "BELAY_ORPHAN_SWEEP_SECONDS", text(d.orphan_sweep_seconds),
       "how often this node adopts non-resolved incidents whose step is overdue and "
       "that no live actor holds (at most 200 a pass)"},
      {"senders", "BELAY_SENDERS", text(d.senders),
       "threads of each channel making its blocking delivery calls: a hung endpoint "
       "holds its own channel's, never another's"},
      {"db-connect-timeout-seconds", "BELAY_DB_CONNECT_TIMEOUT_SECONDS",
       text(d.db_connect_timeout_seconds),
       "how long opening a database connection may take"},
      {"db-statement-timeout-seconds", "BELAY_DB_STATEMENT_TIMEOUT_SECONDS",
       text(d.db_statement_timeout_seconds),
       "the server cancels a statement running longer; with no reply 5 s after that, "
       "belay closes the connection and settles what it sent by reading back"},
      {"db-keepalive-seconds", "BELAY_DB_KEEPALIVE_SECONDS", text(d.db_keepalive_seconds),
       "TCP keepalive idle time toward PostgreSQL (probes every 5 s, 3 of them): a "
       "vanished server is noticed within this + 15 s"},
      {"db-acquire-timeout-seconds", "BELAY_DB_ACQUIRE_TIMEOUT_SECONDS",
       text(d.db_acquire_timeout_seconds),
       "how long a request waits for a free pooled connection before it gets a 503"},
      {"listener-grace-seconds", "BELAY_LISTENER_GRACE_SECONDS",
       text(d.listener_grace_seconds),
       "the NOTIFY listener probes its connection every 5 s; no answer within this "
       "long counts as lost: it reconnects and catches up"},
      {"http-read-timeout-seconds", "BELAY_HTTP_READ_TIMEOUT_SECONDS",
       text(d.http_read_timeout_seconds),
       "a client sends a request's headers within this (from its connection or its "
       "previous answer), and a request is answered within three times this (live "
       "streams excepted); slower connections are closed"},
      {"api-rate-limit-per-minute", "BELAY_API_RATE_LIMIT_PER_MINUTE",
       text(d.api_rate_limit_per_minute),
       "requests a minute per API key, on each node (a token bucket; over it 429 with "
       "Retry-After)"},
      {"allowed-target-networks", "BELAY_ALLOWED_TARGET_NETWORKS", "",
       "comma-separated CIDR list (IPv4, IPv6) of non-public networks that webhook, "
       "Slack, Twilio and SMTP targets may be in; loopback, private, link-local and "
       "metadata addresses are refused otherwise"},
      {"retention-days", "BELAY_RETENTION_DAYS", text(d.retention_days),
       "resolved incidents older than this are deleted, with their timelines, "
       "deliveries and dead letters"},
      {"audit-retention-days", "BELAY_AUDIT_RETENTION_DAYS", text(d.audit_retention_days),
       "audit log rows older than this are deleted (docs/security.md#audit-log); "
       "`belay audit verify` checks the chain from the oldest kept"},
      {"session-hours", "BELAY_SESSION_HOURS", text(d.session_hours),
       "a signed-in session ends this long after its last use (and 7 days after it "
       "began, whatever its use)"},
      {"public-url", "BELAY_PUBLIC_URL", "http://<listen>:<port>",
       "the base of the answer links in every page (/a/<token>) and of the URLs Twilio "
       "signs for SMS and voice replies"},
      {"signing-secret", "BELAY_SIGNING_SECRET", "",
       "signs the answer tokens in pages; default: the secret generated at the first "
       "migration and stored in the database, shared by every node",
       true},

      {"metrics-token", "BELAY_METRICS_TOKEN", "",
       "a scrape of /metrics presenting it as 'Authorization: Bearer <token>' sees "
       "per-org series (channel names); without it /metrics names no org, channel "
       "or user",
       true},
      {"token-rate-limit-per-minute", "BELAY_TOKEN_RATE_LIMIT_PER_MINUTE",
       text(d.token_rate_limit_per_minute),
       "requests a minute per heartbeat ping key (/hb) and per answer link (/a, Twilio "
       "voice ?t=), on each node (a token bucket; over it 429 with Retry-After)"},
      {"address-rate-limit-per-minute", "BELAY_ADDRESS_RATE_LIMIT_PER_MINUTE",
       text(d.address_rate_limit_per_minute),
       "requests a minute per source address to /hb, /a and the Twilio and Slack "
       "routes together, on each node (behind a proxy, every client is its address: "
       "raise it)"},
      {"data-encryption-key-file", "BELAY_DATA_ENCRYPTION_KEY_FILE", "",
       "a file holding the data encryption key (32 bytes as 64 hex digits or base64): "
       "channel credentials and the answer-link secret are stored encrypted under it; "
       "required once a channel has a URL or secret"},
      {"data-encryption-key-old-file", "BELAY_DATA_ENCRYPTION_KEY_OLD_FILE", "",
       "the previous key's file, during a rotation: values it sealed stay readable "
       "until `belay rekey` has rewritten them under the current key"},
  };
  return table;
}

namespace {

int to_int(const std::string& name, const std::string& v, int min) {
  try {
    size_t used = 0;
    int n = std::stoi(v, &used);
    if (used == v.size() && n >= min)
      return n;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(name + ": expected an integer >= " + std::to_string(min) +
                              ", got '" + v + "'");
}

double to_seconds(const std::string& name, const std::string& v) {
  try {
    size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size() && d > 0)
      return d;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(name + ": expected a positive number of seconds, got '" +
                              v + "'");
}

void apply(settings& s, const std::string& key, const std::string& value,
           const std::string& where) {
  auto name = where + key;
  if (key == "config")
    s.config_file = value;
  else if (key == "listen")
    s.listen = value;
  else if (key == "port")
    s.port = to_int(name, value, 0);
  else if (key == "database-url")
    s.database_url = value;
  else if (key == "http-threads")
    s.http_threads = to_int(name, value, 1);
  else if (key == "db-connections")
    s.db_connections = to_int(name, value, 1);
  else if (key == "log-level") {
    static const char* levels[] = {"trace", "debug", "info", "warn", "error"};
    bool known = false;
    for (auto* l : levels)
      known |= value == l;
    if (!known)
      throw std::invalid_argument(name + ": unknown log level '" + value + "'");
    s.log_level = value;
  } else if (key == "provision")
    s.provision = value;
  else if (key == "node-id")
    s.node_id = value;
  else if (key == "claim-lease-seconds")
    s.claim_lease_seconds = to_seconds(name, value);
  else if (key == "lease-seconds")
    s.lease_seconds = to_seconds(name, value);
  else if (key == "poll-seconds")
    s.poll_seconds = to_seconds(name, value);
  else if (key == "orphan-sweep-seconds")
    s.orphan_sweep_seconds = to_seconds(name, value);
  else if (key == "senders")
    s.senders = to_int(name, value, 1);
  else if (key == "db-connect-timeout-seconds")
    s.db_connect_timeout_seconds = to_seconds(name, value);
  else if (key == "db-statement-timeout-seconds")
    s.db_statement_timeout_seconds = to_seconds(name, value);
  else if (key == "db-keepalive-seconds")
    s.db_keepalive_seconds = to_int(name, value, 1);
  else if (key == "db-acquire-timeout-seconds")
    s.db_acquire_timeout_seconds = to_seconds(name, value);
  else if (key == "listener-grace-seconds")
    s.listener_grace_seconds = to_seconds(name, value);
  else if (key == "http-read-timeout-seconds")
    s.http_read_timeout_seconds = to_seconds(name, value);
  else if (key == "api-rate-limit-per-minute")
    s.api_rate_limit_per_minute = to_int(name, value, 1);
  else if (key == "allowed-target-networks") {
    auto parsed = protocol::parse_cidr_list(value);
    if (auto* why = std::get_if<std::string>(&parsed))
      throw std::invalid_argument(name + ": " + *why);
    s.allowed_target_networks = value;
  } else if (key == "retention-days")
    s.retention_days = to_int(name, value, 1);
  else if (key == "audit-retention-days")
    s.audit_retention_days = to_int(name, value, 1);
  else if (key == "session-hours") {
    double hours = 0;
    try {
      size_t used = 0;
      hours = std::stod(value, &used);
      if (used != value.size())
        hours = 0;
    } catch (const std::exception&) {
    }
    if (!(hours > 0) || hours > 168)
      throw std::invalid_argument(name +
                                  ": expected a number of hours above 0 and at "
                                  "most 168 (a session's absolute limit is 7 "
                                  "days), got '" +
                                  value + "'");
    s.session_hours = hours;
  } else if (key == "public-url") {
    if (value.rfind("http://", 0) != 0 && value.rfind("https://", 0) != 0)
      throw std::invalid_argument(name + ": expected an http:// or https:// URL, got '" +
                                  value + "'");
    s.public_url = value;
  } else if (key == "signing-secret")
    s.signing_secret = value;
  else if (key == "metrics-token")
    s.metrics_token = value;
  else if (key == "token-rate-limit-per-minute")
    s.token_rate_limit_per_minute = to_int(name, value, 1);
  else if (key == "address-rate-limit-per-minute")
    s.address_rate_limit_per_minute = to_int(name, value, 1);
  else if (key == "data-encryption-key-file")
    s.data_encryption_key_file = value;
  else if (key == "data-encryption-key-old-file")
    s.data_encryption_key_old_file = value;
  else
    throw std::invalid_argument(where + "unknown setting '" + key + "' (see --help)");
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

void apply_file(settings& s, const std::string& path) {
  std::ifstream in{path};
  if (!in)
    throw std::invalid_argument("cannot read config file '" + path + "'");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = trim(line);
    if (line.empty() || line[0] == '#')
      continue;
    auto eq = line.find('=');
    auto where = path + ":" + std::to_string(n) + ": ";
    if (eq == std::string::npos)
      throw std::invalid_argument(where + "expected 'name = value'");
    apply(s, trim(line.substr(0, eq)), trim(line.substr(eq + 1)), where);
  }
}

std::map<std::string, std::string> parse_flags(const std::vector<std::string>& args) {
  std::map<std::string, std::string> flags;
  for (size_t i = 0; i < args.size(); ++i) {
    auto& a = args[i];
    if (a.rfind("--", 0) != 0)
      throw std::invalid_argument("unexpected argument '" + a + "' (see --help)");
    auto eq = a.find('=');
    if (eq != std::string::npos) {
      flags[a.substr(2, eq - 2)] = a.substr(eq + 1);
    } else {
      if (i + 1 >= args.size())
        throw std::invalid_argument("--" + a.substr(2) + " needs a value");
      flags[a.substr(2)] = args[++i];
    }
  }
  return flags;
}

std::string default_node_id() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

} // namespace

settings load_settings(const std::vector<std::string>& args) {
  auto flags = parse_flags(args);
  std::map<std::string, std::string> env;
  for (auto& info : setting_table()) {
    if (auto* v = std::getenv(info.env.c_str()); v && *v)
      env[info.flag] = v;
  }
  if (env.count("database-url") == 0) {
    if (auto* v = std::getenv("BELAY_DATABASE_URL"); v && *v)
      env["database-url"] = v;
  }
  settings s;
  std::string file = flags.count("config") ? flags["config"]
                     : env.count("config") ? env["config"]
                                           : "";
  if (!file.empty())
    apply_file(s, file);
  for (auto& [k, v] : env) {
    std::string variable;
    for (auto& info : setting_table())
      if (info.flag == k)
        variable = info.env;
    apply(s, k, v, "environment " + variable + ": ");
  }
  for (auto& [k, v] : flags)
    apply(s, k, v, "--");
  s.config_file = file;
  if (s.node_id.empty())
    s.node_id = default_node_id();
  return s;
}

std::string settings_help() {
  std::ostringstream out;
  for (auto& info : setting_table()) {
    out << "  --" << info.flag;
    out << std::string(info.flag.size() < 22 ? 22 - info.flag.size() : 1, ' ');
    out << info.help << "\n" << std::string(26, ' ') << "env " << info.env;
    if (!info.fallback.empty())
      out << ", default " << info.fallback;
    out << "\n";
  }
  return out.str();
}

std::string public_url_of(const settings& s) {
  if (!s.public_url.empty())
    return s.public_url;
  const bool ipv6 = s.listen.find(':') != std::string::npos;
  return "http://" + (ipv6 ? "[" + s.listen + "]" : s.listen) + ":" +
         std::to_string(s.port);
}

std::string describe(const settings& s) {
  std::ostringstream out;
  out << "listen=" << s.listen << ":" << s.port
      << " database=" << storage::redact_url(s.database_url)
      << " http_threads=" << s.http_threads << " db_connections=" << s.db_connections
      << " node=" << s.node_id << " allowed_target_networks="
      << (s.allowed_target_networks.empty() ? "-" : s.allowed_target_networks)
      << " provision=" << (s.provision.empty() ? "-" : s.provision)
      << " public_url=" << public_url_of(s)
      << " signing_secret=" << (s.signing_secret.empty() ? "stored" : "given")
      << " metrics_token=" << (s.metrics_token.empty() ? "-" : "given")
      << " data_encryption_key="
      << (s.data_encryption_key_file.empty() ? "-" : s.data_encryption_key_file);
  return out.str();
}

} // namespace belay
