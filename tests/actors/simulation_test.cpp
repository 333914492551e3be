// A randomized, deterministic simulation of one org's life, checked like a model checker
// (issues 16 and 41; FoundationDB's and TigerBeetle's simulation testing are the model):
// a seeded generator picks operations — triggers and duplicates, acks (some through
// another node, committed at once), resolves, an ack
// racing the next timer, hours of simulated time, webhook answers that succeed, fail,
// refuse for good or time out, replies of committed statements lost on the way back
// (a step's among them),
// every PostgreSQL connection reset, the database refusing connections for one operation,
// incident actors killed, the node restarted, replaced (some of the time killed with a
// page on the wire first) or restarted with its clock stepped, PostgreSQL stalling past
// request deadlines, senders and channel actors crashing with a page, storage workers
// crashing right before they write a batch's steps or outcomes, a second live node on
// the same database taking some of the triggers, acknowledges and resolves, a storm's
// throttled, bundling contact paged by a quarter of the triggers and answering its
// bundles whole, and alerts of grouping integrations that join their group's incident,
// resolve and fire again — against the real actors on the simulated clock and a real
// PostgreSQL. The client side journals every operation and its answer
// (simulation_journal.hpp); the sink reads the database the moment each page arrives.
// After every operation the invariants of simulation_invariants.hpp are checked against
// the database, the sink's requests and the journal (docs/guarantees.md#simulation).
// Each operation draws from generators of its own, seeded from the seed and its number,
// so a run can leave operations out and every other one chooses as it did. A failure is
// shrunk (ddmin, for BELAY_SIM_SHRINK_SECONDS, 120 by default, 0 = not at all) to a
// shorter list of operations that still breaks the same invariant, and prints the seed,
// that list and how to replay exactly it: BELAY_SIM_SEED=<seed> BELAY_SIM_ONLY=<i,j,k>
// (BELAY_SIM_SEED=<seed> alone replays the whole run). CI runs seeds
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

#include <atomic>
#include <caf/resumable.hpp>
#include <caf/scheduled_actor.hpp>
#include <caf/send.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string_view>

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
  // And the database, before the run (e.g. drop an index that is a second guard).
  std::function<void(test::test_database&)> prepare;
  // Acknowledges and resolves of single incidents go through another node, committed at
  // once, which the incidents' actors hear of only through their next compare-and-set.
  bool settle_elsewhere = false;
};

// Operation `op`'s own generator for `stream` (0: its choices, 1: storm_or's): leaving
// an operation out changes no other operation's draws, so a shrinker's candidate is the
// same run minus what it left out (apart from choices that read the database, such as
// which open incident to acknowledge). seed_seq's mixing is the standard's own.
std::mt19937_64 operation_rng(uint64_t seed, uint64_t op, uint32_t stream) {
  std::seed_seq mixed{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                      static_cast<uint32_t>(op), static_cast<uint32_t>(op >> 32), stream};
  return std::mt19937_64{mixed};
}

// A run that broke an invariant: what a shrinker needs of it and what it prints.
struct sim_failure {
  uint64_t seed = 0;
  uint64_t at = 0;           // the operation after which the check failed
  std::string invariant;     // invariants::broken(): which one
  std::string broken;        // what it said
  std::vector<uint64_t> ran; // the operations run (not skipped), up to `at`
  std::string listing;       // each of them with its journal lines
};

class simulation {
public:
  explicit simulation(uint64_t seed, simulation_options opts = {})
      : seed_(seed), opts_(std::move(opts)), invariants_(db_, sink_, journal_),
        senders_(1 + seed % 2) {
    db_.provision(simulation_org(sink_.url("/hook"), sink_.url("/slack")));
    org_ = db_.org_id("acme");
    if (opts_.prepare)
      opts_.prepare(db_);
    // As ingest admits an integration key (http/keys.cpp): by its hash.
    for (auto& g : grouped_sources)
      integrations_.push_back(
          storage::find_integration(db_.sql(), sha256_hex(g.integration_key)).value());
    // unique_ptr::reset empties node_ before the old node goes: no request arrives then.
    invariants_.watch(org_, [this] {
      return other_running_ && other_ ? other_->now() : node_ ? node_->now() : 0;
    });
    node_ = make_node(test::simulated_epoch);
  }

