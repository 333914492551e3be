// Ingest in the formats monitors already speak: PagerDuty Events API v2 and the
// Prometheus Alertmanager webhook (docs/http.md#ingest).
#include "actors/actors.hpp"
#include "actors/metrics.hpp"
#include "http/keys.hpp"
#include "http/respond.hpp"
#include "protocol/alertmanager.hpp"
#include "protocol/grouping.hpp"
#include "protocol/pagerduty.hpp"

#include <algorithm>
#include <random>
#include <set>
#include <string_view>
#include <vector>

namespace belay {

namespace {

std::string generated_dedup_key() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char digits[] = "0123456789abcdef";
  std::string key(32, '0');
  for (auto& ch : key)
    ch = digits[rng() & 0xf];
  return key;
}

void pagerduty(api& a, const httplib::Request& req, httplib::Response& res) {
  auto parsed = protocol::parse_pd_event(req.body);
  if (auto* errors = std::get_if<std::vector<std::string>>(&parsed))
    return reply_json(res, 400, protocol::render_pd_invalid(*errors));
  auto& ev = std::get<protocol::pd_event>(parsed);
  auto integration = admit_routing_key(a, ev.routing_key, res);
  if (!integration)
    return;
  bool grouping = !integration->group_by.empty();
  if (ev.event_action == "trigger") {
    if (ev.dedup_key.empty())
      ev.dedup_key = generated_dedup_key();
    trigger_command cmd{integration->org_id, ev.dedup_key,        ev.summary,
                        ev.severity,         integration->policy, ev.details_json,
                        ev.payload_json,     integration->shadow, "events",
                        integration->name};
    if (grouping)
      protocol::group_alert(cmd, integration->name, integration->group_by, ev);
    auto r = ask_trigger(a, res, std::move(cmd));
    if (!r)
      return;
    if (r->code == reply_code::unknown_policy)
      return reply_json(
          res, 400,
          protocol::render_pd_invalid(
              {"Integration policy '" + integration->policy + "' does not exist"}));
  } else {
    auto kind = ev.event_action == "acknowledge" ? transition::ack : transition::resolve;
    transition_command cmd{integration->org_id, 0,        ev.dedup_key, kind,
                           "pagerduty",         "events", "pagerduty",  grouping};
    // PagerDuty accepts an acknowledge or resolve of an unknown key, and so do we.
    if (!ask<transition_reply>(a, a.registry, res, atom::transition_v, cmd))
      return;
  }
  reply_json(res, 202, protocol::render_pd_accepted(ev.dedup_key));
}

// Consecutive alerts of one webhook with the same status and distinct fingerprints: their
// writes go out together, so storage commits them in a few batches instead of one by one
// (a webhook of 500 new alerts: 0.77 s one by one, 0.02 s together). A status change or
// a fingerprint already in the wave starts the next one, so one alert's events keep
// their order.
struct am_wave {
  bool firing = true;
  std::vector<const protocol::am_alert*> alerts;
};

std::vector<am_wave> waves_of(const std::vector<protocol::am_alert>& alerts) {
  std::vector<am_wave> waves;
  std::set<std::string_view> keys;
  for (auto& alert : alerts) {
    bool firing = alert.status == "firing";
    if (waves.empty() || waves.back().firing != firing || keys.count(alert.dedup_key)) {
      waves.push_back({firing, {}});
      keys.clear();
    }
    keys.insert(alert.dedup_key);
    waves.back().alerts.push_back(&alert);
  }
  return waves;
}

// Writes a wave of firing alerts and counts what became of each; false after answering
// 503.
bool fire(api& a, httplib::Response& res, const storage::integration_row& integration,
          const am_wave& wave, protocol::am_counts& counts) {
  std::vector<request_to<trigger_reply>> requests;
  for (auto* alert : wave.alerts) {
    trigger_command cmd{integration.org_id,  alert->dedup_key,   alert->title,
                        alert->severity,     integration.policy, "{}",
                        alert->payload_json, integration.shadow, "alertmanager",
                        integration.name};
    if (!integration.group_by.empty())
      protocol::group_alert(cmd, integration.name, integration.group_by, *alert);
    requests.push_back(trigger_request(a, std::move(cmd)));
  }
  auto replies = ask_all<trigger_reply>(a, res, std::move(requests));
  if (!replies)
    return false;
  for (auto& r : *replies) {
    if (r.code != reply_code::ok)
      ++counts.ignored;
    else if (r.created)
      ++counts.created;
    else
      ++counts.deduplicated;
    counts.grouped += r.grouped;
  }
  return true;
}

// The same for a wave of resolved alerts.
bool resolve(api& a, httplib::Response& res, const storage::integration_row& integration,
             const am_wave& wave, protocol::am_counts& counts) {
  std::vector<request_to<transition_reply>> requests;
  for (auto* alert : wave.alerts) {
    transition_command cmd{integration.org_id, 0,
                           alert->dedup_key,   transition::resolve,
                           "alertmanager",     "alertmanager",
                           "alertmanager",     !integration.group_by.empty()};
    requests.push_back(
        to<transition_reply>(a.registry, atom::transition_v, std::move(cmd)));
  }
  auto replies = ask_all<transition_reply>(a, res, std::move(requests));
  if (!replies)
    return false;
  for (auto& r : *replies)
    ++(r.code == reply_code::ok ? counts.resolved : counts.ignored);
  return true;
}

// The integration of the request this thread serves, once its key was checked (before
// the body is read).
struct am_caller {
  const httplib::Request* request = nullptr;
  storage::integration_row integration;
};
thread_local am_caller am_current;

bool alertmanager_key(api& a, const httplib::Request& req, httplib::Response& res) {
  auto key = bearer_key(req);
  if (key.empty()) {
    reply_error(res, 401, "missing_key",
                "send an alertmanager integration key as 'Authorization: Bearer <key>'");
    return false;
  }
  auto admitted = a.keys.admit_integration(key);
  if (!admitted.found || admitted.value.type != "alertmanager") {
    reply_error(res, 401, "unknown_key", "the alertmanager integration key is not known");
    return false;
  }
  if (admitted.retry_after_seconds > 0) {
    reply_rate_limited(res, admitted.retry_after_seconds, "this integration key");
    return false;
  }
  am_current = {&req, std::move(admitted.value)};
  return true;
}

// Alertmanager's Watchdog pattern (docs/guarantees.md#heartbeats): an always-firing alert
// that pings the integration's heartbeat, so that an Alertmanager that stops sending
// pages. Its firing alerts are taken out and counted as ignored; false after answering
// 503.
bool ping_watchdog(api& a, httplib::Response& res,
                   const storage::integration_row& integration,
                   std::vector<protocol::am_alert>& alerts, protocol::am_counts& counts) {
  if (integration.heartbeat_id == 0)
    return true;
  auto watchdog = [](const protocol::am_alert& alert) {
    return alert.status == "firing" && alert.alertname == "Watchdog";
  };
  auto firing = std::count_if(alerts.begin(), alerts.end(), watchdog);
  if (firing == 0)
    return true;
  alerts.erase(std::remove_if(alerts.begin(), alerts.end(), watchdog), alerts.end());
  counts.ignored += static_cast<int>(firing);
  return ask<reply_code>(a, a.heartbeats, res, atom::ping_v, integration.org_id,
                         integration.heartbeat_id, ping_kind::success)
      .has_value();
}

void alertmanager(api& a, const httplib::Request& req, httplib::Response& res) {
  if (am_current.request != &req && !alertmanager_key(a, req, res))
    return;
  am_current.request = nullptr;
  auto integration = &am_current.integration;
  auto parsed = protocol::parse_alertmanager(req.body);
  if (auto* err = std::get_if<protocol::error>(&parsed))
    return reply_error(res, *err);
  protocol::am_counts counts;
  counts.grouping = !integration->group_by.empty();
  auto& alerts = std::get<protocol::am_webhook>(parsed).alerts;
  // Its bucket counts alerts, not posts: the key's check took the first
  // (docs/guarantees.md#rate-limits).
  if (alerts.size() > 1)
    if (auto wait = a.keys.charge_integration(bearer_key(req),
                                              static_cast<double>(alerts.size() - 1)))
      return reply_rate_limited(res, wait, "this integration key");
  if (!ping_watchdog(a, res, *integration, alerts, counts))
    return;
  for (auto& wave : waves_of(alerts))
    if (!(wave.firing ? fire(a, res, *integration, wave, counts)
                      : resolve(a, res, *integration, wave, counts)))
      return;
  reply_json(res, 200, protocol::render_am_counts(counts));
}

} // namespace

void add_ingest_routes(routes& http, api& a) {
  // The routing key is in the body: read first, then checked.
  http.Post("/v2/enqueue", [&a](const httplib::Request& req, httplib::Response& res) {
    pagerduty(a, req, res);
  });
  http.Post(
      "/api/v1/integrations/alertmanager",
      [&a](const httplib::Request& req, httplib::Response& res) {
        alertmanager(a, req, res);
      },
      [&a](const httplib::Request& req, httplib::Response& res) {
        return alertmanager_key(a, req, res);
      });
}

} // namespace belay
