// The simulation's invariants (tests/actors/simulation_test.cpp,
// docs/guarantees.md#simulation), checked against three witnesses that do not share a
// fault: the database, the requests the webhook sink received, and the client's journal.
// Each is written so that the bug it guards against makes it fail; the planted-bug tests
// show that for each of them, with one guard of the product switched off
// (actors/test_hooks.hpp, storage/test_hooks.hpp).
#pragma once

#include "actors/test_hooks.hpp"
#include "simulation_journal.hpp"
#include "support/http_sink.hpp"
#include "support/policies.hpp"
#include "support/postgres_proxy.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace belay::test {

class invariants {
public:
  // The node polls channels and releases lapsed claims every 60 simulated seconds
  // (test_node), sweeps for orphans as often, and a replaced node's incidents wait for
  // its 30 s lease: a step or a retry later than this is overdue, not merely waiting for
  // its timer.
  static constexpr micros slack = 180'000'000;

  // The storm contact's throttle (simulation_test.cpp's channel "pager", at the sink's
  // /slack path): what the channel is given, and what the sink must see kept.
  static constexpr const char* pager_throttle =
      R"([{"count":1,"seconds":60},{"count":3,"seconds":900}])";
  struct throttle_window {
    size_t count;
    micros length;
  };
  static constexpr throttle_window pager_windows[] = {{1, 60'000'000}, {3, 900'000'000}};
  static constexpr const char* pager_path = "/slack";

  invariants(test_database& db, http_sink& sink, const simulation_journal& journal)
      : db_(db), sink_(sink), journal_(journal) {}

  // G4 by commit order, not by comparing timestamps, at three points of a page's way
  // out: when the claim or re-check that passed it answers the channel, when the channel
  // hands it to a sender (actors/test_hooks.hpp) and when its request arrives at the
  // sink. Every actor of the node runs on the test thread, and the sender is blocked in
  // that very send while the sink reads, so what is committed at each point was
  // committed before it. `node_now` is the node's simulated clock, which times the
  // requests at the sink for the throttle (the sink's own timestamps are wall-clock).
  void watch(int64_t org, std::function<micros()> node_now) {
    org_ = org;
    node_now_ = std::move(node_now);
    at_sink_ = std::make_unique<storage::connection>(db_.url());
    sink_.on_request([this](const recorded_request& r) { on_send(r); });
    test_hooks::on_page_checked = [this](const std::string& key) { on_checked(key); };
    test_hooks::on_page_handed_over = [this](const std::string& key) {
      on_handed_over(key);
    };
  }
  ~invariants() {
    test_hooks::on_page_checked = nullptr;
    test_hooks::on_page_handed_over = nullptr;
  }
  invariants(const invariants&) = delete;
  invariants& operator=(const invariants&) = delete;

  // Sends that started after their incident's acknowledge or resolve committed in the
  // instant docs/guarantees.md#g4 admits: between the check that passed the page and
  // its hand-over to a sender, or between that hand-over and the request's first byte.
  int admitted_late_sends() const { return admitted_; }

