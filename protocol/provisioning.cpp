#include "protocol/provisioning.hpp"

#include "protocol/field_reader.hpp"
#include "protocol/grouping.hpp"
#include "protocol/json_document.hpp"
#include "protocol/limits.hpp"
#include "protocol/policy_json.hpp"
#include "protocol/schedule_json.hpp"
#include "protocol/text.hpp"
#include "protocol/throttle.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace belay::protocol {

namespace {

// Where each name or key was first seen, so that a duplicate can point at it.
using first_seen = std::map<std::string, std::string>; // value → JSON path

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string quoted(const std::string& path) {
  return "'" + path + "'";
}

// Absolute URL with a host: "<scheme>://<host>…". Returns the lower-cased scheme.
std::optional<std::string> url_scheme(std::string_view url) {
  if (has_whitespace_or_control(url))
    return std::nullopt;
  const auto separator = url.find("://");
  if (separator == std::string_view::npos || separator == 0)
    return std::nullopt;
  const auto host_end = url.find_first_of("/?#", separator + 3);
  if (url.substr(separator + 3, host_end - (separator + 3)).empty())
    return std::nullopt;
  std::string scheme{url.substr(0, separator)};
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return scheme;
}

void check_channel_url(field_reader& r, const channel_config& c) {
  if (!r.ok() || c.type == "log")
    return;
  const bool is_email = c.type == "email";
  const auto scheme = url_scheme(c.url);
  const bool allowed = scheme && (is_email ? (*scheme == "smtp" || *scheme == "smtps")
                                           : (*scheme == "http" || *scheme == "https"));
  // The URL is not echoed: it may carry credentials.
  if (!allowed)
    r.fail("invalid_value", r.path_of("url"),
           quoted(r.path_of("url")) + " must be an " +
               (is_email ? "smtp:// or smtps://" : "http:// or https://") +
               " URL with a host for a " + c.type + " channel");
}

// A throttle (docs/guarantees.md#storms): [{"count": n, "seconds": s}, …], every count a
// whole number from 1, every span above zero; [] turns it off.
throttle_windows read_throttle(field_reader& r, const char* name,
                               throttle_windows defaults, std::optional<error>& failure) {
  const rapidjson::Value* windows = r.optional_array(name);
  if (!windows)
    return defaults;
  throttle_windows out;
  for (rapidjson::SizeType i = 0; i < windows->Size() && r.ok(); ++i) {
    field_reader w((*windows)[i], element_path(r.path_of(name), i), failure);
    w.refuse_unknown({"count", "seconds"});
    if (w.ok() && (!w.has("count") || !w.has("seconds"))) {
      auto missing = w.path_of(w.has("count") ? "seconds" : "count");
      w.fail("missing_field", missing, quoted(missing) + " is required");
    }
    throttle_window window;
    window.count = w.optional_int("count", 1).value_or(1);
    window.seconds =
        w.optional_seconds("seconds", lowest_seconds::above_zero).value_or(1);
    out.push_back(window);
  }
  return out;
}

channel_config read_channel(const rapidjson::Value& value, const std::string& path,
                            std::optional<error>& failure) {
  field_reader r(value, path, failure);
  r.refuse_unknown({"name", "type", "url", "secret", "account", "from", "maxAttempts",
                    "retryBaseSeconds", "retryCapSeconds", "timeoutSeconds", "failoverTo",
                    "signingSecret", "throttle", "statusThrottle", "bundle"});
  channel_config c;
  c.name = r.required_string("name", max_name_chars);
  if (r.ok() && c.name.find(':') != std::string::npos)
    r.fail("invalid_value", r.path_of("name"),
           quoted(r.path_of("name")) + " must not contain ':' (it separates the parts of "
                                       "a delivery's idempotency key)");
  c.type =
      r.required_choice("type", {"webhook", "slack", "email", "sms", "voice", "log"});
  if (c.type == "log")
    c.url = r.optional_string("url", no_length_limit, blank::allowed).value_or("");
  else
    c.url = r.required_string("url", no_length_limit);
  check_channel_url(r, c);
  c.secret = r.optional_string("secret", no_length_limit, blank::allowed).value_or("");
  c.account = r.optional_string("account", no_length_limit, blank::allowed).value_or("");
  c.from = r.optional_string("from", no_length_limit, blank::allowed).value_or("");
  // Slack's app signing secret, which signs the clicks on the page's buttons.
  c.signing_secret =
      r.optional_string("signingSecret", no_length_limit, blank::allowed).value_or("");
  c.max_attempts = r.optional_int("maxAttempts", 1).value_or(c.max_attempts);
  c.retry_base_seconds =
      r.optional_seconds("retryBaseSeconds", lowest_seconds::above_zero)
          .value_or(c.retry_base_seconds);
  const auto cap = r.optional_seconds("retryCapSeconds", lowest_seconds::above_zero);
  if (cap && *cap < c.retry_base_seconds)
    r.fail("invalid_value", r.path_of("retryCapSeconds"),
           quoted(r.path_of("retryCapSeconds")) + " must be at least retryBaseSeconds (" +
               decimal_text(c.retry_base_seconds) + ")");
  // Only the base given: a cap below it would contradict it, so the cap follows it.
  c.retry_cap_seconds = cap.value_or(std::max(c.retry_cap_seconds, c.retry_base_seconds));
  c.timeout_seconds = r.optional_seconds("timeoutSeconds", lowest_seconds::above_zero)
                          .value_or(c.timeout_seconds);
  c.failover_to =
      r.optional_string("failoverTo", max_name_chars, blank::allowed).value_or("");
  c.throttle = read_throttle(r, "throttle", default_page_throttle(c.type), failure);
  c.status_throttle =
      read_throttle(r, "statusThrottle", default_status_throttle(c.type), failure);
  auto bundle = r.optional_bool("bundle");
  if (r.ok() && bundle.value_or(false) && !can_bundle(c.type))
    r.fail("invalid_value", r.path_of("bundle"),
           quoted(r.path_of("bundle")) + " cannot be true for a " + c.type +
               " channel: its reader is a program that wants one page per message");
  c.bundle = bundle.value_or(can_bundle(c.type));
  return c;
}

// {"by": ["labels.alertname", …]}: the paths an alert's group is made of.
std::vector<std::string> read_group_by(const rapidjson::Value& value,
                                       const std::string& path, const std::string& type,
                                       std::optional<error>& failure) {
  field_reader r(value, path, failure);
  r.refuse_unknown({"by"});
  const rapidjson::Value* by = r.required_array("by");
  if (by && by->Empty())
    r.fail("invalid_value", r.path_of("by"),
           quoted(r.path_of("by")) + " must name at least one field to group by");
  std::vector<std::string> paths;
  for (rapidjson::SizeType i = 0; by && i < by->Size() && r.ok(); ++i) {
    const std::string at = element_path(r.path_of("by"), i);
    auto field = r.string_value((*by)[i], at, max_name_chars, blank::refused);
    if (auto problem = r.ok() ? grouping_path_problem(type, field) : std::nullopt)
      r.fail("invalid_value", at, quoted(at) + " cannot group: " + *problem);
    paths.push_back(std::move(field));
  }
  return paths;
}

provisioned_integration read_integration(const rapidjson::Value& value,
                                         const std::string& path,
                                         std::optional<error>& failure) {
  field_reader r(value, path, failure);
  r.refuse_unknown({"name", "type", "key", "policy", "shadow", "rateLimitPerMinute",
                    "heartbeat", "grouping"});
  provisioned_integration i;
  i.name = r.required_string("name", max_name_chars);
  i.type = r.required_choice("type", {"events", "alertmanager"});
  i.key = r.required_string("key", no_length_limit);
  i.policy = r.required_string("policy", max_name_chars);
  i.shadow = r.optional_bool("shadow").value_or(false);
  i.rate_limit_per_minute =
      r.optional_int("rateLimitPerMinute", 1).value_or(i.rate_limit_per_minute);
  i.heartbeat = r.optional_string("heartbeat", max_name_chars).value_or("");
  if (r.ok() && !i.heartbeat.empty() && i.type != "alertmanager")
    r.fail("invalid_value", r.path_of("heartbeat"),
           quoted(r.path_of("heartbeat")) +
               " is for alertmanager integrations only (their Watchdog alert pings it)");
  if (const rapidjson::Value* grouping = r.optional_object("grouping"))
    i.group_by = read_group_by(*grouping, r.path_of("grouping"), i.type, failure);
  return i;
}

// A ping key travels as a URL path segment (/hb/<key>): only unreserved characters.
bool url_safe_key(const std::string& key) {
  return std::all_of(key.begin(), key.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
  });
}