  // Runs random operations 1 to `ops` but those in `skip` (neither run nor journalled),
  // until one breaks an invariant: then returns how.
  const std::optional<sim_failure>& run(uint64_t ops,
                                        const std::set<uint64_t>& skip = {}) {
    for (uint64_t op = 1; op <= ops; ++op) {
      if (skip.count(op))
        continue;
      rng_ = operation_rng(seed_, op, 0);
      storms_ = operation_rng(seed_, op, 1);
      alerts_ = operation_rng(seed_, op, 2);
      work_ = operation_rng(seed_, op, 3);
      ran_.push_back({op, journal_.entries().size(), 0});
      step();
      keep_other_in_step();
      ran_.back().journal_end = journal_.entries().size();
      if (auto broken = invariants_.check(node_->now(), quiet_until_); !broken.empty()) {
        failure_ = {seed_, op, invariants_.broken(), broken, {}, operation_listing()};
        for (auto& r : ran_)
          failure_->ran.push_back(r.op);
        break;
      }
    }
    return failure_;
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
  // An operation that ran, and the journal entries [journal_begin, journal_end) it made.
  struct ran_operation {
    uint64_t op;
    size_t journal_begin, journal_end;
  };

  // The operations run so far, each numbered, under it the journal lines it made.
  std::string operation_listing() const {
    std::string out;
    for (auto& r : ran_) {
      out += "  operation " + std::to_string(r.op) + ":";
      if (r.journal_begin == r.journal_end)
        out += " (nothing to act on)";
      out += "\n";
      for (size_t e = r.journal_begin; e < r.journal_end; ++e)
        out += "    " + test::simulation_journal::line(journal_.entries()[e]) + "\n";
    }
    return out;
  }

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
    } else if (roll < 69) {
      auto seconds = pick(1, 400);
      begin("advance " + std::to_string(seconds) + "s");
      advance_nodes(std::chrono::seconds{seconds});
    } else if (roll < 70) {
      storage_worker_crash();
    } else if (roll < 76) {
      stall_crash_or_other_node();
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
      auto r = opts_.settle_elsewhere
                   ? storage::apply_transition(elsewhere(),
                                               transition_command{org_, id, {}, t, "sim"},
                                               node_->now())
               : ack ? node_->ack(org_, id, "sim")
                     : node_->resolve(org_, id, "sim");
      journal_.answer(r.incident.status);
      if (r.code == reply_code::ok && r.incident.status != status_open &&
          r.incident.status != status_exhausted)
        invariants_.settled(journal_.entries().back().seq, id, r.incident.dedup_key);
    } catch (const std::exception& e) {
      journal_.answer(std::string{"no answer: "} + e.what());
    }
    if (ack)
      work_on(id);
  }

  template <class T> T pick_work(T lo, T hi) {
    return std::uniform_int_distribution<T>{lo, hi}(work_);
  }

  // Working an incident (docs/guarantees.md#working-an-incident) after an acknowledge,
  // drawn from a stream of its own so that a seed's other choices stay as they were: a
  // third of them snooze it for 1 to 30 minutes (its ladder starts again from step 1 at
  // the end, in a round of its own), a sixth escalate it (paging again from its next
  // step, each step once).
  void work_on(int64_t id) {
    auto roll = pick_work(0, 5);
    if (roll > 2)
      return;
    incident_action a;
    a.org_id = org_;
    a.incident_id = id;
    a.who = {"sim", "api", ""};
    if (roll < 2) {
      auto seconds = pick_work(60, 1800);
      a.verb = incident_verb::snooze;
      a.until = node_->now() + seconds * 1'000'000LL;
      begin("snooze " + std::to_string(id) + " " + std::to_string(seconds) + "s");
    } else {
      a.verb = incident_verb::escalate;
      begin("escalate " + std::to_string(id));
    }
    try {
      auto r = node_->act(a);
      journal_.answer(r.code == reply_code::ok ? r.held.incident.status
                      : r.error.empty()        ? "refused"
                                               : r.error);
      if (r.code == reply_code::ok && a.verb == incident_verb::escalate)
        invariants_.reopened(id);
    } catch (const std::exception& e) {
      // The action may have committed: an escalate may page again.
      journal_.answer(std::string{"no answer: "} + e.what());
      if (a.verb == incident_verb::escalate)
        invariants_.reopened(id);
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
    std::vector<pending> ops(pick(2, 6));
    for (auto& op : ops) {
      auto id = pick(0, 2) == 0 ? open_incident() : 0;
      if (id) {
        settle_pending(*node_, op, id, pick(0, 3) != 0, before);
      } else {
        // Half of them new keys: new incidents, whose first pages are claimed together.
        op.key = pick(0, 1) == 0 ? "key-" + std::to_string(pick(0, 7))
                                 : "burst-" + std::to_string(++bursts_);
        op.policy = pick(0, 3) == 0 ? "looping" : storm_or("default");
        op.what = "trigger " + op.key + " " + op.policy;
        send_trigger(*node_, op);
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
    journal_answers(ops, before, node_->now());
  }

  // An operation queued without waiting for its answer: a trigger of `key` on `policy`,
  // or an acknowledge or resolve of `incident`.
  struct pending {
    std::string what, key, policy;
    int64_t incident = 0;
    std::shared_ptr<std::optional<trigger_reply>> triggered =
        std::make_shared<std::optional<trigger_reply>>();
    std::shared_ptr<std::optional<transition_reply>> settled =
        std::make_shared<std::optional<transition_reply>>();
  };

  // Queues the trigger of `op` at `via`'s trigger lane; its answer lands in the op.
  void send_trigger(test::test_node& via, pending& op) {
    invariants_.retriggered(op.key);
    trigger_command cmd;
    cmd.org_id = org_;
    cmd.dedup_key = op.key;
    cmd.title = "incident " + op.key;
    cmd.policy = op.policy;
    via.sys.spawn(
        [out = op.triggered](caf::event_based_actor* self, caf::actor worker,
                             trigger_command c) {
          self->request(worker, caf::infinite, atom::trigger_v, std::move(c))
              .then([out](trigger_reply& x) { *out = std::move(x); }, [](caf::error&) {});
        },
        caf::actor_cast<caf::actor>(via.n.triggers.worker_for(org_, op.key)),
        std::move(cmd));
  }

  // Journals what each queued operation was answered, as issued at `before`; a trigger
  // answered 2xx counts as accepted at `after`, when the client heard of it.
  void journal_answers(const std::vector<pending>& ops, micros before, micros after) {
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

  // One of several operations queued together: an acknowledge (or resolve) of `id`
  // through `via`, its answer left in `op`.
  void settle_pending(test::test_node& via, pending& op, int64_t id, bool ack,
                      micros before) {
    op.incident = id;
    op.what = std::string{ack ? "ack " : "resolve "} + std::to_string(id);
    journal_.may_settle(id, before);
    send_transition(via, id, ack ? transition::ack : transition::resolve, op.settled);
  }
  void send_transition(int64_t id, transition t,
                       std::shared_ptr<std::optional<transition_reply>> out) {
    send_transition(*node_, id, t, std::move(out));
  }
  void send_transition(test::test_node& via, int64_t id, transition t,
                       std::shared_ptr<std::optional<transition_reply>> out) {
    via.sys.spawn(
        [out](caf::event_based_actor* self, caf::actor registry, transition_command c) {
          self->request(registry, caf::infinite, atom::transition_v, std::move(c))
              .then([out](transition_reply& x) { *out = std::move(x); },
                    [](caf::error&) {});
        },
        caf::actor_cast<caf::actor>(via.n.registry),
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
  // first). Then something writes: a trigger, an acknowledge, or this node's next step
  // (the clock runs on to a second before it first, so that its statement is the next
  // one, or one of the same instant's): its retry must not fire it again (G5).
  void lose_next_reply() {
    auto before = pg_.proxy.drops();
    const int then = pick(0, 2);
    const micros wait = then == 2 ? until_before_next_step() : 0;
    begin("lose the next statement's reply" +
          (then == 2 ? ", " + std::to_string(wait / 1'000'000) +
                           "s on: this node's next step, 2s on"
                     : std::string{}));
    advance_nodes(std::chrono::microseconds{wait});
    pg_.proxy.drop_reply_after(test::ends_statement);
    if (then == 0)
      settle(transition::ack);
    else if (then == 1)
      trigger("default");
    else
      advance_nodes(std::chrono::seconds{2});
    if (pg_.proxy.drops() > before)
      journal_.answer(journal_.entries().back().answer + " (a reply was lost)");
  }

  // How long until a second before this node's next step (its incidents' rows say when),
  // five minutes at most; 0 when that is now or past, or there is none.
  micros until_before_next_step() {
    auto next = db_.sql().query(
        "SELECT coalesce(min(belay_us(next_fire_at)), 0) FROM incident WHERE org_id = $1 "
        "AND owner = $2 AND status = 'OPEN'",
        org_, node_name());
    const micros at = std::min(next.int64(0, 0), node_->now() + 300'000'000);
    return std::max<micros>(at - node_->now() - 1'000'000, 0);
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
  // incidents wait for its lease to lapse; half the time the old node is killed with a
  // page on the wire first, kill_during_send), or the same with its wall clock stepped
  // forward or back (an NTP step across a restart).
  void restart_node(int how) {
    if (how == 1 && pick(0, 1) == 0)
      return kill_during_send();
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
    if (how == 2 && other_)
      other_leaves("stops: their clocks would differ");
    begin(what + " -> " + node_name());
    node_.reset();
    start_node(now);
  }

  void start_node(micros now) {
    node_ = make_node(now);
    journal_.answer("adopted " + std::to_string(node_->adopt())); // as belay's main does
  }

  // The node is killed in the middle of a send (its host lost) and replaced under a new
  // name: the page went out, its claim is still the dead node's, and nothing the node
  // held in memory reaches the database or the sink after it. No node returns that claim
  // as its own (storage::release_claims_of is a restart's, under the same name): it
  // outlives its holder until its lease (300 s) lapses and a poll releases it
  // (storage::release_expired_claims), and the page goes out again (at least once, G6).
  // Armed, with a trigger of a new key queued so that a step pages at once, then the
  // clock runs on until this node's sender has a page on the wire (five minutes at
  // most; a plain replacement if none). Only what was answered before the kill counts as
  // answered.
  void kill_during_send() {
    begin("sigkill of " + node_name() + " during a send:");
    const micros before = node_->now();
    std::vector<pending> ops(1);
    ops[0].key = "killed-" + std::to_string(++bursts_);
    ops[0].policy = storm_or("default");
    ops[0].what = "trigger " + ops[0].key + " " + ops[0].policy;
    send_trigger(*node_, ops[0]);
    auto killed = std::make_shared<std::string>();
    test_hooks::around_send = [this, killed](const std::string& key, bool sent) {
      if (!sent || !killed->empty() || other_running_)
        return;
      *killed = key;
      killed_ = true; // its scheduler runs nothing more (run_nodes)
    };
    for (int i = 0; i < 30 && killed->empty(); ++i)
      advance_nodes(std::chrono::seconds{10});
    journal_.answer(killed->empty() ? "no send" : "killed sending " + *killed);
    journal_answers(ops, before, node_->now());
    const micros now = node_->now();
    ++generation_;
    quiet_until_ = now + test::invariants::slack;
    begin("replace node -> " + node_name());
    // What the dead node's actors would still do as it is torn down goes nowhere: its
    // connections are cut and new ones refused, and its senders die before their calls.
    test_hooks::around_send = [](const std::string&, bool) {
      throw std::runtime_error("node killed (simulated)");
    };
    pg_.proxy.refuse(true);
    pg_.proxy.reset_all();
    node_.reset();
    test_hooks::around_send = nullptr;
    pg_.proxy.refuse(false);
    killed_ = false;
    start_node(now);
  }

  // Issue 41, item 10: PostgreSQL that stops answering, a sender or a channel that
  // crashes with a page, and a second live node (rolls 70..75 of step()).
  void stall_crash_or_other_node() {
    const int roll = pick(0, 5);
    if (roll < 2)
      database_stalls();
    else if (roll < 4)
      crash_while_paging(pick(0, 2));
    else
      through_other_node();
  }

  // The nodes up now: this one, and the other one if it has joined.
  std::vector<test::test_node*> live_nodes() {
    std::vector<test::test_node*> nodes{node_.get()};
    if (other_)
      nodes.push_back(other_.get());
    return nodes;
  }

  // Runs every node until it is idle. Their actors talk only through the database, so
  // one node's work never waits for the other's. The storage workers of `stalled`
  // nodes do not run: their jobs stay queued.
  void run_nodes(const std::set<test::test_node*>& stalled = {}) {
    for (auto* n : live_nodes()) {
      other_running_ = n == other_.get(); // its clock times what reaches the sink
      const bool storage_held = stalled.count(n) != 0;
      n->sched.run_jobs_filtered([this, n, storage_held](caf::resumable* job) {
        if (killed_ && n == node_.get())
          return false; // killed during a send (kill_during_send)
        auto* actor = dynamic_cast<caf::scheduled_actor*>(job);
        return !storage_held || !actor || std::string_view{actor->name()} != "storage";
      });
      other_running_ = false;
    }
  }

  // Moves every node's clock forward by `d` in step, firing each timer of either at its
  // own due time, in order (simulated_system::advance, for all of them at once).
  void advance_nodes(caf::timespan d, const std::set<test::test_node*>& stalled = {}) {
    const micros target =
        node_->now() + std::chrono::duration_cast<std::chrono::microseconds>(d).count();
    run_nodes(stalled);
    for (;;) {
      std::optional<micros> next;
      for (auto* n : live_nodes())
        if (n->sched.clock().has_pending_timeout()) {
          auto due = n->clock.at(n->sched.clock().schedule().begin()->first);
          next = std::min(next.value_or(due), due);
        }
      if (!next || *next > target)
        break;
      advance_each_to(*next);
      run_nodes(stalled);
    }
    advance_each_to(target);
    run_nodes(stalled);
  }
  void advance_each_to(micros at) {
    for (auto* n : live_nodes())
      n->sched.advance_time(
          std::chrono::microseconds{std::max<micros>(at - n->now(), 0)});
  }

  // The other node catches up with this one's clock after an operation that moved only
  // this one's (an acknowledge racing a timer, a burst).
  void keep_other_in_step() {
    if (!other_ || other_->now() >= node_->now())
      return;
    other_running_ = true;
    other_->advance(std::chrono::microseconds{node_->now() - other_->now()});
    other_running_ = false;
  }

  // PostgreSQL stops answering for a while — or, with the other node up, only this
  // node's path to it — then recovers. On the test scheduler a storage worker's
  // statement into a stalled connection would block the test thread itself, in real
  // time, for the whole reply timeout (35 s), with the simulated clock standing still;
  // so the stall is the storage workers' jobs held back while every other actor runs
  // and the clock moves on, which is what a production worker, blocked on its socket in
  // a thread of its own, does to the node. Meanwhile a trigger and an acknowledge may
  // arrive, steps and retries fall due, and every request's deadline (a timer on the
  // simulated clock, 35 s) may lapse: its caller retries while the request itself still
  // waits in the worker's mailbox, to commit once the database answers. A stall longer
  // than the reply timeout ends as that timeout ends it: the stalled connections closed,
  // and (half the time) the first statement sent afterwards committed with its reply
  // lost. Nothing accepted may be lost (G3), no step lost or doubled (G5), no page go
  // after its acknowledge (G4).
  void database_stalls() {
    const bool path_only = other_ && pick(0, 1) == 0;
    const int seconds = pick(1, 120);
    const bool past_reply_timeout = seconds > 35;
    begin(std::string{"stall of "} +
          (path_only ? "this node's path to the database" : "the database") + " for " +
          std::to_string(seconds) + "s" +
          (past_reply_timeout ? ", past the reply timeout:" : ":"));
    const micros before = node_->now();
    std::vector<pending> ops;
    if (pick(0, 1) == 0) {
      auto& op = ops.emplace_back();
      op.key = pick(0, 1) == 0 ? "key-" + std::to_string(pick(0, 7))
                               : "stall-" + std::to_string(++bursts_);
      op.policy = storm_or("default");
      op.what = "trigger " + op.key + " " + op.policy;
      send_trigger(*node_, op);
    }
    if (auto id = pick(0, 1) == 0 ? open_incident() : 0)
      settle_pending(*node_, ops.emplace_back(), id, true, before);
    std::set<test::test_node*> stalled{node_.get()};
    if (!path_only && other_)
      stalled.insert(other_.get());
    advance_nodes(std::chrono::seconds{seconds}, stalled);
    if (past_reply_timeout) {
      pg_.proxy.reset_all();
      if (!path_only && other_)
        other_pg_.proxy.reset_all();
      if (pick(0, 1) == 0)
        pg_.proxy.drop_reply_after(test::ends_statement);
    }
    run_nodes(); // the database answers again: what waited runs now
    journal_answers(ops, before, node_->now());
  }

  // A sender crashes holding a page — before the page went out, or after it went and
  // before the sender answered — or the channel actors are killed while a sender is in
  // the middle of a send (their replies then go nowhere). Armed, then the clock runs on
  // until a send meets it (five minutes at most). The dispatcher starts a dead channel
  // again, and its first claim returns what the old one held to the pool; the page must
  // still go out or settle (at least once, G6), and never after its acknowledge (G4).
  void crash_while_paging(int how) {
    static const char* const what[] = {
        "crash of a sender before its send",
        "crash of a sender after its send, before it answers",
        "crash of the channel actors during a send"};
    begin(what[how]);
    std::vector<channel_actor> channels;
    if (how == 2)
      channels =
          node_->ask<std::vector<channel_actor>>(node_->n.dispatcher, atom::children_v);
    auto crashed = std::make_shared<std::string>();
    test_hooks::around_send = [how, channels, crashed](const std::string& key,
                                                       bool sent) {
      if (!crashed->empty() || sent != (how == 1))
        return;
      *crashed = key;
      if (how < 2)
        throw std::runtime_error("sender crashed (simulated)");
      for (auto& ch : channels)
        caf::anon_send_exit(ch, caf::exit_reason::kill);
    };
    for (int i = 0; i < 30 && crashed->empty(); ++i)
      advance_nodes(std::chrono::seconds{10});
    test_hooks::around_send = nullptr;
    journal_.answer(crashed->empty() ? "no send" : "crashed sending " + *crashed);
  }

  // A storage worker hits a bug — an exception that is not a database error — right
  // before it writes a batched lane's statement, steps or outcomes
  // (test_hooks::before_storage_write): its batch is rolled back, its triggers are read
  // back and the rest run again on their own (docs/guarantees.md#nothing-waits-for-ever).
  // Armed for one write, with a trigger of a new key queued a second before this node's
  // next step falls due (up to five minutes on), so that the batch of that step may
  // carry the trigger too (which must not be answered unless written, G3); then the
  // clock runs on until a write meets it (five minutes at most).
  void storage_worker_crash() {
    const micros wait = until_before_next_step();
    begin("storage-worker crash before it writes steps or outcomes, " +
          std::to_string(wait / 1'000'000) + "s on:");
    advance_nodes(std::chrono::microseconds{wait});
    const micros before = node_->now();
    auto crashed = std::make_shared<std::string>();
    test_hooks::before_storage_write = [crashed](std::string_view lane) {
      if (!crashed->empty())
        return;
      *crashed = lane;
      throw std::runtime_error("storage worker crashed (simulated)");
    };
    std::vector<pending> ops(1);
    ops[0].key = "crash-" + std::to_string(++bursts_);
    ops[0].policy = storm_or("default");
    ops[0].what = "trigger " + ops[0].key + " " + ops[0].policy;
    send_trigger(*node_, ops[0]);
    node_->sched.advance_time(std::chrono::seconds{1});
    // The storage workers wait while the trigger and the step reach them, so that both
    // are in one batch.
    run_nodes({node_.get()});
    run_nodes();
    for (int i = 0; i < 30 && crashed->empty(); ++i)
      advance_nodes(std::chrono::seconds{10});
    test_hooks::before_storage_write = nullptr;
    journal_.answer(crashed->empty() ? "no write" : "crashed writing " + *crashed);
    journal_answers(ops, before, node_->now());
  }

  // A second node on the same database (an identity of its own, through a proxy of its
  // own), through which triggers, acknowledges and resolves go while this node holds
  // the incidents' actors: its registry holds only what the database gives it (an
  // incident it created, or one whose holder's lease lapsed), and its channels claim
  // from the same outbox. Both run on the test thread, so transactions still commit
  // one at a time (the invariants rely on it). It joins when first needed, leaves now
  // and then, and whenever this node restarts with its clock stepped (their clocks are
  // otherwise one).
  void through_other_node() {
    if (other_ && pick(0, 2) == 0)
      return other_leaves("stops");
    if (!other_) {
      ++other_generation_;
      begin("join of another node, " + other_name());
      other_ = std::make_unique<test::test_node>(db_, node_->now(), other_name(),
                                                 [this](node_options& o) {
                                                   o.database_url = other_pg_.url(db_);
                                                   o.senders = senders_;
                                                   if (opts_.tune)
                                                     opts_.tune(o);
                                                 });
      journal_.answer("adopted " + std::to_string(other_->adopt()));
    }
    const micros before = node_->now();
    std::vector<pending> ops(pick(1, 3));
    for (auto& op : ops) {
      auto id = pick(0, 1) == 0 ? open_incident() : 0;
      if (id) {
        settle_pending(*other_, op, id, pick(0, 2) != 0, before);
      } else {
        op.key = "key-" + std::to_string(pick(0, 7));
        op.policy = pick(0, 3) == 0 ? "looping" : storm_or("default");
        op.what = "trigger " + op.key + " " + op.policy;
        send_trigger(*other_, op);
      }
    }
    begin("through " + other_name() + ", " + std::to_string(ops.size()) + " operations:");
    run_nodes();
    journal_answers(ops, before, node_->now());
  }
  std::string other_name() const {
    return "sim-other-" + std::to_string(other_generation_);
  }

  // The other node stops: its incidents wait for its lease to lapse, then this node
  // takes them over; what its channels claimed returns to the pool when the claims
  // lapse.
  void other_leaves(const std::string& why) {
    begin("leave of " + other_name() + ": " + why);
    other_.reset();
  }

  uint64_t seed_;
  std::mt19937_64 rng_;    // the running operation's (operation_rng)
  std::mt19937_64 storms_; // and its storm_or's
  std::mt19937_64 alerts_; // and its alerts'
  std::mt19937_64 work_;   // and working an incident's (work_on)
  simulation_options opts_;
  test::test_database db_;
  test::postgres_proxy pg_;
  test::postgres_proxy other_pg_; // the other node's way to the database
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
  std::unique_ptr<test::test_node> other_;         // a second live node, while joined
  int other_generation_ = 0;
  bool other_running_ = false; // the other node's scheduler runs: its clock is the one
  bool killed_ = false;        // this node was killed during a send: it runs nothing
  std::vector<storage::integration_row> integrations_; // grouped_sources'
  std::map<std::string, int> counts_;
  std::vector<ran_operation> ran_;
  std::optional<sim_failure> failure_;
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

// BELAY_SIM_ONLY=<i,j,k>: the operations a shrunk failure printed, to run only them
// (sorted); empty when unset.
std::vector<uint64_t> only_operations() {
  std::set<uint64_t> ops;
  const char* v = std::getenv("BELAY_SIM_ONLY");
  std::istringstream in{v ? v : ""};
  for (std::string op; std::getline(in, op, ',');)
    if (auto n = std::strtoull(op.c_str(), nullptr, 10))
      ops.insert(n);
  return {ops.begin(), ops.end()};
}

// What simulation::run skips to run exactly `keep` (sorted), up to its last.
std::set<uint64_t> all_but(const std::vector<uint64_t>& keep) {
  std::set<uint64_t> skip;
  for (uint64_t op = 1, k = 0; !keep.empty() && op <= keep.back(); ++op)
    if (keep[k] == op)
      ++k;
    else
      skip.insert(op);
  return skip;
}

// `seed` with only the operations `keep`, on a fresh simulation (database, node, sink):
// how it broke, if it did.
std::optional<sim_failure> replay(uint64_t seed, const std::vector<uint64_t>& keep,
                                  const simulation_options& opts) {
  simulation sim{seed, opts};
  return sim.run(keep.empty() ? 0 : keep.back(), all_but(keep));
}

std::string replay_command(const sim_failure& f) {
  std::string ops;
  for (auto op : f.ran)
    ops += (ops.empty() ? "" : ",") + std::to_string(op);
  return "BELAY_SIM_SEED=" + std::to_string(f.seed) + " BELAY_SIM_ONLY=" + ops +
         " scripts/test -R 'simulation: random'";
}

struct shrunk {
  sim_failure smallest; // the shortest list found that breaks the same invariant
  size_t original = 0;  // how many operations the failing run ran
  int runs = 0;         // candidates replayed
  long long seconds = 0;
  bool minimal = false; // a whole pass over single operations left none out
};

// Delta debugging (Zeller's ddmin, as QuickCheck and Hypothesis shrink): leave out each
// chunk of half the operations, then of a quarter, ... then single ones, passes over
// single operations repeating until one leaves none out, or until `budget` is spent (a
// candidate under way finishes). Each candidate is a fresh simulation of the same seed;
// it is kept when it breaks the same invariant, after whichever operation (cut there).
shrunk shrink(const sim_failure& failed, const simulation_options& opts,
              std::chrono::seconds budget) {
  const auto start = std::chrono::steady_clock::now();
  auto in_time = [&] { return std::chrono::steady_clock::now() - start < budget; };
  shrunk out{failed, failed.ran.size()};
  auto& ops = out.smallest.ran;
  for (size_t chunk = std::max<size_t>(ops.size() / 2, 1); ops.size() > 1 && in_time();
       chunk = std::max<size_t>(chunk / 2, 1)) {
    bool left_out = false;
    size_t from = 0;
    for (; from < ops.size() && in_time(); ++out.runs) {
      auto candidate = ops;
      candidate.erase(candidate.begin() + from,
                      candidate.begin() + std::min(from + chunk, candidate.size()));
      auto f = replay(failed.seed, candidate, opts);
      if (f && f->invariant == failed.invariant) {
        out.smallest = std::move(*f);
        left_out = true;
      } else {
        from += chunk;
      }
    }
    if (chunk == 1 && !left_out && from >= ops.size()) {
      out.minimal = true;
      break;
    }
  }
  out.minimal = out.minimal || ops.size() == 1;
  out.seconds = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  return out;
}

// What a failure prints: the seed, what broke, and the shortest list of operations
// shrink() found within BELAY_SIM_SHRINK_SECONDS (every operation when that is 0),
// each with its journal lines, and how to replay exactly it.
std::string failure_report(const sim_failure& failed, const simulation_options& opts) {
  const auto seed = std::to_string(failed.seed);
  std::string out = "seed " + seed + ", after operation " + std::to_string(failed.at) +
                    ": " + failed.invariant + " broke: " + failed.broken + "\n";
  const auto budget = env_number("BELAY_SIM_SHRINK_SECONDS", 120);
  if (budget == 0)
    return out + "operations (not shrunk: BELAY_SIM_SHRINK_SECONDS=0):\n" +
           failed.listing + "replay: " + replay_command(failed) + "\n";
  auto s = shrink(failed, opts, std::chrono::seconds{budget});
  out += "shrunk from " + std::to_string(s.original) + " operations to " +
         std::to_string(s.smallest.ran.size()) + " in " + std::to_string(s.runs) +
         " replays, " + std::to_string(s.seconds) + " s (" +
         (s.minimal ? "none of them can be left out"
                    : "stopped by BELAY_SIM_SHRINK_SECONDS: replaying them shrinks on") +
         "), which break it too, after operation " + std::to_string(s.smallest.at) +
         ": " + s.smallest.broken + "\n" + s.smallest.listing +
         "replay exactly these: " + replay_command(s.smallest) +
         "\nevery operation of the run: BELAY_SIM_SEED=" + seed +
         " BELAY_SIM_SHRINK_SECONDS=0 scripts/test -R 'simulation: random'\n";
  return out;
}

// The first CI seed's failure, or none.
std::optional<sim_failure> first_failure(const simulation_options& opts = {}) {
  for (auto seed : ci_seeds()) {
    simulation sim{seed, opts};
    if (auto failed = sim.run(ci_ops()))
      return failed;
  }
  return std::nullopt;
}

// What the first CI seed that breaks an invariant says, or "".
std::string first_broken(simulation_options opts = {}) {
  auto f = first_failure(opts);
  return f ? "seed " + std::to_string(f->seed) + ": after operation " +
                 std::to_string(f->at) + ": " + f->broken + "\noperations:\n" + f->listing
           : "";
}

// A planted bug — one guard switched off — must be caught within the CI seeds: the first
// seed that breaks an invariant must say `expected`. Shows that failure's first line.
void check_caught(std::atomic<bool>& guard_off, const std::string& expected,
                  simulation_options opts = {}) {
  guard_off = true;
  auto found = first_broken(std::move(opts));
  guard_off = false;
  CHECK_THAT(found, Catch::Contains(expected));
  WARN(found.substr(0, found.find('\n')));
}

} // namespace

TEST_CASE("simulation: random operations and faults never break a guarantee",
          "[simulation]") {
  const auto only = only_operations();
  for (auto seed : ci_seeds()) {
    std::optional<sim_failure> failed;
    std::string summary;
    { // gone before shrinking replays the seed on simulations of its own
      simulation sim{seed};
      failed = sim.run(only.empty() ? ci_ops() : only.back(), all_but(only));
      summary = sim.summary();
    }
    INFO("seed " << seed << ", " << ci_ops() << " operations: " << summary);
    WARN("simulation seed " << seed << ": " << summary);
    if (failed) {
      WARN("seed " << seed << ": " << failed->invariant << " broke after operation "
                   << failed->at << "; shrinking");
      FAIL_CHECK(failure_report(*failed, {}));
    }
  }
}

TEST_CASE("simulation, planted bug: a page sent without its re-check is caught as sent "
          "after the acknowledge",
          "[simulation]") {
  // One sender per channel: claimed pages then wait for it, which is where an
  // acknowledge overtakes them and where the missing re-check shows.
  check_caught(test_hooks::skip_send_recheck,
               "started after its incident was acknowledged or resolved",
               {[](node_options& o) { o.senders = 1; }, {}, false});
}

TEST_CASE("simulation, planted bug: a crashed incident actor left dead is caught as a "
          "step that never fired",
          "[simulation]") {
  check_caught(test_hooks::no_respawn, "never fired",
               {[](node_options& o) { o.orphan_sweep_seconds = 0; }, {}, false});
}

TEST_CASE("simulation, planted bug: a throttle the channel ignores is caught as too many "
          "pages to the storm's contact",
          "[simulation]") {
  check_caught(test_hooks::skip_throttle, "throttle: the storm's contact received");
}

TEST_CASE(
    "simulation, planted bug: a page whose sender crashed, taken as sent, is caught "
    "as SENT with no request at the sink",
    "[simulation]") {
  check_caught(test_hooks::sender_lost_as_sent, "its sink never received it");
}

TEST_CASE("simulation, shrinking: a planted bug's failure shrinks to fewer operations "
          "that, replayed, break the same invariant",
          "[simulation]") {
  test_hooks::skip_throttle = true;
  auto failed = first_failure();
  std::optional<shrunk> s;
  std::optional<sim_failure> again;
  if (failed) {
    s = shrink(*failed, {}, 60s); // its own budget: the test's cost stays bounded
    again = replay(failed->seed, s->smallest.ran, {});
  }
  test_hooks::skip_throttle = false;
  REQUIRE(failed);
  CHECK(s->smallest.ran.size() < failed->ran.size());
  REQUIRE(again);
  CHECK(again->invariant == failed->invariant);
  WARN("seed " << failed->seed << ": " << failed->invariant << " after "
               << failed->ran.size() << " operations, shrunk to "
               << s->smallest.ran.size() << " in " << s->runs << " replays, "
               << s->seconds << " s:\n"
               << s->smallest.listing << replay_command(s->smallest));
}

TEST_CASE("simulation, planted bug: an incident left open when its last firing alert "
          "resolves is caught as an incident without a firing alert",
          "[simulation]") {
  check_caught(test_hooks::keep_incident_after_last_alert,
               "is not resolved with none of its");
}

TEST_CASE(
    "simulation, planted bug: triggers of a batch that failed unseen, answered from "
    "their statement rather than read back, are caught as accepted events that do "
    "not exist",
    "[simulation]") {
  check_caught(test_hooks::trust_unknown_batch,
               "which the database does not hold for that key");
}

TEST_CASE("simulation, planted bug: a step that fires after an acknowledge its actor has "
          "not heard of is caught as a page written after the acknowledge",
          "[simulation]") {
  // Acknowledges through another node: the incident's actor fires its next step
  // without having heard of them, which only the compare-and-set stops.
  check_caught(test_hooks::step_ignores_settle, "was created after operation #",
               {nullptr, nullptr, true});
}

TEST_CASE("simulation, planted bug: a step retried after it committed unseen, firing "
          "again, is caught as a step fired twice",
          "[simulation]") {
  check_caught(test_hooks::step_fires_again, "fired 2 times");
}

TEST_CASE("simulation, planted bug: a duplicate that fires its incident's next step at "
          "once is caught as a step fired before it fell due",
          "[simulation]") {
  check_caught(test_hooks::duplicate_fires_now, "before it fell due");
}

TEST_CASE("simulation, planted bug: a snooze's end without a ladder round of its own is "
          "caught as a step that fired without its page",
          "[simulation]") {
  check_caught(test_hooks::snooze_end_keeps_round, "fired with 0 deliveries");
}

TEST_CASE("simulation, planted bug: an alert written without its alert row is caught as "
          "an accepted alert that does not exist",
          "[simulation]") {
  check_caught(test_hooks::alert_row_not_written, "which holds no alert of that key");
}

TEST_CASE("simulation, planted bug: a resolve that leaves its incident's firing count is "
          "caught as counts that do not match the alert rows",
          "[simulation]") {
  check_caught(test_hooks::resolve_keeps_firing_count, " firing, but has ");
}

TEST_CASE(
    "simulation, planted bug: an alert written without looking for the firing alert "
    "of its key, with the unique index gone too, is caught as two firing alerts of "
    "one key",
    "[simulation]") {
  check_caught(
      test_hooks::skip_firing_alert_lookup, "G1 for alerts: alert key",
      {nullptr,
       [](test::test_database& db) { db.sql().exec("DROP INDEX alert_firing_key"); },
       false});
}

TEST_CASE("simulation, planted bug: a dead letter written for every outcome is caught as "
          "a delivery not DEAD with a dead letter",
          "[simulation]") {
  check_caught(test_hooks::dead_letter_every_outcome, "dead letters");
}

TEST_CASE("simulation, planted bug: a crashed channel actor not started again is caught "
          "as pages left due long past their time",
          "[simulation]") {
  check_caught(test_hooks::no_channel_restart, "is PENDING, due since");
}

TEST_CASE("simulation, planted bug: lapsed claims never released are caught as a page "
          "CLAIMED long past its lease, by a node killed during its send",
          "[simulation]") {
  check_caught(test_hooks::keep_lapsed_claims, "is CLAIMED under a claim that");
}
