// A randomized, deterministic simulation of one org's life, checked like a model checker
// (issues 16 and 41; FoundationDB's and TigerBeetle's simulation testing are the model):
// a seeded generator picks operations — triggers and duplicates, acks (some through
// another node, committed at once), resolves, an ack
// racing the next timer, hours of simulated time, webhook answers that succeed, fail,
// refuse for good or time out, replies of committed statements lost on the way back,
// every PostgreSQL connection reset, the database refusing connections for one operation,
// incident actors killed, the node restarted, replaced or restarted with its clock
// stepped, a storm's throttled, bundling contact paged by a quarter of the triggers
// and answering its bundles whole, alerts of grouping integrations that join their
// group's incident, resolve and fire again —
// against the real actors on the simulated clock and a real PostgreSQL. The
// client side journals every operation and its answer (simulation_journal.hpp); the sink
// reads the database the moment each page arrives. After every operation the invariants
// of simulation_invariants.hpp are checked against the database, the sink's requests and
// the journal (docs/guarantees.md#simulation). A failure prints the seed and every
// operation of the run; BELAY_SIM_SEED=<seed> replays exactly that run. CI runs seeds
// BELAY_SIM_FIRST_SEED (1) onwards, BELAY_SIM_SEEDS of them, each for BELAY_SIM_OPS
// operations; `scripts/test --soak N` runs N seeds from a random start. Each invariant
// has a planted-bug test below: one guard switched off (actors/test_hooks.hpp,
// storage/test_hooks.hpp), the same seeds must catch it.
#include "actors/test_hooks.hpp"
#include "protocol/answer_all.hpp"
#include "protocol/grouping.hpp"
#include "protocol/hash.hpp"
#include "simulation_invariants.hpp"
#include "storage/contacts.hpp"
#include "storage/incidents.hpp"
#include "storage/keys.hpp"
#include "storage/test_hooks.hpp"
#include "support/test_node.hpp"

#include <caf/send.hpp>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <sstream>

using namespace belay;
using namespace std::chrono_literals;

namespace {

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// test::ladder_org's org "acme" (policy "default" pages three steps, "looping" repeats
// two once), its channel "hook" a real local webhook whose answers the simulation
// scripts, with a short timeout so a stalled answer is a client timeout, failing over to
// "backup" (the same endpoint). And a storm's contact (docs/architecture.md#storms): the
// Slack channel "pager", at the same sink's own path, throttled to one message a minute
// and three in a quarter of an hour and bundling what waits, which policy "storm" pages
// at both its steps. And two integrations that group PagerDuty events by their source
// (docs/guarantees.md#alerts-and-grouping): "grouped" on policy "default",
// "grouped-storm" on "storm".
std::string simulation_org(const std::string& hook_url, const std::string& slack_url) {
  auto org = test::ladder_org(
      hook_url, R"(,"timeoutSeconds":0.2,"failoverTo":"backup"},
    {"name":"backup","type":"webhook","url":")" +
                    hook_url + R"(","secret":"s","timeoutSeconds":0.2},
    {"name":"pager","type":"slack","url":")" +
                    slack_url + R"(","timeoutSeconds":0.2,"bundle":true,"throttle":)" +
                    test::invariants::pager_throttle);
  const std::string policies = R"("policies":[)";
  org.replace(org.find(policies), policies.size(),
              policies + R"({"name":"storm","graceSeconds":300,"steps":[
        {"delaySeconds":0,"targets":[{"channel":"pager","to":"oncall"}]},
        {"delaySeconds":300,"targets":[{"channel":"pager","to":"oncall"}]}]},)");
  const std::string integrations = R"("integrations":[)";
  return org.replace(org.find(integrations), integrations.size(), integrations + R"(
      {"name":"grouped","type":"events","key":"grouped-key","policy":"default",
       "grouping":{"by":["payload.source"]}},
      {"name":"grouped-storm","type":"events","key":"grouped-storm-key","policy":"storm",
       "grouping":{"by":["payload.source"]}},)");
}

// The alerts the grouping integrations send: three sources, three alerts each, so that
// alerts join their group's incident, resolve, fire again and resolve it with the last.
struct grouped_source {
  const char* integration_key;
  const char* source;
};
constexpr grouped_source grouped_sources[] = {
    {"grouped-key", "db"}, {"grouped-key", "web"}, {"grouped-storm-key", "queue"}};