provisioned_heartbeat read_heartbeat(const rapidjson::Value& value,
                                     const std::string& path,
                                     std::optional<error>& failure) {
  field_reader r(value, path, failure);
  r.refuse_unknown(
      {"name", "key", "periodSeconds", "graceSeconds", "policy", "alertIfNeverPinged"});
  provisioned_heartbeat h;
  h.name = r.required_string("name", max_name_chars);
  h.key = r.required_string("key", max_name_chars);
  if (r.ok() && h.key != stored_secret && !url_safe_key(h.key))
    r.fail("invalid_value", r.path_of("key"),
           quoted(r.path_of("key")) +
               " may hold only letters, digits and - . _ ~ (it is part of the ping URL)");
  if (r.ok() && !r.has("periodSeconds"))
    r.fail("missing_field", r.path_of("periodSeconds"),
           quoted(r.path_of("periodSeconds")) + " is required");
  h.period_seconds =
      r.optional_seconds("periodSeconds", lowest_seconds::above_zero).value_or(0);
  h.grace_seconds = r.optional_seconds("graceSeconds", lowest_seconds::zero).value_or(0);
  h.policy = r.required_string("policy", max_name_chars);
  h.alert_if_never_pinged = r.optional_bool("alertIfNeverPinged").value_or(false);
  return h;
}

