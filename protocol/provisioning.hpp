// The provisioning file of docs/operations.md#provisioning and 10: orgs with their API
// keys, channels, users, on-call schedules, escalation policies and integrations, applied
// idempotently at start.
#pragma once

#include "protocol/error.hpp"
#include "protocol/model.hpp"
#include "protocol/oidc.hpp"
#include "protocol/oncall.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace belay::protocol {

// What GET /api/v1/config shows for a secret or key that is stored, and, given back in
// its place, what keeps the stored one (docs/http.md#configuration-api): a channel's
// secret or signingSecret, an integration's or heartbeat's key, an org's apiKeys.
inline constexpr std::string_view stored_secret = "<set>";

struct provisioned_integration {
  std::string name;
  std::string type; // events | alertmanager
  std::string key;  // plain text here; storage keeps only its hash
  std::string policy;
  bool shadow = false;
  int rate_limit_per_minute = 600; // docs/guarantees.md#rate-limits, per node
  // Alertmanager only: the heartbeat its firing Watchdog alert pings
  // (docs/guarantees.md#heartbeats).
  std::string heartbeat;
  // The fields whose values make an alert's group
  // (docs/guarantees.md#alerts-and-grouping, protocol/grouping.hpp); empty: no grouping,
  // every alert its own incident.
  std::vector<std::string> group_by{};
};

// A heartbeat monitor (docs/guarantees.md#heartbeats, protocol/heartbeat.hpp).
struct provisioned_heartbeat {
  std::string name;
  std::string key; // plain text here; storage keeps only its hash
  double period_seconds = 0;
  double grace_seconds = 0;
  std::string policy;
  bool alert_if_never_pinged = false;
};

// A named API key (docs/security.md#keys): {"name","key","scope"}. Plain-string keys
// stay admin keys without a name (provisioned_org::api_keys).
struct provisioned_api_key {
  std::string name;
  std::string key; // plain text here, or stored_secret to keep the stored one
  role scope = role::admin;
  size_t position = 0; // its index in apiKeys, for errors
};

// How an org's people sign in (docs/security.md#signing-in): OpenID Connect when
// configured, and passwords unless "password": false.
struct org_auth {
  oidc_config oidc{};
  bool password = true;
};

struct provisioned_org {
  std::string name;
  // Kept, but off: as an org the file leaves out
  // (docs/guarantees.md#provisioning-fails-closed).
  bool disabled = false;
  std::vector<std::string> api_keys; // plain text here; storage keeps only hashes
  // apiKeys was in the document; keep_api_keys: its plain strings were only
  // stored_secret, and the org's stored keys without a name stay (api_keys is then
  // empty). Not given with keep_api_keys (the API's PUT): every stored key stays.
  bool api_keys_given = false;
  bool keep_api_keys = false;
  std::vector<provisioned_api_key> named_keys;
  org_auth auth{};
  std::vector<channel_config> channels; // org_id 0: storage assigns it
  std::vector<user_config> users;
  std::vector<schedule> schedules; // zones resolved
  std::vector<belay::policy> policies;
  std::vector<provisioned_heartbeat> heartbeats;
  std::vector<provisioned_integration> integrations;
};

struct provisioning {
  std::vector<provisioned_org> orgs;
};

// The first problem found, in document order: code invalid_json (with line and column)
// or invalid_provisioning, field the JSON path at fault
// ("orgs[0].channels[1].url"), message what is wrong. Unknown fields are refused so
// that a misspelt setting fails at start instead of falling back to a default.
//
// Channels: name* (no ':', which separates the parts of a delivery's idempotency
// key), type* webhook|slack|email|sms|voice|log, url (required unless log; http(s)
// for webhook, slack, sms, voice; smtp(s) for email), secret, account, from,
// maxAttempts (≥ 1, default 4), retryBaseSeconds (> 0, default 30), retryCapSeconds
// (≥ base, default 120 or the base if larger), timeoutSeconds (> 0, default 5),
// failoverTo (another channel of the org; chains must not loop).
// Users (docs/operations.md#provisioning-fields): name*, fullName, timeZone (IANA),
// contacts* (non-empty)
// [{name* (unique for the user), channel* (of the org), to*, statusUpdates}], rules*
// (non-empty) [{contact* (one of the user's contacts), delaySeconds (≥ 0, default 0)}]:
// a user nobody can reach would turn a page to them into silence.
// Schedules: see schedule_json.hpp; every layer user must be a user of the org.
// Policies: see policy_json.hpp; each target's channel, user or schedule must exist in
// the org.
// Heartbeats: name*, key* (letters, digits and -._~ only: it is a URL path segment),
// periodSeconds* (> 0), graceSeconds (≥ 0, default 0), policy* (of the org),
// alertIfNeverPinged (default false).
// Integrations: name*, type* events|alertmanager, key*, policy* (of the org), shadow,
// rateLimitPerMinute (≥ 1, default 600: requests a minute per node), heartbeat (a
// heartbeat of the org, alertmanager integrations only: its Watchdog alert pings it),
// grouping {by* (non-empty, paths protocol/grouping.hpp allows for the type)}.
// Channels also take throttle and statusThrottle ([{count* ≥ 1, seconds* > 0}], [] for
// none; defaults by type, protocol/throttle.hpp) and bundle (sms, voice, email, slack).
// Orgs: name*, disabled (default false: true turns it off as if the file left it out,
// keeping its definitions), apiKeys, auth, channels, users, schedules, policies,
// heartbeats, integrations.
// apiKeys: plain strings (admin keys without a name) and {name*, key*, scope
// (admin|responder|read, default admin)}, names unique in the org; key "<set>" keeps
// the stored key of that name.
// auth (docs/security.md#signing-in): {oidc {issuer* (http(s) URL), clientId*,
// clientSecret*, scopes (default "openid email profile", must hold openid), claim
// (default email)}, password (default true)}.
// Users also take role (admin|responder|viewer, default responder) and login (unique in
// the org, compared without regard to case).
// Org names are unique in the file, other names within their org; keys (API,
// integration and heartbeat keys) are unique in the whole file and contain no whitespace.
// stored_secret stands for a stored secret or key (it may repeat); apiKeys holds either
// only stored_secret or only keys in plain text.
parsed<provisioning> parse_provisioning(std::string_view json);

// A stored_secret in `given` where `stored` (the org as storage has it) has no item of
// that name to keep it from: the path of the first, as an invalid_provisioning error.
// `org_path` is the org's path in the document ("orgs[0]").
std::optional<error> check_kept_secrets(const provisioned_org& given,
                                        const provisioned_org& stored,
                                        const std::string& org_path);

} // namespace belay::protocol