constexpr int alerts_per_source = 3;

struct simulation_options {
  // Lets a planted-bug test change the node (e.g. turn the orphan sweep off too).
  std::function<void(node_options&)> tune;
};

class simulation {
public:
  explicit simulation(uint64_t seed, simulation_options opts = {})
      : rng_(seed), storms_(~seed), alerts_(seed ^ 0x5eed'a1e7), opts_(std::move(opts)),
        invariants_(db_, sink_, journal_), senders_(1 + seed % 2) {
    db_.provision(simulation_org(sink_.url("/hook"), sink_.url("/slack")));
    org_ = db_.org_id("acme");
    // As ingest admits an integration key (http/keys.cpp): by its hash.
    for (auto& g : grouped_sources)
      integrations_.push_back(
          storage::find_integration(db_.sql(), sha256_hex(g.integration_key)).value());
    // unique_ptr::reset empties node_ before the old node goes: no request arrives then.
    invariants_.watch(org_, [this] { return node_ ? node_->now() : 0; });
    node_ = make_node(test::simulated_epoch);
  }

  // Runs `ops` random operations; returns "" or what broke, with every operation.
  std::string run(uint64_t ops) {
    for (uint64_t i = 0; i < ops; ++i) {
      step();
      if (auto broken = invariants_.check(node_->now(), quiet_until_); !broken.empty())
        return "after operation " + std::to_string(i + 1) + ": " + broken +
               "\noperations:\n" + journal_.listing();
    }
    return {};
  }

  std::string summary() {
    std::ostringstream s;
    for (auto& [name, n] : counts_)
      s << name << '=' << n << ' ';
    auto [pager, bundles] = invariants_.pager_requests();
    s << "pages=" << sink_.count() << " storm_contact=" << pager
      << " of_them_bundles=" << bundles
      << " acked_in_g4_window=" << invariants_.admitted_late_sends();
    return s.str();
  }

private:
  template <class T> T pick(T lo, T hi) {
    return std::uniform_int_distribution<T>{lo, hi}(rng_);
  }

  // The grouped alerts' and answers' own choices, from a stream of their own (as
  // storm_or's): the other operations of a seed draw what they drew before these came.
  template <class T> T pick_alerts(T lo, T hi) {
    return std::uniform_int_distribution<T>{lo, hi}(alerts_);
  }

  // A third of the triggers that would page the webhook page the storm's contact instead,
  // drawn from a stream of their own so that every other choice of a seed stays as it
  // was.
  std::string storm_or(const std::string& policy) {
    return std::uniform_int_distribution<int>{0, 2}(storms_) == 0 ? "storm" : policy;
  }

  void begin(const std::string& what) {
    ++counts_[what.substr(0, what.find(' '))];
    journal_.begin(node_->now(), what);
  }

  std::string node_name() const { return "sim-node-" + std::to_string(generation_); }

  // The node reaches PostgreSQL through the proxy; the checks read it directly.
  std::unique_ptr<test::test_node> make_node(micros at) {
    return std::make_unique<test::test_node>(db_, at, node_name(),
                                             [this](node_options& o) {
                                               o.database_url = pg_.url(db_);
                                               o.senders = senders_;
                                               if (opts_.tune)
                                                 opts_.tune(o);
                                             });
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
    if (roll < 28) {
      trigger(pick(0, 3) == 0 ? "looping" : storm_or("default"));
    } else if (roll < 37) {
      settle(transition::ack);
    } else if (roll < 40) {
      ack_racing_timer();
    } else if (roll < 42) {
      concurrent_burst();
    } else if (roll < 46) {
      settle(transition::resolve);
    } else if (roll < 49) {
      fire_alert();
    } else if (roll < 51) {
      resolve_alert();
    } else if (roll < 52) {
      answer_bundle();
    } else if (roll < 76) {
      auto seconds = pick(1, 400);
      begin("advance " + std::to_string(seconds) + "s");
      node_->advance(std::chrono::seconds{seconds});
    } else if (roll < 87) {
      script_endpoint();
    } else if (roll < 90) {
      kill_incident_actor();
    } else if (roll < 93) {
      restart_node(pick(0, 2));
    } else if (roll < 97) {
      lose_next_reply();
    } else if (roll < 99) {
      reset_database_connections();
    } else {
      database_down_for_one_operation();
    }
  }

  // Eight keys: most triggers after the first few are duplicates or reopen a resolved
  // key (G2).
  void trigger(const std::string& policy) {
    auto key = "key-" + std::to_string(pick(0, 7));
    begin("trigger " + key + " " + policy);
    invariants_.retriggered(key);
    const micros at = node_->now();
    try {
      auto r = node_->trigger(org_, key, policy);
      if (r.code != reply_code::ok) {
        journal_.answer("refused");
        return;
      }
      journal_.accepted(key, r.incident.id, r.created, at, policy);
      journal_.answer("incident " + std::to_string(r.incident.id) +
                      (r.created ? " (new)" : " (duplicate)"));
    } catch (const std::exception& e) {
      journal_.answer(std::string{"no answer: "} + e.what()); // the caller would retry
    }
  }

  void settle(transition t) {
    auto id = open_incident();
    if (!id)
      return;
    const bool ack = t == transition::ack;
    begin(std::string{ack ? "ack " : "resolve "} + std::to_string(id));
    journal_.may_settle(id, node_->now());
    try {
      auto r = ack ? node_->ack(org_, id, "sim") : node_->resolve(org_, id, "sim");
      journal_.answer(r.incident.status);
      if (r.code == reply_code::ok && r.incident.status != status_open &&
          r.incident.status != status_exhausted)
        invariants_.settled(journal_.entries().back().seq, id, r.incident.dedup_key);
    } catch (const std::exception& e) {
      journal_.answer(std::string{"no answer: "} + e.what());
    }
  }

  // An event of a grouping integration, made as ingest makes a PagerDuty trigger
  // (http/ingest.cpp): its key names the alert, its source the group, whose incident it
  // joins or opens. No retriggered(): an alert joining an acknowledged incident pages
  // nobody, so G4 by commit order holds for it as it stands.
  void fire_alert() {
    const int n = pick_alerts(
        0, static_cast<int>(std::size(grouped_sources)) * alerts_per_source - 1);
    auto& g = grouped_sources[n / alerts_per_source];
    auto& integration = integrations_[n / alerts_per_source];
    protocol::pd_event ev;
    ev.dedup_key = std::string{g.source} + "-" + std::to_string(n % alerts_per_source);
    ev.summary = "alert " + ev.dedup_key;
    ev.source = g.source;
    ev.severity = pick_alerts(0, 1) == 0 ? "error" : "critical";
    trigger_command cmd{org_,
                        ev.dedup_key,
                        ev.summary,
                        ev.severity,
                        integration.policy,
                        ev.details_json,
                        ev.payload_json,
                        integration.shadow,
                        "events",
                        integration.name};
    protocol::group_alert(cmd, integration.name, integration.group_by, ev);
    begin("alert " + cmd.alert_key + " of " + cmd.dedup_key + " " + cmd.policy);
    const micros at = node_->now();
    try {
      auto r = node_->trigger(cmd);
      if (r.code != reply_code::ok) {
        journal_.answer("refused");
        return;
      }
      journal_.accepted(cmd.dedup_key, r.incident.id, r.created, at, cmd.policy);
      journal_.accepted_alert(cmd.alert_key, r.incident.id);
      journal_.answer("incident " + std::to_string(r.incident.id) +
                      (r.created   ? " (new)"
                       : r.grouped ? " (joined)"
                                   : " (firing)"));
    } catch (const std::exception& e) {
      journal_.answer(std::string{"no answer: "} + e.what());
    }
  }

  // A PagerDuty resolve of one firing alert by its key, as ingest sends it: its incident
  // resolves with its last firing alert.
  void resolve_alert() {
    auto firing = db_.sql().query(
        "SELECT a.key, a.incident_id, i.firing_count FROM alert a JOIN incident i ON "
        "i.org_id = a.org_id AND i.id = a.incident_id WHERE a.org_id = $1 AND a.status "
        "= 'FIRING' ORDER BY a.key",
        org_);
    if (firing.rows() == 0)
      return;
    const int row = pick_alerts(0, firing.rows() - 1);
    const auto key = firing.str(row, 0);
    const auto id = firing.int64(row, 1);
    begin("alert-resolve " + key + " of incident " + std::to_string(id));
    if (firing.int64(row, 2) == 1)
      journal_.may_settle(id, node_->now());
    transition_command cmd{org_,        0,        key,         transition::resolve,
                           "pagerduty", "events", "pagerduty", true};
    try {
      auto r = node_->ask<transition_reply>(node_->n.registry, atom::transition_v, cmd);
      journal_.answer(r.incident.status + ", " + std::to_string(r.incident.firing_count) +
                      " firing");
      if (r.code == reply_code::ok && r.incident.status == status_resolved)
        invariants_.settled(journal_.entries().back().seq, r.incident.id,
                            r.incident.dedup_key);
    } catch (const std::exception& e) {
      journal_.answer(std::string{"no answer: "} + e.what());
    }
  }

  // The storm's contact answers one of its bundles whole — "Acknowledge all" or
  // "Resolve all" on the answer page — through protocol::answer_all, the code
  // http/answers.cpp answers the page, an SMS reply, a call and Slack's buttons with:
  // one transition through the registry per incident still open, as the bundle's person.
  void answer_bundle() {
    auto sent = db_.sql().query(
        "SELECT id FROM bundle WHERE org_id = $1 AND channel = 'pager' AND kind = 'page' "
        "AND status = 'SENT' ORDER BY id",
        org_);
    if (sent.rows() == 0)
      return;
    auto b =
        storage::load_bundle(db_.sql(), sent.int64(pick_alerts(0, sent.rows() - 1), 0));
    if (!b)
      return;
    const bool ack = pick_alerts(0, 1) == 0;
    begin(std::string{"answer-all "} + (ack ? "ack" : "resolve") + " of bundle " +
          std::to_string(b->id) + " (" + std::to_string(b->incidents.size()) +
          " incidents)");
    for (auto& incident : b->incidents)
      journal_.may_settle(incident.id, node_->now());
    const auto seq = journal_.entries().back().seq;
    std::string settled;
    auto send = [&](const transition_command& cmd) -> std::optional<transition_reply> {
      try {
        auto r = node_->ask<transition_reply>(node_->n.registry, atom::transition_v, cmd);
        if (r.code == reply_code::ok) {
          invariants_.settled(seq, r.incident.id, r.incident.dedup_key);
          settled += " " + std::to_string(r.incident.id);
        }
        return r;
      } catch (const std::exception&) {
        return std::nullopt;
      }
    };
    auto tally = protocol::answer_all(b->org_id, b->incidents,
                                      ack ? protocol::answer_action::acknowledge
                                          : protocol::answer_action::resolve,
                                      b->person, "link", std::nullopt, send);
    journal_.answer(protocol::answer_all_text(ack ? protocol::answer_action::acknowledge
                                                  : protocol::answer_action::resolve,
                                              tally, b->person) +
                    (settled.empty() ? "" : ":" + settled));
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
    const auto wait = due > clock.now() ? due - clock.now() : caf::timespan{0};
    begin("ack " + std::to_string(id) + " racing a timer " +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(wait).count()) +
          "s ahead");
    journal_.may_settle(id, node_->now());
    transition_command cmd{org_, id, {}, transition::ack, "sim"};
    node_->sys.spawn(
        [](caf::event_based_actor* self, caf::actor registry, transition_command c) {
          self->request(registry, caf::infinite, atom::transition_v, std::move(c))
              .then([](transition_reply&) {}, [](caf::error&) {});
        },
        caf::actor_cast<caf::actor>(node_->n.registry), std::move(cmd));
    node_->sched.advance_time(wait);
    node_->run();
  }

