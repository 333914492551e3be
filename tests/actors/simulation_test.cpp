// A randomized, deterministic simulation of one org's life (issue 16; FoundationDB's and
// TigerBeetle's simulation testing are the model): a seeded generator picks thousands of
// operations — triggers and duplicates, acks, resolves, hours of simulated time, webhook
// answers that succeed, fail, refuse for good or time out, replies of committed
// statements lost on the way back (a fault_proxy between the node and PostgreSQL),
// incident actors killed, the node restarted or replaced — against the real actors on the
// simulated clock and a real PostgreSQL, and the guarantees are checked after every
// operation. A failure prints the seed and the operations that led to it;
// BELAY_SIM_SEED=<seed> replays exactly that run. CI runs seeds BELAY_SIM_FIRST_SEED (1)
// onwards, BELAY_SIM_SEEDS (3) of them, each for BELAY_SIM_OPS (400) operations;
// `scripts/test --soak N` runs N seeds from a random start.
#include "support/http_sink.hpp"
#include "support/policies.hpp"
#include "support/postgres_proxy.hpp"
#include "support/test_node.hpp"

#include <caf/send.hpp>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <sstream>

using namespace belay;
using namespace std::chrono_literals;

namespace {

constexpr micros second = 1'000'000;
// The node polls channels and releases lapsed claims every 60 simulated seconds
// (test_node), and a replaced node's incidents wait for its 30 s lease to lapse: a step
// or a delivery later than this is overdue, not merely waiting for its timer.
constexpr micros overdue_after = 180 * second;

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// test::ladder_org's org "acme" (policy "default" pages three steps, "looping" repeats
// two once), its channel "hook" a real local webhook whose answers the simulation
// scripts, with a short timeout so a stalled answer is a client timeout, failing over to
// "backup" (the same endpoint).
std::string simulation_org(const std::string& hook_url) {
  return test::ladder_org(hook_url, R"(,"timeoutSeconds":0.2,"failoverTo":"backup"},
    {"name":"backup","type":"webhook","url":")" +
                                        hook_url +
                                        R"(","secret":"s","timeoutSeconds":0.2)");
}

class simulation {
public:
  explicit simulation(uint64_t seed) : rng_(seed) {
    db_.provision(simulation_org(sink_.url("/hook")));
    org_ = db_.org_id("acme");
    node_ = make_node(test::simulated_epoch);
  }

  // Runs `ops` random operations; returns "" or what broke, with the operations before
  // it.
  std::string run(uint64_t ops) {
    for (uint64_t i = 0; i < ops; ++i) {
      step();
      if (auto broken = check(); !broken.empty())
        return "after operation " + std::to_string(i + 1) + ": " + broken +
               "\nlast operations:\n" + history();
    }
    return {};
  }

  std::string summary() const {
    std::ostringstream s;
    for (auto& [name, n] : counts_)
      s << name << '=' << n << ' ';
    return s.str();
  }

private:
  template <class T> T pick(T lo, T hi) {
    return std::uniform_int_distribution<T>{lo, hi}(rng_);
  }

  void note(std::string what) {
    ++counts_[what.substr(0, what.find(' '))];
    history_.push_back(std::move(what));
    if (history_.size() > 25)
      history_.pop_front();
  }

  std::string history() const {
    std::string out;
    for (auto& h : history_)
      out += "  " + h + "\n";
    return out;
  }

  std::string node_name() const { return "sim-node-" + std::to_string(generation_); }

  // The node reaches PostgreSQL through the proxy; the checks read it directly.
  std::unique_ptr<test::test_node> make_node(micros at) {
    return std::make_unique<test::test_node>(
        db_, at, node_name(), [this](node_options& o) { o.database_url = pg_.url(db_); });
  }

  // A random non-resolved incident, or 0.
  int64_t open_incident() {
    auto r = db_.sql().query(
        "SELECT id FROM incident WHERE org_id = $1 AND status <> 'RESOLVED' "
        "ORDER BY id",
        org_);
    return r.rows() == 0 ? 0 : r.int64(pick(0, r.rows() - 1), 0);
  }

  void step() {
    const int roll = pick(0, 99);
    if (roll < 30) {
      // Eight keys: most triggers after the first few are duplicates or reopen a
      // resolved key as a new incident (G2).
      auto key = "key-" + std::to_string(pick(0, 7));
      auto policy = pick(0, 3) == 0 ? "looping" : "default";
      auto r = node_->trigger(org_, key, policy);
      note("trigger " + key + " " + policy + " -> incident " +
           std::to_string(r.incident.id) + (r.created ? " (new)" : " (duplicate)"));
    } else if (roll < 40) {
      if (auto id = open_incident()) {
        auto r = node_->ack(org_, id, "sim");
        note("ack " + std::to_string(id) + " -> " + r.incident.status);
      }
    } else if (roll < 44) {
      ack_racing_timer();
    } else if (roll < 48) {
      if (auto id = open_incident()) {
        auto r = node_->resolve(org_, id, "sim");
        note("resolve " + std::to_string(id) + " -> " + r.incident.status);
      }
    } else if (roll < 80) {
      auto seconds = pick(1, 400);
      node_->advance(std::chrono::seconds{seconds});
      note("advance " + std::to_string(seconds) + "s");
    } else if (roll < 92) {
      script_endpoint();
    } else if (roll < 95) {
      kill_incident_actor();
    } else if (roll < 97) {
      restart_node(pick(0, 2) == 0);
    } else {
      lose_next_reply();
    }
  }

  // An ack queued just before the clock reaches the next timer: the ack's transition and
  // whatever that timer starts (a step, a retry) meet in the storage workers in one order
  // or another, as they would on a busy node.
  void ack_racing_timer() {
    auto& clock = node_->sched.clock();
    auto id = open_incident();
    if (!id || !clock.has_pending_timeout())
      return;
    const auto due = clock.schedule().begin()->first;
    transition_command cmd{org_, id, {}, transition::ack, "sim"};
    node_->sys.spawn(
        [](caf::event_based_actor* self, caf::actor registry, transition_command c) {
          self->request(registry, caf::infinite, atom::transition_v, std::move(c))
              .then([](transition_reply&) {}, [](caf::error&) {});
        },
        caf::actor_cast<caf::actor>(node_->n.registry), std::move(cmd));
    const auto wait = due > clock.now() ? due - clock.now() : caf::timespan{0};
    node_->sched.advance_time(wait);
    node_->run();
    note("ack " + std::to_string(id) + " racing a timer " +
         std::to_string(std::chrono::duration_cast<std::chrono::seconds>(wait).count()) +
         "s ahead");
  }

  // How the webhook answers from now on: mostly 2xx, else a retryable 5xx, a permanent
  // 4xx (dead letter), or an answer slower than the channel's timeout (ambiguous).
  void script_endpoint() {
    const int roll = pick(0, 9);
    test::sink_response answer;
    std::string what;
    if (roll < 5) {
      answer.status = 200, what = "200";
    } else if (roll < 8) {
      answer.status = 503, what = "503";
    } else if (roll < 9) {
      answer.status = 400, what = "400";
    } else {
      answer.status = 200, answer.delay = 400ms, what = "timeout";
    }
    sink_.set_default(answer);
    note("endpoint " + what);
  }

  // The next statement the node sends commits, and its reply is lost with the connection
  // (a trigger batch, a step, an outcome, a claim, an acknowledge: whichever comes
  // first). Then something writes: a trigger or an acknowledge.
  void lose_next_reply() {
    auto before = pg_.proxy.drops();
    pg_.proxy.drop_reply_after(test::ends_statement);
    std::string what;
    try {
      if (auto id = open_incident(); id && pick(0, 1) == 0) {
        what = "ack " + std::to_string(id);
        what += " -> " + node_->ack(org_, id, "sim").incident.status;
      } else {
        auto key = "key-" + std::to_string(pick(0, 7));
        what = "trigger " + key;
        auto r = node_->trigger(org_, key, "default");
        what += " -> incident " + std::to_string(r.incident.id) +
                (r.created ? " (new)" : " (duplicate)");
      }
    } catch (const std::exception& e) {
      what += std::string{" failed: "} + e.what(); // no answer: the caller would retry
    }
    note("lost-reply " + what +
         (pg_.proxy.drops() > before ? " (a reply was lost)" : " (armed)"));
  }

  // A crashed incident actor: its supervisor (the registry) must bring its ladder back.
  void kill_incident_actor() {
    auto id = open_incident();
    if (!id)
      return;
    try {
      auto holder = node_->ask<incident_actor>(node_->n.registry, atom::holder_v, id);
      caf::anon_send_exit(holder, caf::exit_reason::kill);
      node_->run();
      note("kill actor of " + std::to_string(id));
    } catch (const std::exception& e) {
      note("kill actor of " + std::to_string(id) + ": none held (" + e.what() + ")");
    }
  }

  // The node stops (everything in memory is lost) and starts again on the same database,
  // with the same identity (a restart) or a new one (a replacement: the old node's
  // incidents wait for its lease to lapse).
  void restart_node(bool replace) {
    const micros now = node_->now();
    node_.reset();
    if (replace) {
      ++generation_;
      lease_wait_until_ = now + overdue_after;
    }
    node_ = make_node(now);
    const size_t adopted = node_->adopt(); // as belay's main does at start
    note(std::string{replace ? "replace" : "restart"} + " node -> " + node_name() +
         ", adopted " + std::to_string(adopted));
  }

  // The guarantees, read from the database. "" when all hold.
  std::string check() {
    auto& sql = db_.sql();
    const micros now = node_->now();
    auto first = [&](const std::string& query, auto... args) -> std::string {
      auto r = sql.query(query, args...);
      return r.rows() == 0 ? std::string{} : r.str(0, 0);
    };
    // G2: at most one non-resolved incident per key.
    if (auto k = first(
            "SELECT dedup_key FROM incident WHERE org_id = $1 AND status <> 'RESOLVED' "
            "GROUP BY dedup_key HAVING count(*) > 1",
            org_);
        !k.empty())
      return "two non-resolved incidents for key " + k;
    // G4: a delivery matching `after_settled`, compared with its incident's settling
    // time.
    auto settled_delivery = [&](const std::string& after_settled) {
      return first(
          "SELECT d.id || ' of incident ' || i.id FROM delivery d JOIN incident i "
          "ON i.org_id = d.org_id AND i.id = d.incident_id WHERE d.org_id = $1 AND " +
              after_settled,
          org_);
    };
    // No page created after the acknowledge or resolve that stopped its ladder.
    if (auto d = settled_delivery("d.replay_of IS NULL AND d.failover_from IS NULL "
                                  "AND d.created_at > least(i.acked_at, i.resolved_at)");
        !d.empty())
      return "delivery " + d +
             " was created after its incident was acknowledged or resolved";
    // No page sent after its incident was settled: every send re-checks first.
    if (auto d = settled_delivery(
            "d.status = 'SENT' AND d.sent_at > least(i.acked_at, i.resolved_at)");
        !d.empty())
      return "delivery " + d +
             " was sent after its incident was acknowledged or resolved";
    // G3: each step fires once per loop.
    if (auto s = first(
            "SELECT incident_id || ' step ' || (detail->>'step') || ' loop ' || "
            "(detail->>'loop') FROM timeline WHERE org_id = $1 AND kind = 'step_fired' "
            "GROUP BY incident_id, detail->>'step', detail->>'loop' HAVING count(*) > 1",
            org_);
        !s.empty())
      return "incident " + s + " fired twice";
    if (now < lease_wait_until_)
      return {};
    // G5: no open incident's step overdue (every due step fires, whatever crashed).
    if (auto i =
            first("SELECT id || ' due ' || belay_us(next_fire_at) FROM incident "
                  "WHERE org_id = $1 AND status = 'OPEN' AND belay_us(next_fire_at) < $2",
                  org_, now - overdue_after);
        !i.empty())
      return "incident " + i + " has an overdue step at " + std::to_string(now);
    // G6: nothing pending for ever: a PENDING page is due in the future or just due.
    if (auto d = first(
            "SELECT id || ' of incident ' || incident_id FROM delivery WHERE org_id = $1 "
            "AND status = 'PENDING' AND belay_us(next_attempt_at) < $2",
            org_, now - overdue_after);
        !d.empty())
      return "delivery " + d + " is PENDING long after it was due";
    // G8: every DEAD delivery has its dead letter.
    if (auto d = first(
            "SELECT d.id::text FROM delivery d WHERE d.org_id = $1 AND d.status = 'DEAD' "
            "AND NOT EXISTS (SELECT 1 FROM dead_letter l WHERE l.org_id = d.org_id "
            "AND l.delivery_id = d.id)",
            org_);
        !d.empty())
      return "delivery " + d + " is DEAD without a dead letter";
    return {};
  }

  std::mt19937_64 rng_;
  test::test_database db_;
  test::postgres_proxy pg_;
  test::http_sink sink_;
  int64_t org_ = 0;
  int generation_ = 0;
  micros lease_wait_until_ = 0;
  std::unique_ptr<test::test_node> node_;
  std::deque<std::string> history_;
  std::map<std::string, int> counts_;
};

} // namespace

TEST_CASE("simulation: random operations and faults never break a guarantee",
          "[simulation]") {
  const uint64_t ops = env_number("BELAY_SIM_OPS", 400);
  std::vector<uint64_t> seeds;
  if (auto one = env_number("BELAY_SIM_SEED", 0))
    seeds.push_back(one);
  else
    for (uint64_t i = 0, n = env_number("BELAY_SIM_SEEDS", 3); i < n; ++i)
      seeds.push_back(env_number("BELAY_SIM_FIRST_SEED", 1) + i);
  for (auto seed : seeds) {
    simulation sim{seed};
    auto broken = sim.run(ops);
    INFO("seed " << seed << " (replay: BELAY_SIM_SEED=" << seed << "), " << ops
                 << " operations: " << sim.summary());
    CHECK(broken == "");
    WARN("simulation seed " << seed << ": " << sim.summary());
  }
}