// Checks one org against itself and the keys of the orgs before it. Paths in errors
// point at the later of two clashing entries.
class org_reader {
public:
  org_reader(const rapidjson::Value& value, std::string path,
             std::optional<error>& failure, first_seen& org_names, first_seen& keys)
      : r_(value, std::move(path), failure), failure_(failure), org_names_(org_names),
        keys_(keys) {}

  provisioned_org read() {
    r_.refuse_unknown({"name", "disabled", "apiKeys", "auth", "channels", "users",
                       "schedules", "policies", "heartbeats", "integrations"});
    org_.name = r_.required_string("name", max_name_chars);
    org_.disabled = r_.optional_bool("disabled").value_or(false);
    unique_name(org_names_, org_.name, r_.path_of("name"), "org name");
    read_api_keys();
    read_auth();
    read_channels();
    check_failover();
    read_users();
    read_schedules();
    read_policies();
    read_heartbeats();
    read_integrations();
    return std::move(org_);
  }

private:
  void unique_name(first_seen& seen, const std::string& name, const std::string& path,
                   const char* what) {
    if (!r_.ok())
      return;
    auto [first, inserted] = seen.emplace(name, path);
    if (!inserted)
      r_.fail("invalid_value", path,
              quoted(path) + " repeats the " + what + " \"" + name + "\" of " +
                  first->second);
  }

