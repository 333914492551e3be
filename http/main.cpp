// belay: the on-call paging service. `belay serve` runs a node.
#include "actors/actors.hpp"
#include "actors/clock.hpp"
#include "actors/node.hpp"
#include "actors/storage_worker.hpp"
#include "actors/transport/transport.hpp"
#include "actors/watchdog.hpp"
#include "config/settings.hpp"
#include "http/inspect_cli.hpp"
#include "http/keys.hpp"
#include "http/notify.hpp"
#include "http/server.hpp"
#include "protocol/credentials.hpp"
#include "protocol/provisioning.hpp"
#include "storage/answers.hpp"
#include "storage/audit.hpp"
#include "storage/db.hpp"
#include "storage/identities.hpp"
#include "storage/listener.hpp"
#include "storage/migrate.hpp"
#include "storage/provision.hpp"
#include "storage/sealed.hpp"
#include "storage/stored_secrets.hpp"

#include <atomic>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <cmath>
#include <csignal>
#include <fstream>
#include <iostream>
#include <optional>
#include <pwd.h>
#include <spdlog/spdlog.h>
#include <sstream>
#include <termios.h>
#include <thread>
#include <unistd.h>

namespace {

const char* usage =
    R"(belay — on-call paging: alerts in, incidents deduplicated, escalation ladders out.

Usage:
  belay serve [flags]     run a node: migrate, provision, re-adopt incidents, serve HTTP
  belay migrate [flags]   apply database migrations and exit
  belay provision FILE [flags]
                          apply a provisioning file to the database and print what
                          changed, without serving; every node sees it within 10 s
  belay provision --check FILE [flags]
                          validate a provisioning file and print what applying it would
                          change (with a database), changing nothing; exit 0 when valid
  belay rekey [flags]     rewrite every stored secret under --data-encryption-key-file
                          (reading older ones with --data-encryption-key-old-file)
  belay user set-password ORG LOGIN [flags]
                          set a user's password (read from stdin, or asked for twice
                          at a terminal); the user's sessions end
  belay audit verify [flags]
                          recompute the audit log's hash chain; exit 1 naming the first
                          row that does not match (an altered or deleted row)
  belay inspect [--url URL] [--key KEY]   a node's live actors as tables (key: $BELAY_API_KEY)
  belay --help | --version

Flags (each also settable by environment variable or config file; flags win):
)";

void setup_logging(const std::string& level) {
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
  spdlog::set_level(spdlog::level::from_str(level));
}