  // What reached the storm's contact: its requests, and how many of them were bundles.
  std::pair<size_t, size_t> pager_requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t bundles = 0;
    for (auto& a : pager_arrivals_)
      bundles += a.second.rfind(bundle_prefix, 0) == 0;
    return {pager_arrivals_.size(), bundles};
  }

  // An acknowledge or resolve of incident `id` (of `key`) was answered: the pages it has
  // now are all it may ever have, unless a trigger of the key reopens it (G4 by commit
  // order: what the answer saw committed, against what comes later).
  void settled(uint64_t seq, int64_t id, const std::string& key) {
    auto r =
        db_.sql().query("SELECT id FROM delivery WHERE org_id = $1 AND incident_id = "
                        "$2 AND failover_from IS NULL AND replay_of IS NULL",
                        org_, id);
    auto& s = settled_[id];
    s = {seq,
         key,
         {},
         db_.sql().query("SELECT restarts FROM incident WHERE id = $1", id).int64(0, 0)};
    for (int i = 0; i < r.rows(); ++i)
      s.pages.insert(r.int64(i, 0));
  }
  // An escalate reopened paging of incident `id` on purpose
  // (docs/guarantees.md#working-an-incident): new pages are due then. (A snooze's end
  // does so in a ladder round of its own, which no_page_after_settle tells apart.)
  void reopened(int64_t id) { settled_.erase(id); }
  // A trigger of `key` may reopen its resolved incident: new pages are due then.
  void retriggered(const std::string& key) {
    for (auto it = settled_.begin(); it != settled_.end();)
      it = it->second.key == key ? settled_.erase(it) : std::next(it);
  }

  // "" while every invariant holds; else the first one broken, whose name broken()
  // then says. `quiet_until`: steps and retries may wait for a replaced node's lease
  // until then.
  std::string check(micros now, micros quiet_until) {
    broken_ = {};
    auto broke = [this](const char* name, std::string broken) {
      if (!broken.empty())
        broken_ = name;
      return broken;
    };
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!late_sends_.empty())
        return broke("late_send", late_sends_.front());
    }
    load(now);
    struct named_check {
      const char* name;
      std::string (invariants::*check)();
    };
    for (auto [name, invariant] :
         {named_check{"accepted_events_exist", &invariants::accepted_events_exist},
          named_check{"no_page_after_settle", &invariants::no_page_after_settle},
          named_check{"sink_matches_rows", &invariants::sink_matches_rows},
          named_check{"throttle_holds", &invariants::throttle_holds},
          named_check{"steps_fire_once_with_their_deliveries",
                      &invariants::steps_fire_once_with_their_deliveries},
          named_check{"no_step_before_due", &invariants::no_step_before_due},
          named_check{"deliveries_settle", &invariants::deliveries_settle},
          named_check{"accepted_alerts_exist", &invariants::accepted_alerts_exist},
          named_check{"alerts_match_incidents", &invariants::alerts_match_incidents}})
      if (auto broken = broke(name, (this->*invariant)()); !broken.empty())
        return broken;
    if (now < quiet_until)
      return {};
    if (auto broken = broke("due_deliveries_move", due_deliveries_move(now));
        !broken.empty())
      return broken;
    return broke("due_steps_fired", due_steps_fired(now));
  }

  // Which invariant the last check() found broken (its function's name), or "": what a
  // shrinker compares, since the messages differ in their ids and times from run to run.
  const std::string& broken() const { return broken_; }