  // Several clients at once: triggers, acknowledges and resolves queued together, just
  // before the next timer when it is near, and run as the node's actors interleave them.
  void concurrent_burst() {
    auto& clock = node_->sched.clock();
    const micros before = node_->now();
    struct pending {
      std::string what, key, policy;
      int64_t incident = 0;
      std::shared_ptr<std::optional<trigger_reply>> triggered =
          std::make_shared<std::optional<trigger_reply>>();
      std::shared_ptr<std::optional<transition_reply>> settled =
          std::make_shared<std::optional<transition_reply>>();
    };
    std::vector<pending> ops(pick(2, 6));
    for (auto& op : ops) {
      auto id = pick(0, 2) == 0 ? open_incident() : 0;
      if (id) {
        const bool ack = pick(0, 3) != 0;
        op.incident = id;
        op.what = std::string{ack ? "ack " : "resolve "} + std::to_string(id);
        journal_.may_settle(id, before);
        send_transition(id, ack ? transition::ack : transition::resolve, op.settled);
      } else {
        // Half of them new keys: new incidents, whose first pages are claimed together.
        op.key = pick(0, 1) == 0 ? "key-" + std::to_string(pick(0, 7))
                                 : "burst-" + std::to_string(++bursts_);
        op.policy = pick(0, 3) == 0 ? "looping" : storm_or("default");
        op.what = "trigger " + op.key + " " + op.policy;
        invariants_.retriggered(op.key);
        trigger_command cmd;
        cmd.org_id = org_;
        cmd.dedup_key = op.key;
        cmd.title = "incident " + op.key;
        cmd.policy = op.policy;
        node_->sys.spawn(
            [out = op.triggered](caf::event_based_actor* self, caf::actor worker,
                                 trigger_command c) {
              self->request(worker, caf::infinite, atom::trigger_v, std::move(c))
                  .then([out](trigger_reply& x) { *out = std::move(x); },
                        [](caf::error&) {});
            },
            caf::actor_cast<caf::actor>(node_->n.triggers.worker_for(org_, op.key)),
            std::move(cmd));
      }
    }
    caf::timespan wait{0};
    if (clock.has_pending_timeout()) {
      const auto due = clock.schedule().begin()->first;
      if (due > clock.now() && due - clock.now() <= std::chrono::seconds{5})
        wait = due - clock.now();
    }
    begin("concurrently, " + std::to_string(ops.size()) + " operations " +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(wait).count()) +
          "s before a timer:");
    node_->sched.advance_time(wait);
    // A client acknowledges some of the new incidents as soon as it hears of them, while
    // their first pages are being claimed and sent.
    std::vector<pending> chasers;
    auto chase = [&](int64_t id, const std::string& why) {
      pending chaser;
      chaser.what = "ack " + std::to_string(id) + " " + why;
      chaser.incident = id;
      journal_.may_settle(id, before);
      send_transition(id, transition::ack, chaser.settled);
      chasers.push_back(std::move(chaser));
    };
    // And one acknowledges an incident whose claimed page waits for a sender, the moment
    // a send has started: through this node, or through another one, whose acknowledge
    // commits at once, while the page still waits (docs/guarantees.md#g4).
    bool chased_claim = pick(0, 1) == 0;
    auto sent = sink_.count();
    while (node_->sched.try_run_once()) {
      for (auto& op : ops)
        if (*op.triggered && (*op.triggered)->created && op.incident == 0) {
          op.incident = (*op.triggered)->incident.id;
          if (pick(0, 1) == 1)
            chase(op.incident, "as soon as created");
        }
      if (!chased_claim && sink_.count() > sent) {
        auto waiting = db_.sql().query(
            "SELECT d.incident_id FROM delivery d JOIN incident i ON i.org_id = d.org_id "
            "AND i.id = d.incident_id WHERE d.org_id = $1 AND d.status = 'CLAIMED' AND "
            "i.status = 'OPEN' ORDER BY d.id DESC LIMIT 1",
            org_);
        if (waiting.rows() == 1) {
          if (pick(0, 1) == 0)
            chase(waiting.int64(0, 0), "while its claimed page waits for a sender");
          else
            ack_elsewhere(waiting.int64(0, 0), before);
          chased_claim = true;
        }
        sent = sink_.count();
      }
    }
    node_->run();
    ops.insert(ops.end(), chasers.begin(), chasers.end());
    const micros after = node_->now();
    for (auto& op : ops) {
      journal_.begin(before, "  " + op.what);
      if (*op.triggered) {
        auto& r = **op.triggered;
        if (r.code == reply_code::ok)
          journal_.accepted(op.key, r.incident.id, r.created, after, op.policy);
        journal_.answer("incident " + std::to_string(r.incident.id) +
                        (r.created ? " (new)" : " (duplicate)"));
      } else if (*op.settled) {
        auto& r = **op.settled;
        journal_.answer(r.incident.status);
        if (r.code == reply_code::ok && (r.incident.status == status_acknowledged ||
                                         r.incident.status == status_resolved))
          invariants_.settled(journal_.entries().back().seq, op.incident,
                              r.incident.dedup_key);
      } else {
        journal_.answer("no answer");
      }
    }
  }

  // An acknowledge through another node, which holds no actor of the incident: it
  // commits in the database at once (storage::apply_transition, as the registry does),
  // and this node hears of it only by its effects.
  void ack_elsewhere(int64_t id, micros before) {
    journal_.begin(before, "  ack " + std::to_string(id) +
                               " through another node while its claimed page waits for "
                               "a sender");
    journal_.may_settle(id, before);
    try {
      auto r = storage::apply_transition(
          elsewhere(), transition_command{org_, id, {}, transition::ack, "sim"},
          node_->now());
      journal_.answer(r.incident.status);
      if (r.code == reply_code::ok)
        invariants_.settled(journal_.entries().back().seq, id, r.incident.dedup_key);
    } catch (const std::exception& e) {
      journal_.answer(std::string{"no answer: "} + e.what());
    }
  }
  storage::connection& elsewhere() {
    if (!elsewhere_)
      elsewhere_ = std::make_unique<storage::connection>(db_.url());
    return *elsewhere_;
  }

  void send_transition(int64_t id, transition t,
                       std::shared_ptr<std::optional<transition_reply>> out) {
    node_->sys.spawn(
        [out](caf::event_based_actor* self, caf::actor registry, transition_command c) {
          self->request(registry, caf::infinite, atom::transition_v, std::move(c))
              .then([out](transition_reply& x) { *out = std::move(x); },
                    [](caf::error&) {});
        },
        caf::actor_cast<caf::actor>(node_->n.registry),
        transition_command{org_, id, {}, t, "sim"});
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
    begin("endpoint " + what);
    sink_.set_default(answer);
  }

  // The next statement the node sends commits, and its reply is lost with the connection
  // (a trigger batch, a step, an outcome, a claim, an acknowledge: whichever comes
  // first). Then something writes: a trigger or an acknowledge.
  void lose_next_reply() {
    auto before = pg_.proxy.drops();
    begin("lose the next statement's reply");
    pg_.proxy.drop_reply_after(test::ends_statement);
    if (pick(0, 1) == 0)
      settle(transition::ack);
    else
      trigger("default");
    if (pg_.proxy.drops() > before)
      journal_.answer(journal_.entries().back().answer + " (a reply was lost)");
  }

  // Every connection to PostgreSQL drops at once (a restart, a failover); the node
  // reconnects on its next statement.
  void reset_database_connections() {
    begin("reset database connections");
    pg_.proxy.reset_all();
  }

  // PostgreSQL refuses connections while a trigger comes in (on a connection reset
  // first): it must not be answered 2xx unless written (G3).
  void database_down_for_one_operation() {
    begin("database down");
    pg_.proxy.reset_all();
    pg_.proxy.refuse(true);
    trigger("default");
    pg_.proxy.refuse(false);
  }

  // A crashed incident actor: its supervisor (the registry) must bring its ladder back.
  void kill_incident_actor() {
    auto id = open_incident();
    if (!id)
      return;
    begin("kill actor of " + std::to_string(id));
    try {
      auto holder = node_->ask<incident_actor>(node_->n.registry, atom::holder_v, id);
      caf::anon_send_exit(holder, caf::exit_reason::kill);
      node_->run();
    } catch (const std::exception& e) {
      journal_.answer(std::string{"none held: "} + e.what());
    }
  }

  // The node stops (everything in memory is lost) and starts again on the same database:
  // with the same identity (a restart), a new one (a replacement: the old node's
  // incidents wait for its lease to lapse), or the same with its wall clock stepped
  // forward or back (an NTP step across a restart).
  void restart_node(int how) {
    micros now = node_->now();
    std::string what = "restart node";
    if (how == 1) {
      ++generation_;
      quiet_until_ = now + test::invariants::slack;
      what = "replace node";
    } else if (how == 2) {
      const micros step = pick<micros>(-60, 300) * 1'000'000;
      now += step;
      quiet_until_ = std::max(quiet_until_, now + test::invariants::slack);
      what =
          "restart node with its clock stepped " + std::to_string(step / 1'000'000) + "s";
    }
    begin(what + " -> " + node_name());
    node_.reset();
    node_ = make_node(now);
    journal_.answer("adopted " + std::to_string(node_->adopt())); // as belay's main does
  }

  std::mt19937_64 rng_;
  std::mt19937_64 storms_;
  std::mt19937_64 alerts_;
  simulation_options opts_;
  test::test_database db_;
  test::postgres_proxy pg_;
  test::http_sink sink_;
  test::simulation_journal journal_;
  test::invariants invariants_;
  int64_t org_ = 0;
  int generation_ = 0;
  int bursts_ = 0;
  // One sender or two per channel, by seed: with one, claimed pages wait for it more
  // often, which is where an acknowledge can overtake them (docs/guarantees.md#g4).
  size_t senders_ = 1;
  micros quiet_until_ = 0; // until then steps may wait for a replaced node's lease
  std::unique_ptr<test::test_node> node_;
  std::unique_ptr<storage::connection> elsewhere_; // another node's, for its acknowledges
  std::vector<storage::integration_row> integrations_; // grouped_sources'
  std::map<std::string, int> counts_;
};