  // Keys are secrets: a clash is reported by position only.
  void unique_key(const std::string& key, const std::string& path) {
    if (!r_.ok() || key == stored_secret)
      return;
    if (has_whitespace_or_control(key)) {
      r_.fail("invalid_value", path,
              quoted(path) +
                  " must not contain whitespace (it travels in an HTTP header)");
      return;
    }
    auto [first, inserted] = keys_.emplace(key, path);
    if (!inserted)
      r_.fail("invalid_value", path,
              quoted(path) + " is the same key as " + first->second +
                  "; every key must be unique in the file");
  }

  // The hashes of plain-string keys cannot be matched to positions, so stored_secret
  // keeps them all or none; a named key's "<set>" keeps that name's.
  void read_api_keys() {
    const rapidjson::Value* keys = r_.optional_array("apiKeys");
    org_.api_keys_given = keys != nullptr;
    size_t kept = 0, plain = 0;
    first_seen key_names;
    for (rapidjson::SizeType i = 0; keys && i < keys->Size() && r_.ok(); ++i) {
      const std::string path = element_path(r_.path_of("apiKeys"), i);
      if ((*keys)[i].IsObject()) {
        read_named_key((*keys)[i], path, key_names);
        org_.named_keys.back().position = i;
        continue;
      }
      std::string key =
          r_.string_value((*keys)[i], path, no_length_limit, blank::refused);
      unique_key(key, path);
      kept += key == stored_secret;
      ++plain;
      if (r_.ok() && kept > 0 && kept < plain)
        r_.fail("invalid_value", path,
                quoted(path) + " mixes \"<set>\" with keys in plain text: give only "
                               "\"<set>\" (keep the stored keys) or every key in plain "
                               "text (replace them)");
      org_.api_keys.push_back(std::move(key));
    }
    if (kept > 0) {
      org_.keep_api_keys = true;
      org_.api_keys.clear();
    }
  }

  void read_named_key(const rapidjson::Value& value, const std::string& path,
                      first_seen& key_names) {
    field_reader r(value, path, failure_);
    r.refuse_unknown({"name", "key", "scope"});
    provisioned_api_key k;
    k.name = r.required_string("name", max_name_chars);
    unique_name(key_names, k.name, r.path_of("name"), "API key name");
    k.key = r.required_string("key", no_length_limit);
    unique_key(k.key, r.path_of("key"));
    if (auto scope = r.optional_choice("scope", {"admin", "responder", "read"}))
      k.scope = *parse_scope(*scope);
    org_.named_keys.push_back(std::move(k));
  }

  void read_auth() {
    const rapidjson::Value* auth = r_.optional_object("auth");
    if (!auth)
      return;
    field_reader r(*auth, r_.path_of("auth"), failure_);
    r.refuse_unknown({"oidc", "password"});
    org_.auth.password = r.optional_bool("password").value_or(true);
    const rapidjson::Value* oidc = r.optional_object("oidc");
    if (!oidc)
      return;
    field_reader o(*oidc, r.path_of("oidc"), failure_);
    o.refuse_unknown({"issuer", "clientId", "clientSecret", "scopes", "claim"});
    auto& c = org_.auth.oidc;
    c.issuer = o.required_string("issuer", no_length_limit);
    auto scheme = url_scheme(c.issuer);
    if (o.ok() && (!scheme || (*scheme != "http" && *scheme != "https")))
      o.fail("invalid_value", o.path_of("issuer"),
             quoted(o.path_of("issuer")) +
                 " must be the provider's http:// or https:// "
                 "issuer URL, as its discovery document names it");
    c.client_id = o.required_string("clientId", no_length_limit);
    c.client_secret = o.required_string("clientSecret", no_length_limit);
    c.scopes = o.optional_string("scopes", no_length_limit).value_or(c.scopes);
    if (o.ok() && (" " + c.scopes + " ").find(" openid ") == std::string::npos)
      o.fail("invalid_value", o.path_of("scopes"),
             quoted(o.path_of("scopes")) + " must include \"openid\" (space-separated)");
    c.claim = o.optional_string("claim", max_name_chars).value_or(c.claim);
  }