std::string read_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    throw std::runtime_error("cannot read provisioning file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

belay::protocol::provisioning parse_file(const std::string& path) {
  auto parsed = belay::protocol::parse_provisioning(read_file(path));
  if (auto* err = std::get_if<belay::protocol::error>(&parsed))
    throw std::runtime_error("provisioning file '" + path +
                             "': " + (err->field.empty() ? "" : err->field + ": ") +
                             err->message);
  return std::get<0>(std::move(parsed));
}

// Who runs a command, as the audit log records it: "cli:<unix user>".
std::string command_actor() {
  const char* name = nullptr;
  if (auto* pw = getpwuid(geteuid()))
    name = pw->pw_name;
  return std::string{"cli:"} + (name ? name : std::to_string(geteuid()));
}

void provision(belay::storage::connection& conn,
               const belay::protocol::provisioning& parsed, const std::string& path) {
  belay::storage::provision_audit who;
  who.via = "serve";
  who.object_name = path;
  auto report = belay::storage::apply_provisioning(conn, parsed, false, who);
  for (auto& change : report.changes)
    spdlog::info("provisioning: {}", change);
  spdlog::info("provisioned {} org(s) from {}: {} row(s) changed", report.orgs, path,
               report.changed_rows);
}

// The data encryption keys the settings name (docs/operations.md#data-encryption-key),
// made the ones every secret column is read and written with.
belay::storage::keyring load_keyring(const belay::settings& s) {
  belay::storage::keyring keys;
  if (!s.data_encryption_key_file.empty())
    keys.current = belay::storage::read_data_key_file(s.data_encryption_key_file,
                                                      "--data-encryption-key-file");
  if (!s.data_encryption_key_old_file.empty())
    keys.old = belay::storage::read_data_key_file(s.data_encryption_key_old_file,
                                                  "--data-encryption-key-old-file");
  belay::storage::set_process_keyring(keys);
  return keys;
}

// Refuses before writing anything when a secret would be stored, or could not be read,
// with the keys given; else migrates and, with a key, seals every secret still in clear.
void check_and_migrate(belay::storage::connection& conn,
                       const belay::storage::keyring& keys, bool file_holds_secret) {
  belay::storage::check_stored_secrets(conn, keys, file_holds_secret);
  auto applied = belay::storage::migrate(conn);
  if (applied.empty())
    spdlog::info("database schema is current");
  for (auto& v : applied)
    spdlog::info("applied migration {}", v);
  if (keys.current) {
    if (auto sealed = belay::storage::seal_stored_secrets(conn, keys, false))
      spdlog::info("sealed {} stored secret(s) under key id {}", sealed,
                   keys.current->id);
  }
}

// Migrates and provisions; answers the signing secret of the answer links: the one
// given, else the one every node shares through the database.
std::string prepare_database(const belay::settings& s) {
  auto keys = load_keyring(s);
  std::optional<belay::protocol::provisioning> parsed;
  if (!s.provision.empty())
    parsed = parse_file(s.provision);
  belay::storage::connection conn{s.database_url};
  check_and_migrate(conn, keys, parsed && belay::storage::holds_channel_secret(*parsed));
  if (parsed)
    provision(conn, *parsed, s.provision);
  return s.signing_secret.empty() ? belay::storage::load_signing_secret(conn)
                                  : s.signing_secret;
}

// belay rekey: every stored secret rewritten under the current key, so that the old
// key's file can be retired (docs/operations.md#rotating-the-key).
int rekey(const belay::settings& s) {
  auto keys = load_keyring(s);
  if (!keys.current)
    throw std::invalid_argument(
        "belay rekey needs --data-encryption-key-file (BELAY_DATA_ENCRYPTION_KEY_FILE)");
  belay::storage::connection conn{s.database_url};
  check_and_migrate(conn, keys, false);
  auto n = belay::storage::seal_stored_secrets(conn, keys, true);
  std::cout << "rekeyed " << n << " stored secret(s) under key id " << keys.current->id
            << "\n";
  return 0;
}

// Set by the watchdog when a top-level actor died: the process exits non-zero, so that
// its service manager starts it again (another node holds its incidents meanwhile).
std::atomic<bool> node_failed{false};

// `belay provision FILE` applies the file (docs/operations.md#change-without-restart);
// `belay provision --check FILE` says what applying it would change and changes nothing
// (the changes are computed in a transaction that is rolled back). Either prints each
// change by kind and name.
int run_provisioning(const std::vector<std::string>& args) {
  std::vector<std::string> rest;
  std::string file;
  bool dry_run = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--check" && i + 1 < args.size()) {
      dry_run = true;
      file = args[++i];
    } else if (args[i].rfind("--check=", 0) == 0) {
      dry_run = true;
      file = args[i].substr(8);
    } else if (file.empty() && args[i].rfind("-", 0) != 0) {
      file = args[i];
    } else {
      rest.push_back(args[i]);
      // every other flag takes a value, given apart unless as --flag=value
      if (args[i].rfind("--", 0) == 0 && args[i].find('=') == std::string::npos &&
          i + 1 < args.size())
        rest.push_back(args[++i]);
    }
  }
  if (file.empty()) {
    std::cerr << "belay provision: give the file: belay provision FILE, or belay "
                 "provision --check FILE for a dry run\n";
    return 2;
  }
  belay::protocol::provisioning parsed;
  try {
    parsed = parse_file(file);
  } catch (const std::exception& e) {
    std::cerr << "belay: " << e.what() << "\n";
    return 1;
  }
  auto s = belay::load_settings(rest);
  std::cout << file << ": valid (" << parsed.orgs.size() << " org(s))\n";
  if (s.database_url.empty()) {
    if (!dry_run) {
      std::cerr << "belay: no database: set --database-url or DATABASE_URL\n";
      return 2;
    }
    std::cout << "no database given (--database-url or DATABASE_URL): what applying it "
                 "would change is not known\n";
    return 0;
  }
  auto keys = load_keyring(s);
  belay::storage::connection conn{s.database_url};
  if (dry_run)
    belay::storage::check_stored_secrets(conn, keys,
                                         belay::storage::holds_channel_secret(parsed));
  else // a new database, or one older than this binary
    check_and_migrate(conn, keys, belay::storage::holds_channel_secret(parsed));
  belay::storage::provision_audit who;
  who.actor = command_actor();
  who.object_name = file;
  auto report = belay::storage::apply_provisioning(conn, parsed, dry_run, who);
  if (report.changes.empty())
    std::cout << (dry_run ? "applying it would change nothing\n" : "nothing changed\n");
  else if (dry_run)
    std::cout << "applying it would make " << report.changes.size() << " change(s):\n";
  else
    std::cout << "applied " << report.changes.size()
              << " change(s); every node sees them within 10 s:\n";
  for (auto& change : report.changes)
    std::cout << "  " << change << "\n";
  return 0;
}