std::vector<uint64_t> ci_seeds() {
  std::vector<uint64_t> seeds;
  if (auto one = env_number("BELAY_SIM_SEED", 0))
    seeds.push_back(one);
  else
    for (uint64_t i = 0, n = env_number("BELAY_SIM_SEEDS", 3); i < n; ++i)
      seeds.push_back(env_number("BELAY_SIM_FIRST_SEED", 1) + i);
  return seeds;
}

uint64_t ci_ops() {
  return env_number("BELAY_SIM_OPS", 400);
}

// What the first CI seed that breaks an invariant says, or "".
std::string first_broken(simulation_options opts = {}) {
  for (auto seed : ci_seeds()) {
    simulation sim{seed, opts};
    auto broken = sim.run(ci_ops());
    if (!broken.empty())
      return "seed " + std::to_string(seed) + ": " + broken;
  }
  return {};
}

} // namespace

TEST_CASE("simulation: random operations and faults never break a guarantee",
          "[simulation]") {
  for (auto seed : ci_seeds()) {
    simulation sim{seed};
    auto broken = sim.run(ci_ops());
    INFO("seed " << seed << " (replay: BELAY_SIM_SEED=" << seed << "), " << ci_ops()
                 << " operations: " << sim.summary());
    CHECK(broken == "");
    WARN("simulation seed " << seed << ": " << sim.summary());
  }
}