  void read_channels() {
    const rapidjson::Value* channels = r_.optional_array("channels");
    for (rapidjson::SizeType i = 0; channels && i < channels->Size() && r_.ok(); ++i) {
      const std::string path = element_path(r_.path_of("channels"), i);
      org_.channels.push_back(read_channel((*channels)[i], path, failure_));
      unique_name(channel_names_, org_.channels.back().name, member_path(path, "name"),
                  "channel name");
    }
  }

  std::optional<std::size_t> channel_index(const std::string& name) const {
    for (std::size_t i = 0; i < org_.channels.size(); ++i)
      if (org_.channels[i].name == name)
        return i;
    return std::nullopt;
  }

  // A dead-lettered delivery moves to the failover channel; a loop would move it
  // round for ever, paging the same people again and again.
  void check_failover() {
    for (std::size_t i = 0; i < org_.channels.size() && r_.ok(); ++i) {
      const channel_config& c = org_.channels[i];
      if (c.failover_to.empty())
        continue;
      const std::string path =
          member_path(element_path(r_.path_of("channels"), i), "failoverTo");
      if (c.failover_to == c.name) {
        r_.fail("invalid_value", path,
                quoted(path) + " must name another channel, not itself");
        return;
      }
      if (!channel_index(c.failover_to)) {
        r_.fail("invalid_value", path,
                quoted(path) + " names channel \"" + c.failover_to + "\", which org \"" +
                    org_.name + "\" does not define");
        return;
      }
      std::string chain = c.name;
      std::size_t current = i;
      for (std::size_t hops = 0; hops < org_.channels.size(); ++hops) {
        const std::string& next = org_.channels[current].failover_to;
        if (next.empty())
          break;
        chain += " -> " + next;
        if (next == c.name) {
          r_.fail("invalid_value", path,
                  quoted(path) + " makes a failover loop: " + chain);
          return;
        }
        auto index = channel_index(next);
        if (!index)
          break; // reported when that channel's own turn comes
        current = *index;
      }
    }
  }

  // "names channel \"x\", which org \"acme\" does not define"
  void fail_unknown(const std::string& path, const char* what, const std::string& name) {
    r_.fail("invalid_value", path,
            quoted(path) + " names " + what + " \"" + name + "\", which org \"" +
                org_.name + "\" does not define");
  }

  bool has_user(const std::string& name) const {
    return std::any_of(org_.users.begin(), org_.users.end(),
                       [&](const user_config& u) { return u.name == name; });
  }

  bool has_schedule(const std::string& name) const {
    return std::any_of(org_.schedules.begin(), org_.schedules.end(),
                       [&](const schedule& s) { return s.name == name; });
  }

  // Refuses an empty list, saying `why` it matters.
  const rapidjson::Value* required_non_empty(field_reader& r, const char* name,
                                             const char* why) {
    const rapidjson::Value* array = r.required_array(name);
    if (array && array->Empty()) {
      r.fail("invalid_value", r.path_of(name),
             quoted(r.path_of(name)) + " must not be empty: " + why);
      return nullptr;
    }
    return array;
  }

  contact read_contact(const rapidjson::Value& value, const std::string& path) {
    field_reader r(value, path, failure_);
    r.refuse_unknown({"name", "channel", "to", "statusUpdates"});
    contact c;
    c.name = r.required_string("name", max_name_chars);
    c.channel = r.required_string("channel", max_name_chars);
    if (r.ok() && !channel_index(c.channel))
      fail_unknown(r.path_of("channel"), "channel", c.channel);
    c.to = r.required_string("to", no_length_limit);
    c.status_updates = r.optional_bool("statusUpdates").value_or(false);
    return c;
  }