// A password from a terminal, not echoed; empty when the terminal could not be read.
std::string ask_password(const char* prompt) {
  std::cerr << prompt << std::flush;
  termios saved{};
  bool quiet = tcgetattr(STDIN_FILENO, &saved) == 0;
  if (quiet) {
    termios silent = saved;
    silent.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(STDIN_FILENO, TCSANOW, &silent);
  }
  std::string line;
  std::getline(std::cin, line);
  if (quiet)
    tcsetattr(STDIN_FILENO, TCSANOW, &saved);
  std::cerr << "\n";
  return line;
}

// The new password: asked for twice at a terminal, else the first line of stdin.
std::optional<std::string> read_new_password() {
  if (isatty(STDIN_FILENO)) {
    auto first = ask_password("new password: ");
    if (ask_password("again: ") != first) {
      std::cerr << "belay: the two passwords differ; nothing changed\n";
      return std::nullopt;
    }
    return first;
  }
  std::string line;
  std::getline(std::cin, line);
  if (!line.empty() && line.back() == '\r')
    line.pop_back();
  return line;
}

// belay user set-password ORG LOGIN: the user's password (docs/security.md#passwords),
// Argon2id-hashed; their sessions end, and the audit log records it (never the password).
int run_user(const std::vector<std::string>& args) {
  if (args.size() < 3 || args[0] != "set-password") {
    std::cerr << "usage: belay user set-password ORG LOGIN [--database-url URL]\n"
                 "  reads the password from stdin (one line), or asks twice at a "
                 "terminal\n";
    return 2;
  }
  auto s = belay::load_settings({args.begin() + 3, args.end()});
  if (s.database_url.empty()) {
    std::cerr << "belay: no database: set --database-url or DATABASE_URL\n";
    return 2;
  }
  auto password = read_new_password();
  if (!password)
    return 1;
  if (auto weak = belay::protocol::weak_password(*password)) {
    std::cerr << "belay: " << *weak << "; nothing changed\n";
    return 2;
  }
  auto keys = load_keyring(s);
  belay::storage::connection conn{s.database_url};
  check_and_migrate(conn, keys, false);
  auto org = belay::storage::find_org(conn, args[1]);
  if (!org) {
    std::cerr << "belay: no enabled org named '" << args[1] << "'\n";
    return 1;
  }
  auto user = belay::storage::find_user_by_login(conn, org->id, args[2]);
  if (!user)
    user = belay::storage::find_user(conn, org->id, args[2]);
  if (!user) {
    std::cerr << "belay: org '" << org->name << "' has no user with login (or name) '"
              << args[2] << "'\n";
    return 1;
  }
  auto hash = belay::protocol::hash_password(*password);
  auto ended = belay::storage::transaction(conn, [&] {
    belay::storage::set_password_hash(conn, org->id, user->name, hash);
    auto n = belay::storage::delete_user_sessions(conn, org->id, user->name);
    belay::storage::append_audit(
        conn, belay::storage::audit_row({command_actor(), "cli", ""}, 0, org->id,
                                        "password.set", "user", user->name));
    return n;
  });
  std::cout << "password set for user '" << user->name << "' of org '" << org->name
            << "'";
  if (user->login.empty())
    std::cout << " (they have no login: give them one in provisioning to sign in)";
  std::cout << "; " << ended << " session(s) ended\n";
  return 0;
}

