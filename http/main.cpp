// belay: the on-call paging service. `belay serve` runs a node.
#include "actors/actors.hpp"
#include "actors/clock.hpp"
#include "actors/node.hpp"
#include "config/settings.hpp"
#include "http/inspect_cli.hpp"
#include "http/keys.hpp"
#include "http/server.hpp"
#include "protocol/provisioning.hpp"
#include "storage/answers.hpp"
#include "storage/db.hpp"
#include "storage/migrate.hpp"
#include "storage/provision.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <csignal>
#include <fstream>
#include <iostream>
#include <spdlog/spdlog.h>
#include <sstream>
#include <thread>

namespace {

const char* usage =
    R"(belay — on-call paging: alerts in, incidents deduplicated, escalation ladders out.

Usage:
  belay serve [flags]     run a node: migrate, provision, re-adopt incidents, serve HTTP
  belay migrate [flags]   apply database migrations and exit
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

void provision(belay::storage::connection& conn, const std::string& path) {
  auto parsed = belay::protocol::parse_provisioning(read_file(path));
  if (auto* err = std::get_if<belay::protocol::error>(&parsed))
    throw std::runtime_error("provisioning file '" + path +
                             "': " + (err->field.empty() ? "" : err->field + ": ") +
                             err->message);
  auto report = belay::storage::apply_provisioning(conn, std::get<0>(parsed));
  spdlog::info("provisioned {} org(s) from {}: {} row(s) changed", report.orgs, path,
               report.changed_rows);
}

// Migrates and provisions; answers the signing secret of the answer links: the one
// given, else the one every node shares through the database.
std::string prepare_database(const belay::settings& s) {
  belay::storage::connection conn{s.database_url};
  auto applied = belay::storage::migrate(conn);
  if (applied.empty())
    spdlog::info("database schema is current");
  for (auto& v : applied)
    spdlog::info("applied migration {}", v);
  if (!s.provision.empty())
    provision(conn, s.provision);
  return s.signing_secret.empty() ? belay::storage::load_signing_secret(conn)
                                  : s.signing_secret;
}

int serve(const belay::settings& s) {
  // Signals are taken synchronously by this thread; every other thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  belay::transport::answer_links answers{belay::public_url_of(s), prepare_database(s)};

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
  opts.lease_seconds = s.lease_seconds;
  opts.senders = static_cast<size_t>(s.senders);
  opts.claim_lease_seconds = s.claim_lease_seconds;
  opts.poll_seconds = s.poll_seconds;
  opts.orphan_sweep_seconds = s.orphan_sweep_seconds;
  opts.answers = answers;
  auto node =
      belay::start_node(sys, opts, belay::anchor_to_system_time(sys.clock().now()));
  {
    caf::scoped_actor self{sys};
    bool adopted = false;
    self->request(node.registry, std::chrono::seconds{60}, belay::atom::adopt_v)
        .receive(
            [&](size_t) { adopted = true; },
            [&](caf::error& e) { spdlog::error("adoption failed: {}", to_string(e)); });
    if (!adopted) {
      belay::stop_node(sys, node);
      return 1;
    }
  }

  belay::storage::pool db{s.database_url, static_cast<size_t>(s.db_connections)};
  belay::key_store keys{db};
  belay::node_info info{s.node_id, BELAY_VERSION, node.d.clock.at(sys.clock().now()), 0};
  belay::api a{sys, node.registry, node.triggers, node.dispatcher,
               db,  keys,          info,          opts.storage_workers};
  a.clock = node.d.clock;
  a.answers = answers;
  belay::server http{a, s.http_threads};
  int port = http.bind(s.listen, s.port);
  if (port < 0) {
    spdlog::error("cannot listen on {}:{} (address in use?)", s.listen, s.port);
    belay::stop_node(sys, node);
    return 1;
  }
  std::thread serving{[&] { http.run(); }};
  spdlog::info("belay {} serving on http://{}:{} (node {})", BELAY_VERSION, s.listen,
               port, s.node_id);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  spdlog::info("received {}, shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
  http.stop(); // stops accepting; in-flight requests finish on their threads
  serving.join();
  belay::stop_node(sys, node);
  spdlog::info("stopped");
  return 0;
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