  notification_rule read_rule(const rapidjson::Value& value, const std::string& path,
                              const user_config& u) {
    field_reader r(value, path, failure_);
    r.refuse_unknown({"contact", "delaySeconds"});
    notification_rule rule;
    rule.contact = r.required_string("contact", max_name_chars);
    const bool known =
        std::any_of(u.contacts.begin(), u.contacts.end(),
                    [&](const contact& c) { return c.name == rule.contact; });
    if (r.ok() && !known)
      r.fail("invalid_value", r.path_of("contact"),
             quoted(r.path_of("contact")) + " names contact \"" + rule.contact +
                 "\", which user \"" + u.name + "\" does not have");
    rule.delay_seconds =
        r.optional_seconds("delaySeconds", lowest_seconds::zero).value_or(0);
    return rule;
  }

  user_config read_user(const rapidjson::Value& value, const std::string& path) {
    field_reader r(value, path, failure_);
    r.refuse_unknown(
        {"name", "role", "login", "fullName", "timeZone", "contacts", "rules"});
    user_config u;
    u.name = r.required_string("name", max_name_chars);
    if (auto role = r.optional_choice("role", {"admin", "responder", "viewer"}))
      u.role = *parse_role(*role);
    u.login = r.optional_string("login", max_name_chars).value_or("");
    if (r.ok() && !u.login.empty())
      unique_name(logins_, lower(u.login), r.path_of("login"), "login");
    u.full_name =
        r.optional_string("fullName", max_name_chars, blank::allowed).value_or("");
    u.time_zone = r.optional_string("timeZone", no_length_limit).value_or("");
    if (r.ok() && !u.time_zone.empty() && !find_time_zone(u.time_zone))
      r.fail("invalid_value", r.path_of("timeZone"),
             quoted(r.path_of("timeZone")) +
                 " must be an IANA time zone of the system tz database (such as "
                 "\"Europe/Berlin\"), not \"" +
                 abbreviate(u.time_zone) + "\"");
    first_seen contact_names;
    if (const rapidjson::Value* contacts =
            required_non_empty(r, "contacts", "a user needs a way to be reached")) {
      for (rapidjson::SizeType i = 0; i < contacts->Size() && r.ok(); ++i) {
        const std::string contact_path = element_path(r.path_of("contacts"), i);
        u.contacts.push_back(read_contact((*contacts)[i], contact_path));
        unique_name(contact_names, u.contacts.back().name,
                    member_path(contact_path, "name"), "contact name");
      }
    }
    if (const rapidjson::Value* rules =
            required_non_empty(r, "rules", "a user needs a rule that pages them")) {
      for (rapidjson::SizeType i = 0; i < rules->Size() && r.ok(); ++i)
        u.rules.push_back(read_rule((*rules)[i], element_path(r.path_of("rules"), i), u));
    }
    return u;
  }

  void read_users() {
    const rapidjson::Value* users = r_.optional_array("users");
    for (rapidjson::SizeType i = 0; users && i < users->Size() && r_.ok(); ++i) {
      const std::string path = element_path(r_.path_of("users"), i);
      org_.users.push_back(read_user((*users)[i], path));
      unique_name(user_names_, org_.users.back().name, member_path(path, "name"),
                  "user name");
    }
  }

  void read_schedules() {
    const rapidjson::Value* schedules = r_.optional_array("schedules");
    for (rapidjson::SizeType i = 0; schedules && i < schedules->Size() && r_.ok(); ++i) {
      const std::string path = element_path(r_.path_of("schedules"), i);
      org_.schedules.push_back(read_schedule((*schedules)[i], path, failure_));
      const schedule& s = org_.schedules.back();
      unique_name(schedule_names_, s.name, member_path(path, "name"), "schedule name");
      for (std::size_t l = 0; l < s.layers.size() && r_.ok(); ++l) {
        const std::string users_path =
            member_path(element_path(member_path(path, "layers"), l), "users");
        for (std::size_t u = 0; u < s.layers[l].users.size() && r_.ok(); ++u)
          if (!has_user(s.layers[l].users[u]))
            fail_unknown(element_path(users_path, u), "user", s.layers[l].users[u]);
      }
    }
  }