// belay audit verify: the whole chain against its head (docs/security.md#audit-log).
int run_audit(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "verify") {
    std::cerr << "usage: belay audit verify [--database-url URL]\n";
    return 2;
  }
  auto s = belay::load_settings({args.begin() + 1, args.end()});
  if (s.database_url.empty()) {
    std::cerr << "belay: no database: set --database-url or DATABASE_URL\n";
    return 2;
  }
  belay::storage::connection conn{s.database_url};
  auto v = belay::storage::verify_audit(conn);
  if (v.broken) {
    std::cout << "audit log: BROKEN at row " << v.broken->id << ": " << v.broken->why
              << " (" << v.rows << " row(s) before it hold)\n";
    return 1;
  }
  std::cout << "audit log: " << v.rows << " row(s) checked, the chain holds; newest row "
            << v.head_id << ", hash " << v.head_hash
            << " (keep it elsewhere: a later verify must reach it)\n";
  return 0;
}

int serve(const belay::settings& s) {
  // Signals are taken synchronously by this thread; every other thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  belay::storage::connection_limits limits;
  limits.connect_timeout_seconds = s.db_connect_timeout_seconds;
  limits.statement_timeout_seconds = s.db_statement_timeout_seconds;
  limits.keepalive_idle_seconds = s.db_keepalive_seconds;
  belay::storage::set_connection_limits(limits);
  belay::transport::answer_links answers{belay::public_url_of(s), prepare_database(s)};
  belay::transport::set_allowed_target_networks(
      std::get<std::vector<belay::protocol::cidr>>(
          belay::protocol::parse_cidr_list(s.allowed_target_networks)));

  caf::actor_system_config cfg;
  belay::configure(cfg);
  // CAF's idle workers poll with 50 µs naps by default: on 2 cores that takes CPU from
  // PostgreSQL. Nap less often, and longer, once a worker has found nothing to do.
  cfg.set("work-stealing.aggressive-poll-attempts", 10);
  cfg.set("work-stealing.moderate-poll-attempts", 10);
  cfg.set("work-stealing.moderate-sleep-duration",
          caf::timespan{std::chrono::microseconds{500}});
  caf::actor_system sys{cfg};
  belay::node_options opts;
  opts.database_url = s.database_url;
  opts.node_id = s.node_id;
  opts.storage_workers = static_cast<size_t>(s.db_connections);
  opts.commit_linger = belay::storage_commit_linger;
  opts.lease_seconds = s.lease_seconds;
  opts.senders = static_cast<size_t>(s.senders);
  opts.claim_lease_seconds = s.claim_lease_seconds;
  opts.poll_seconds = s.poll_seconds;
  opts.orphan_sweep_seconds = s.orphan_sweep_seconds;
  opts.answers = answers;
  opts.retention_days = s.retention_days;
  opts.audit_retention_days = s.audit_retention_days;
  opts.listener_grace_seconds = s.listener_grace_seconds;
  // A storage operation answers within the statement timeout, or its connection is
  // closed 5 s after that: a request waits a little longer than both.
  opts.request_timeout = std::chrono::duration_cast<caf::timespan>(
      std::chrono::duration<double>(limits.reply_timeout_seconds() + 5));
  auto node = belay::start_node(sys, opts, belay::system_wall_clock());
  {
    caf::scoped_actor self{sys};
    bool adopted = false;
    // Every page of the adoption has its own deadline; the whole of it, a million
    // incidents, takes well under this.
    self->request(node.registry, std::chrono::minutes{10}, belay::atom::adopt_v)
        .receive(
            [&](size_t) { adopted = true; },
            [&](caf::error& e) { spdlog::error("adoption failed: {}", to_string(e)); });
    if (!adopted) {
      belay::stop_node(sys, node);
      return 1;
    }
  }

  auto watching = belay::watch_node(sys, node, [] {
    node_failed = true;
    kill(getpid(), SIGTERM); // the signal wait below stops the node
  });
  belay::storage::pool db{
      s.database_url, static_cast<size_t>(s.db_connections),
      std::chrono::milliseconds{std::llround(s.db_acquire_timeout_seconds * 1000)}};
  belay::key_store_options key_options;
  key_options.api_rate_per_minute = s.api_rate_limit_per_minute;
  key_options.session_idle =
      static_cast<belay::micros>(s.session_hours * 3'600'000'000.0);
  belay::key_store keys{db, key_options};
  belay::node_info info{s.node_id, BELAY_VERSION, node.d.clock.at(sys.clock().now()), 0};
  belay::api a{sys, node.registry, node.triggers, node.dispatcher,
               db,  keys,          info,          opts.storage_workers};
  a.clock = node.d.clock;
  a.storage = node.storage;
  if (auto listener = node.listener)
    a.listening = [listener] { return listener->listening(); };
  a.answers = answers;
  a.heartbeats = node.heartbeats;
  a.metrics_token = s.metrics_token;
  a.max_streams = static_cast<size_t>(std::max(1, s.http_threads / 4));
  belay::server_options http_options{s.http_threads, s.http_read_timeout_seconds};
  http_options.limits.per_token_per_minute = s.token_rate_limit_per_minute;
  http_options.limits.per_address_per_minute = s.address_rate_limit_per_minute;
  belay::server http{a, http_options};
  int port = http.bind(s.listen, s.port);
  if (port < 0) {
    spdlog::error("cannot listen on {}:{} (address in use?)", s.listen, s.port);
    belay::stop_node(sys, node);
    return 1;
  }
  std::thread serving{[&] { http.run(); }};
  spdlog::info("belay {} serving on http://{}:{} (node {})", BELAY_VERSION, s.listen,
               port, s.node_id);
  belay::notify_ready();
  std::optional<belay::watchdog_pings> pings{std::in_place, sys, node};

  int sig = 0;
  sigwait(&stop_signals, &sig);
  spdlog::info("received {}, shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
  belay::notify_stopping();
  pings.reset();
  http.stop(); // stops accepting; in-flight requests finish on their threads
  serving.join();
  caf::anon_send_exit(watching, caf::exit_reason::user_shutdown);
  belay::stop_node(sys, node);
  spdlog::info("stopped");
  return node_failed ? 70 : 0;
}

} // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args{argv + 1, argv + argc};
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << usage << belay::settings_help();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "belay " << BELAY_VERSION << "\n";
    return 0;
  }
  auto command = args[0];
  args.erase(args.begin());
  if (command == "inspect")
    return belay::run_inspect(args);
  if (command == "user" || command == "audit") {
    try {
      return command == "user" ? run_user(args) : run_audit(args);
    } catch (const std::invalid_argument& e) {
      std::cerr << "belay: " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "belay: " << e.what() << "\n";
      return 1;
    }
  }
  if (command == "provision") {
    try {
      return run_provisioning(args);
    } catch (const std::invalid_argument& e) {
      std::cerr << "belay: " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "belay: " << e.what() << "\n";
      return 1;
    }
  }
  for (auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << usage << belay::settings_help();
      return 0;
    }
  }
  try {
    auto s = belay::load_settings(args);
    setup_logging(s.log_level);
    if (s.database_url.empty())
      throw std::invalid_argument("no database: set --database-url or DATABASE_URL");
    spdlog::info("settings: {}", belay::describe(s));
    if (command == "serve")
      return serve(s);
    if (command == "rekey")
      return rekey(s);
    if (command == "migrate") {
      prepare_database(s);
      return 0;
    }
    std::cerr << "belay: unknown command '" << command << "' (see belay --help)\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "belay: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}