private:
  struct delivery_row {
    int64_t id, incident, loop, step;
    std::string status, key;
    micros next_attempt, claim_expires;
    bool first; // not a failover or a replay: what a step wrote
    int64_t dead_letters;
    int64_t bundle; // 0: none
    bool update;    // a status update, throttled on its own
    int64_t round;  // the ladder round its key names (":r<n>"): 0 until a snooze ended
  };
  struct bundle_row {
    std::string key, status;
    bool update;
  };
  struct settled_incident {
    uint64_t seq;
    std::string key;
    std::set<int64_t> pages; // its pages when the settle was answered
    int64_t round = 0;       // the ladder round it stood in (incident.restarts)
  };
  // incident, ladder round (a snooze's end begins a new one), loop, step
  using step_of = std::tuple<int64_t, int64_t, int64_t, int64_t>;
  struct incident_row {
    std::string key, status, policy;
    micros created;
    int64_t alert_count, firing_count; // as the incident counts its alerts
  };
  struct alert_row {
    int64_t incident;
    std::string key;
    bool firing;
  };

  static bool settles(const std::string& status) {
    return status == status_acknowledged || status == status_resolved;
  }

  // A page's incident as committed now: whether it is acknowledged or resolved, and
  // whether that happened before the page's last claim or re-check (the transaction that
  // last wrote the row) committed. Transaction ids are in commit order because no two
  // transactions overlap: every writer runs on the test thread — each node's storage
  // workers (the simulation's second node too: both schedulers run there, one job at a
  // time), and the other node's direct acknowledges — and a worker begins and commits
  // its transaction within one job (actors/storage_worker.cpp), so each commits before
  // the next one takes an id. A writer on a thread of its own would break this check.
  struct page_state {
    bool found = false, settled = false, settled_before_check = false;
    std::string delivery, incident, status;
  };
  static constexpr const char* page_state_sql =
      "SELECT d.id, i.id, i.status, coalesce((SELECT max(t.xmin::text::bigint) < "
      "d.xmin::text::bigint FROM timeline t WHERE t.org_id = i.org_id AND "
      "t.incident_id = i.id AND t.kind IN ('acknowledged', 'resolved')), false)::int "
      "FROM delivery d JOIN incident i ON i.org_id = d.org_id AND i.id = "
      "d.incident_id WHERE ";
  static std::vector<page_state> read_pages(const storage::result& r) {
    std::vector<page_state> pages;
    for (int i = 0; i < r.rows(); ++i)
      pages.push_back({true, settles(r.str(i, 2)),
                       settles(r.str(i, 2)) && r.int64(i, 3) == 1, r.str(i, 0),
                       r.str(i, 1), r.str(i, 2)});
    return pages;
  }
  static page_state read_page(storage::connection& c, const std::string& key) {
    auto pages =
        read_pages(c.query(std::string{page_state_sql} + "d.idempotency_key = $1", key));
    return pages.size() == 1 ? pages.front() : page_state{};
  }
  // The members a bundle is sending (CLAIMED; those its re-check took out are not), each
  // against the re-check that kept it, the transaction that last wrote its row.
  static std::vector<page_state> read_bundle_members(storage::connection& c,
                                                     const std::string& bundle_id) {
    return read_pages(c.query(std::string{page_state_sql} +
                                  "d.bundle_id = $1::bigint AND d.status = 'CLAIMED'",
                              bundle_id));
  }
  static std::string late_send(const page_state& p, const std::string& how) {
    return "G4: the send of delivery " + p.delivery +
           " started after its incident was acknowledged or resolved (" + p.incident +
           " was " + p.status + " " + how + ")";
  }

  // The claim or re-check that passed the page answered the channel: its incident must
  // have been open when it committed.
  void on_checked(const std::string& key) {
    auto p = read_page(db_.sql(), key);
    std::lock_guard<std::mutex> lock(mutex_);
    if (p.settled_before_check)
      late_sends_.push_back(late_send(p, "before the check that passed it committed"));
    checked_settled_[key] = p.settled;
  }

  // Handed to a sender: nothing may have been acknowledged since the check answered, or
  // the page waited between the two and was not checked again.
  void on_handed_over(const std::string& key) {
    auto p = read_page(db_.sql(), key);
    std::lock_guard<std::mutex> lock(mutex_);
    auto checked = checked_settled_.find(key);
    const bool settled_at_check = checked != checked_settled_.end() && checked->second;
    if (p.settled && !settled_at_check)
      late_sends_.push_back(late_send(
          p, "when it was handed to a sender: it waited after its check answered and "
             "was not checked again"));
    else if (p.settled)
      ++admitted_;
    handed_over_.insert(key);
    checked_settled_.erase(key);
  }

  // Arrived at the sink: acknowledged since the hand-over is the admitted instant; a
  // request no hand-over preceded is not.
  void on_send(const recorded_request& r) {
    auto key = r.header("Idempotency-Key");
    std::lock_guard<std::mutex> lock(mutex_);
    if (r.path == pager_path)
      pager_arrivals_.push_back({node_now_(), key});
    if (key.rfind(bundle_prefix, 0) == 0) {
      on_bundle_sent(key.substr(bundle_prefix.size()));
      return;
    }
    auto p = read_page(*at_sink_, key);
    const bool handed_over = handed_over_.erase(key) == 1;
    if (p.settled && !handed_over)
      late_sends_.push_back(late_send(p, "when the request arrived, with no hand-over"));
    else if (p.settled)
      ++admitted_;
  }

  // G4 for a bundle: each member still in it when it arrived was open when the re-check
  // that kept it committed (docs/architecture.md#storms: members settled meanwhile
  // leave it); one settled since is the admitted instant. Bundles have no hand-over hook:
  // the re-check's answer and the send are one step of the channel.
  void on_bundle_sent(const std::string& bundle_id) {
    for (auto& p : read_bundle_members(*at_sink_, bundle_id)) {
      if (p.settled_before_check)
        late_sends_.push_back(late_send(p, "in bundle " + bundle_id +
                                               ", before the re-check that kept it "
                                               "committed"));
      else if (p.settled)
        ++admitted_;
    }
  }

  void load(micros now) {
    auto& sql = db_.sql();
    incidents_.clear();
    auto i = sql.query("SELECT id, dedup_key, status, policy, belay_us(created_at), "
                       "alert_count, firing_count FROM incident WHERE org_id = $1",
                       org_);
    for (int r = 0; r < i.rows(); ++r)
      incidents_[i.int64(r, 0)] = {i.str(r, 1),   i.str(r, 2),   i.str(r, 3),
                                   i.int64(r, 4), i.int64(r, 5), i.int64(r, 6)};
    alerts_.clear();
    auto a = sql.query("SELECT incident_id, key, (status = 'FIRING')::int FROM alert "
                       "WHERE org_id = $1 ORDER BY id",
                       org_);
    for (int r = 0; r < a.rows(); ++r)
      alerts_.push_back({a.int64(r, 0), a.str(r, 1), a.int64(r, 2) == 1});
    deliveries_.clear();
    auto d = sql.query(
        "SELECT d.id, d.incident_id, d.loop, d.step, d.status, d.idempotency_key, "
        "coalesce(belay_us(d.next_attempt_at), $2), "
        "coalesce(belay_us(d.claim_expires_at), $2), "
        "(d.failover_from IS NULL AND d.replay_of IS NULL)::int, "
        "(SELECT count(*) FROM dead_letter l WHERE l.org_id = d.org_id "
        "AND l.delivery_id = d.id), coalesce(d.bundle_id, 0), "
        "(d.update_of IS NOT NULL)::int, "
        "coalesce(substring(d.idempotency_key from ':r([0-9]+)$')::bigint, 0) "
        "FROM delivery d WHERE d.org_id = $1 ORDER BY d.id",
        org_, now);
    for (int r = 0; r < d.rows(); ++r)
      deliveries_.push_back({d.int64(r, 0), d.int64(r, 1), d.int64(r, 2), d.int64(r, 3),
                             d.str(r, 4), d.str(r, 5), d.int64(r, 6), d.int64(r, 7),
                             d.int64(r, 8) == 1, d.int64(r, 9), d.int64(r, 10),
                             d.int64(r, 11) == 1, d.int64(r, 12)});
    bundles_.clear();
    auto b = sql.query("SELECT id, idempotency_key, status, (kind = 'update')::int "
                       "FROM bundle WHERE org_id = $1",
                       org_);
    for (int r = 0; r < b.rows(); ++r)
      bundles_[b.int64(r, 0)] = {b.str(r, 1), b.str(r, 2), b.int64(r, 3) == 1};
    fired_.clear();
    first_fired_.clear();
    auto t =
        sql.query("SELECT incident_id, (SELECT count(*) FROM timeline e WHERE "
                  "e.org_id = t.org_id AND e.incident_id = t.incident_id AND e.kind = "
                  "'snooze_ended' AND e.seq < t.seq), (detail->>'loop')::bigint, "
                  "(detail->>'step')::bigint, count(*), min(belay_us(at)) FROM "
                  "timeline t WHERE org_id = $1 AND kind = 'step_fired' "
                  "GROUP BY 1, 2, 3, 4",
                  org_);
    for (int r = 0; r < t.rows(); ++r) {
      step_of step{t.int64(r, 0), t.int64(r, 1), t.int64(r, 2), t.int64(r, 3)};
      fired_[step] = t.int64(r, 4);
      first_fired_[step] = t.int64(r, 5);
    }
    escalated_.clear();
    auto e = sql.query("SELECT DISTINCT incident_id FROM timeline WHERE org_id = $1 AND "
                       "kind = 'escalated'",
                       org_);
    for (int r = 0; r < e.rows(); ++r)
      escalated_.insert(e.int64(r, 0));
  }

  // G3: every event answered 2xx exists, in the incident it was answered with.
  std::string accepted_events_exist() {
    for (auto& e : journal_.events()) {
      auto it = incidents_.find(e.incident);
      if (it == incidents_.end() || it->second.key != e.key)
        return "G3: operation #" + std::to_string(e.seq) + "'s event " + e.key +
               " was answered with incident " + std::to_string(e.incident) +
               ", which the database does not hold for that key";
    }
    return {};
  }

  // G4: no step writes a page after the acknowledge or resolve answered before it.
  std::string no_page_after_settle() {
    for (auto& d : deliveries_) {
      auto it = settled_.find(d.incident);
      if (d.first && it != settled_.end() && d.round <= it->second.round &&
          !it->second.pages.count(d.id))
        return "G4: delivery " + std::to_string(d.id) + " (step " +
               std::to_string(d.step) + " loop " + std::to_string(d.loop) +
               ") was created after operation #" + std::to_string(it->second.seq) +
               " acknowledged or resolved incident " + std::to_string(d.incident);
    }
    return {};
  }

  // Every SENT row has a request at the sink — its own, or its one bundle's, which is
  // SENT too — and every request at the sink a row: a delivery's or a bundle's. A page
  // that went alone and failed may go again inside a bundle (at least once, G6).
  std::string sink_matches_rows() {
    std::set<std::string> received;
    for (auto& r : sink_.requests())
      received.insert(r.header("Idempotency-Key"));
    std::set<std::string> written;
    for (auto& [id, b] : bundles_)
      written.insert(b.key);
    for (auto& d : deliveries_) {
      written.insert(d.key);
      if (d.status != "SENT")
        continue;
      if (!d.bundle) {
        if (!received.count(d.key))
          return "delivery " + std::to_string(d.id) +
                 " is SENT but its sink never received it";
        continue;
      }
      auto b = bundles_.find(d.bundle);
      if (b == bundles_.end() || b->second.status != "SENT" ||
          !received.count(b->second.key))
        return "delivery " + std::to_string(d.id) + " is SENT in bundle " +
               std::to_string(d.bundle) + ", which " +
               (b == bundles_.end() ? std::string{"does not exist"}
                                    : "is " + b->second.status +
                                          (received.count(b->second.key)
                                               ? ""
                                               : " and its sink never received it"));
    }
    for (auto& key : received)
      if (!written.count(key))
        return "the sink received " + key + ", which no delivery or bundle row holds";
    return {};
  }

  // The storm's contact never received more pages in a window than its throttle lets
  // through: its requests by the node's clock at arrival, retries and bundles each one
  // message, status updates (throttled on their own) aside. Counted by request, not by
  // claim, so that a throttle the claim keeps but the send does not is caught too.
  std::string throttle_holds() {
    std::set<std::string> updates;
    for (auto& d : deliveries_)
      if (d.update)
        updates.insert(d.key);
    for (auto& [id, b] : bundles_)
      if (b.update)
        updates.insert(b.key);
    std::vector<std::pair<micros, std::string>> pages;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& a : pager_arrivals_)
        if (!updates.count(a.second))
          pages.push_back(a);
    }
    std::stable_sort(pages.begin(), pages.end(),
                     [](auto& a, auto& b) { return a.first < b.first; });
    for (auto& w : pager_windows)
      for (size_t i = 0; i + w.count < pages.size(); ++i)
        if (pages[i + w.count].first - pages[i].first < w.length)
          return "throttle: the storm's contact received " + std::to_string(w.count + 1) +
                 " pages within " + std::to_string(w.length / 1'000'000) +
                 " s, more than its " + std::to_string(w.count) + " (" + pages[i].second +
                 " at " + std::to_string(pages[i].first) + " .. " +
                 pages[i + w.count].second + " at " +
                 std::to_string(pages[i + w.count].first) + ")";
    return {};
  }

  // G5/G6: a step fires at most once per loop, writes its deliveries in the same
  // statement, and every delivery belongs to a step that fired.
  std::string steps_fire_once_with_their_deliveries() {
    std::map<step_of, int> written;
    for (auto& d : deliveries_)
      if (d.first) {
        if (!fired_.count({d.incident, d.round, d.loop, d.step}))
          return "delivery " + std::to_string(d.id) + " belongs to incident " +
                 std::to_string(d.incident) + " step " + std::to_string(d.step) +
                 " loop " + std::to_string(d.loop) + ", which never fired";
        ++written[{d.incident, d.round, d.loop, d.step}];
      }
    for (auto& [s, n] : fired_) {
      auto what = "incident " + std::to_string(std::get<0>(s)) + " step " +
                  std::to_string(std::get<3>(s)) + " loop " +
                  std::to_string(std::get<2>(s)) + " round " +
                  std::to_string(std::get<1>(s));
      if (n > 1)
        return what + " fired " + std::to_string(n) + " times";
      if (written[s] != 1)
        return what + " fired with " + std::to_string(written[s]) +
               " deliveries instead of its one target's";
    }
    return {};
  }

  // When each step of a policy's first loop falls due, in seconds after the incident
  // opened, at the earliest: "looping" and "storm" page at 0 and 300 s, "default" at 0,
  // 300 and 1200 s (simulation_test.cpp's org; a late step makes the next one later).
  static std::vector<micros> step_offsets(const std::string& policy) {
    return policy == "default" ? std::vector<micros>{0, 300, 1200}
                               : std::vector<micros>{0, 300};
  }

  // No step of the first loop fires before it falls due: not even when an alert joins
  // its incident (docs/guarantees.md#alerts-and-grouping: a new alert pages nobody anew;
  // one that re-fired a step is "fired twice" above, one that brought the next step
  // forward is caught here).
  std::string no_step_before_due() {
    for (auto& [step, at] : first_fired_) {
      auto [id, round, loop, k] = step;
      auto inc = incidents_.find(id);
      // A snooze's end starts a round from its own time; an escalate brings a step
      // forward on purpose (docs/guarantees.md#working-an-incident).
      if (round != 0 || loop != 0 || inc == incidents_.end() || escalated_.count(id))
        continue;
      auto offsets = step_offsets(inc->second.policy);
      if (k >= static_cast<int64_t>(offsets.size()))
        continue;
      const micros due = inc->second.created + offsets[k] * 1'000'000;
      if (at < due)
        return "incident " + std::to_string(id) + " step " + std::to_string(k) +
               " fired at " + std::to_string(at) + ", before it fell due at " +
               std::to_string(due);
    }
    return {};
  }

  // G3 for alerts: every alert of a grouping integration answered 2xx exists, in the
  // incident it was answered with.
  std::string accepted_alerts_exist() {
    std::set<std::pair<int64_t, std::string>> held;
    for (auto& a : alerts_)
      held.insert({a.incident, a.key});
    for (auto& e : journal_.alerts())
      if (!held.count({e.incident, e.key}))
        return "G3 for alerts: operation #" + std::to_string(e.seq) + "'s alert " +
               e.key + " was answered with incident " + std::to_string(e.incident) +
               ", which holds no alert of that key";
    return {};
  }

  // docs/guarantees.md#alerts-and-grouping: an incident counts its alert rows and those
  // firing (one alert, firing until resolved, when it has no rows: no grouping); a
  // resolved incident has no firing alert, and one not resolved that has alerts has a
  // firing one (it resolves with its last, and resolving it resolves them all); at most
  // one firing alert per alert key (G1 for alerts).
  std::string alerts_match_incidents() {
    std::map<int64_t, std::pair<int64_t, int64_t>> rows; // incident → alerts, firing
    std::map<std::string, int> firing_by_key;
    for (auto& a : alerts_) {
      auto& [all, firing] = rows[a.incident];
      ++all;
      firing += a.firing;
      if (a.firing && ++firing_by_key[a.key] > 1)
        return "G1 for alerts: alert key " + a.key + " has " +
               std::to_string(firing_by_key[a.key]) + " firing alerts";
    }
    for (auto& [id, inc] : incidents_) {
      auto it = rows.find(id);
      const bool resolved = inc.status == status_resolved;
      const auto [all, firing] = it != rows.end()
                                     ? it->second
                                     : std::pair<int64_t, int64_t>{1, resolved ? 0 : 1};
      auto what = "incident " + std::to_string(id) + " (" + inc.status + ")";
      if (inc.alert_count != all || inc.firing_count != firing)
        return what + " counts " + std::to_string(inc.alert_count) + " alerts, " +
               std::to_string(inc.firing_count) + " firing, but has " +
               std::to_string(all) + ", " + std::to_string(firing) + " firing";
      if (resolved && firing > 0)
        return what + " is resolved with " + std::to_string(firing) + " firing alerts";
      if (!resolved && firing == 0)
        return what + " is not resolved with none of its " + std::to_string(all) +
               " alerts firing";
    }
    return {};
  }

  // G8: a delivery ends SENT, DEAD with exactly one dead letter, or CANCELLED; only a
  // DEAD one has a dead letter.
  std::string deliveries_settle() {
    for (auto& d : deliveries_)
      if ((d.status == "DEAD") != (d.dead_letters == 1) || d.dead_letters > 1)
        return "delivery " + std::to_string(d.id) + " is " + d.status + " with " +
               std::to_string(d.dead_letters) + " dead letters";
    return {};
  }

  // A delivery not yet settled is retrying within its schedule: PENDING and due no
  // longer ago than the slack, or CLAIMED under a claim that has not lapsed long ago.
  std::string due_deliveries_move(micros now) {
    for (auto& d : deliveries_) {
      if (d.status == "PENDING" && d.next_attempt < now - slack)
        return "delivery " + std::to_string(d.id) + " is PENDING, due since " +
               std::to_string(d.next_attempt) + ", long before " + std::to_string(now);
      if (d.status == "CLAIMED" && d.claim_expires < now - slack)
        return "delivery " + std::to_string(d.id) + " is CLAIMED under a claim that " +
               "lapsed at " + std::to_string(d.claim_expires);
    }
    return {};
  }

  // G5 against the client's model: every step of an incident the client opened that
  // fell due well before the incident could have been settled fired, with its
  // delivery. Only the first loop is modelled; a step may start up to `slack` late after
  // a late previous one, so the k-th step is given k+1 slacks.
  std::string due_steps_fired(micros now) {
    for (auto& [id, inc] : journal_.incidents()) {
      if (!inc.modelled || inc.opened == 0)
        continue;
      const micros until = inc.settled ? std::min(*inc.settled, now) : now;
      auto offsets = step_offsets(inc.policy);
      for (size_t k = 0; k < offsets.size(); ++k) {
        const micros due = inc.opened + offsets[k] * 1'000'000;
        if (due + slack * static_cast<micros>(k + 1) > until)
          break;
        if (!fired_.count({id, 0, 0, static_cast<int64_t>(k)}))
          return "incident " + std::to_string(id) + " step " + std::to_string(k) +
                 " fell due at " + std::to_string(due) + " and never fired (now " +
                 std::to_string(now) + ")";
      }
    }
    return {};
  }

  test_database& db_;
  http_sink& sink_;
  const simulation_journal& journal_;
  int64_t org_ = 0;
  std::unique_ptr<storage::connection> at_sink_;
  std::function<micros()> node_now_;
  inline static const std::string bundle_prefix = "bundle:"; // a bundle's idempotency key
  std::vector<std::pair<micros, std::string>> pager_arrivals_; // node time, key
  std::mutex mutex_;
  std::vector<std::string> late_sends_;
  std::map<std::string, bool> checked_settled_; // key → settled when its check answered
  std::set<std::string> handed_over_;           // keys with a sender, not yet arrived
  std::atomic<int> admitted_{0};
  std::map<int64_t, incident_row> incidents_;
  std::vector<alert_row> alerts_;
  std::vector<delivery_row> deliveries_;
  std::map<int64_t, bundle_row> bundles_;
  std::map<step_of, int64_t> fired_;
  std::map<step_of, micros> first_fired_; // when it first fired
  std::map<int64_t, settled_incident> settled_;
  std::set<int64_t> escalated_; // incidents someone escalated
  std::string broken_;          // the invariant the last check() found broken
};

} // namespace belay::test