  void read_policies() {
    const rapidjson::Value* policies = r_.optional_array("policies");
    for (rapidjson::SizeType i = 0; policies && i < policies->Size() && r_.ok(); ++i) {
      const std::string path = element_path(r_.path_of("policies"), i);
      org_.policies.push_back(read_policy((*policies)[i], path, failure_));
      unique_name(policy_names_, org_.policies.back().name, member_path(path, "name"),
                  "policy name");
      check_targets(org_.policies.back(), path);
    }
  }

  void check_targets(const belay::policy& p, const std::string& policy_path) {
    for (std::size_t s = 0; s < p.steps.size() && r_.ok(); ++s) {
      const std::string step_path = element_path(member_path(policy_path, "steps"), s);
      for (std::size_t t = 0; t < p.steps[s].targets.size() && r_.ok(); ++t) {
        const belay::target& target = p.steps[s].targets[t];
        const std::string target_path =
            element_path(member_path(step_path, "targets"), t);
        if (target.is_user() && !has_user(target.user))
          fail_unknown(member_path(target_path, "user"), "user", target.user);
        else if (target.is_schedule() && !has_schedule(target.schedule))
          fail_unknown(member_path(target_path, "schedule"), "schedule", target.schedule);
        else if (target.is_address() && !channel_index(target.channel))
          fail_unknown(member_path(target_path, "channel"), "channel", target.channel);
      }
    }
  }

  bool has_policy(const std::string& name) const {
    return std::any_of(org_.policies.begin(), org_.policies.end(),
                       [&](const belay::policy& p) { return p.name == name; });
  }

  void read_heartbeats() {
    const rapidjson::Value* heartbeats = r_.optional_array("heartbeats");
    for (rapidjson::SizeType i = 0; heartbeats && i < heartbeats->Size() && r_.ok();
         ++i) {
      const std::string path = element_path(r_.path_of("heartbeats"), i);
      org_.heartbeats.push_back(read_heartbeat((*heartbeats)[i], path, failure_));
      const provisioned_heartbeat& h = org_.heartbeats.back();
      unique_name(heartbeat_names_, h.name, member_path(path, "name"), "heartbeat name");
      unique_key(h.key, member_path(path, "key"));
      if (r_.ok() && !has_policy(h.policy))
        fail_unknown(member_path(path, "policy"), "policy", h.policy);
    }
  }

  void read_integrations() {
    const rapidjson::Value* integrations = r_.optional_array("integrations");
    for (rapidjson::SizeType i = 0; integrations && i < integrations->Size() && r_.ok();
         ++i) {
      const std::string path = element_path(r_.path_of("integrations"), i);
      org_.integrations.push_back(read_integration((*integrations)[i], path, failure_));
      const provisioned_integration& integration = org_.integrations.back();
      unique_name(integration_names_, integration.name, member_path(path, "name"),
                  "integration name");
      unique_key(integration.key, member_path(path, "key"));
      const bool policy_exists = has_policy(integration.policy);
      if (r_.ok() && !policy_exists) {
        const std::string policy_path = member_path(path, "policy");
        r_.fail("invalid_value", policy_path,
                quoted(policy_path) + " names policy \"" + integration.policy +
                    "\", which org \"" + org_.name + "\" does not define");
      }
      const bool heartbeat_exists =
          std::any_of(org_.heartbeats.begin(), org_.heartbeats.end(),
                      [&](const provisioned_heartbeat& h) {
                        return h.name == integration.heartbeat;
                      });
      if (r_.ok() && !integration.heartbeat.empty() && !heartbeat_exists)
        fail_unknown(member_path(path, "heartbeat"), "heartbeat", integration.heartbeat);
    }
  }