TEST_CASE("simulation, planted bug: a page sent without its re-check is caught as sent "
          "after the acknowledge",
          "[simulation]") {
  test_hooks::skip_send_recheck = true;
  auto found = first_broken();
  test_hooks::skip_send_recheck = false;
  CHECK_THAT(found, Catch::Contains("started after its incident was acknowledged or "
                                    "resolved"));
  WARN(found.substr(0, found.find('\n')));
}

TEST_CASE("simulation, planted bug: a crashed incident actor left dead is caught as a "
          "step that never fired",
          "[simulation]") {
  test_hooks::no_respawn = true;
  auto found = first_broken({[](node_options& o) { o.orphan_sweep_seconds = 0; }});
  test_hooks::no_respawn = false;
  CHECK_THAT(found, Catch::Contains("never fired"));
  WARN(found.substr(0, found.find('\n')));
}

TEST_CASE("simulation, planted bug: a throttle the channel ignores is caught as too many "
          "pages to the storm's contact",
          "[simulation]") {
  test_hooks::skip_throttle = true;
  auto found = first_broken();
  test_hooks::skip_throttle = false;
  CHECK_THAT(found, Catch::Contains("throttle: the storm's contact received"));
  WARN(found.substr(0, found.find('\n')));
}

TEST_CASE("simulation, planted bug: an incident left open when its last firing alert "
          "resolves is caught as an incident without a firing alert",
          "[simulation]") {
  test_hooks::keep_incident_after_last_alert = true;
  auto found = first_broken();
  test_hooks::keep_incident_after_last_alert = false;
  CHECK_THAT(found, Catch::Contains("is not resolved with none of its"));
  WARN(found.substr(0, found.find('\n')));
}