  field_reader r_;
  std::optional<error>& failure_;
  first_seen& org_names_;
  first_seen& keys_;
  first_seen channel_names_;
  first_seen user_names_;
  first_seen schedule_names_;
  first_seen policy_names_;
  first_seen integration_names_;
  first_seen heartbeat_names_;
  first_seen logins_; // lower case
  provisioned_org org_;
};

template <class Items, class Secret>
std::optional<error>
unkept(const std::vector<Items>& given, const std::vector<Items>& stored,
       const std::string& list_path, const char* field, Secret secret) {
  for (size_t i = 0; i < given.size(); ++i) {
    if (secret(given[i]) != stored_secret)
      continue;
    const bool known = std::any_of(stored.begin(), stored.end(), [&](const Items& s) {
      return s.name == given[i].name;
    });
    if (known)
      continue;
    const std::string path = member_path(element_path(list_path, i), field);
    return error{400, "invalid_provisioning",
                 quoted(path) + " is \"<set>\", but \"" + given[i].name +
                     "\" is new: there is no stored value to keep; give it in plain text",
                 path};
  }
  return std::nullopt;
}

} // namespace

std::optional<error> check_kept_secrets(const provisioned_org& given,
                                        const provisioned_org& stored,
                                        const std::string& org_path) {
  const std::string channels = member_path(org_path, "channels");
  if (auto e = unkept(given.channels, stored.channels, channels, "secret",
                      [](const channel_config& c) { return c.secret; }))
    return e;
  if (auto e = unkept(given.channels, stored.channels, channels, "signingSecret",
                      [](const channel_config& c) { return c.signing_secret; }))
    return e;
  if (auto e =
          unkept(given.heartbeats, stored.heartbeats, member_path(org_path, "heartbeats"),
                 "key", [](const provisioned_heartbeat& h) { return h.key; }))
    return e;
  if (auto e = unkept(given.integrations, stored.integrations,
                      member_path(org_path, "integrations"), "key",
                      [](const provisioned_integration& i) { return i.key; }))
    return e;
  for (auto& k : given.named_keys) {
    const bool known =
        std::any_of(stored.named_keys.begin(), stored.named_keys.end(),
                    [&](const provisioned_api_key& s) { return s.name == k.name; });
    if (k.key != stored_secret || known)
      continue;
    const std::string path =
        member_path(element_path(member_path(org_path, "apiKeys"), k.position), "key");
    return error{400, "invalid_provisioning",
                 quoted(path) + " is \"<set>\", but API key \"" + k.name +
                     "\" is new: there is no stored key to keep; give it in plain text",
                 path};
  }
  if (given.auth.oidc.client_secret == stored_secret && !stored.auth.oidc.configured()) {
    const std::string path = member_path(org_path, "auth.oidc.clientSecret");
    return error{
        400, "invalid_provisioning",
        quoted(path) +
            " is \"<set>\", but no client secret is stored; give it in plain text",
        path};
  }
  return std::nullopt;
}

parsed<provisioning> parse_provisioning(std::string_view json) {
  rapidjson::Document doc;
  if (auto bad = parse_json(doc, json, "provisioning file")) {
    if (bad->code != "invalid_json") // text PostgreSQL cannot store: as below
      bad->code = "invalid_provisioning";
    return *bad;
  }
  std::optional<error> failure;
  field_reader r(doc, "", failure);
  r.refuse_unknown({"orgs"});
  provisioning result;
  first_seen org_names;
  first_seen keys;
  if (const rapidjson::Value* orgs = r.required_array("orgs")) {
    for (rapidjson::SizeType i = 0; i < orgs->Size() && !failure; ++i)
      result.orgs.push_back(
          org_reader((*orgs)[i], element_path("orgs", i), failure, org_names, keys)
              .read());
  }
  if (failure) {
    // One code for the whole file: whoever reads it fixes the file, and the field and
    // message say where and what.
    failure->code = "invalid_provisioning";
    return *failure;
  }
  return result;
}

} // namespace belay::protocol
