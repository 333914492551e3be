#include "protocol/provisioning_json.hpp"

#include "protocol/json_writer.hpp"
#include "protocol/policy_json.hpp"
#include "protocol/schedule_json.hpp"
#include "protocol/throttle.hpp"

namespace belay::protocol {

namespace {

void write_text(json_writer& w, const char* key, const std::string& value) {
  w.Key(key);
  write_string(w, value);
}

// Optional strings: "" means not given, and some fields refuse a blank value.
void write_given(json_writer& w, const char* key, const std::string& value) {
  if (!value.empty())
    write_text(w, key, value);
}

// The channel row's own form (protocol/throttle.hpp) is the file's.
void write_throttle(json_writer& w, const char* key, const throttle_windows& windows) {
  w.Key(key);
  write_stored_json(w, throttle_json(windows));
}

void write_channel(json_writer& w, const channel_config& c) {
  w.StartObject();
  write_text(w, "name", c.name);
  write_text(w, "type", c.type);
  write_given(w, "url", c.url);
  write_given(w, "secret", c.secret);
  write_given(w, "signingSecret", c.signing_secret);
  write_given(w, "account", c.account);
  write_given(w, "from", c.from);
  w.Key("maxAttempts");
  w.Int(c.max_attempts);
  w.Key("retryBaseSeconds");
  w.Double(c.retry_base_seconds);
  w.Key("retryCapSeconds");
  w.Double(c.retry_cap_seconds);
  w.Key("timeoutSeconds");
  w.Double(c.timeout_seconds);
  write_given(w, "failoverTo", c.failover_to);
  write_throttle(w, "throttle", c.throttle);
  write_throttle(w, "statusThrottle", c.status_throttle);
  w.Key("bundle");
  w.Bool(c.bundle);
  w.EndObject();
}

// Storage's definitions always hold a timeZone (storage/provision.cpp wrote "" for none
// before this writer existed); a document leaves an empty one out, as the parser
// refuses it blank.
void write_user_fields(json_writer& w, const user_config& u, bool empty_zone) {
  write_text(w, "fullName", u.full_name);
  if (empty_zone)
    write_text(w, "timeZone", u.time_zone);
  else
    write_given(w, "timeZone", u.time_zone);
  w.Key("contacts");
  w.StartArray();
  for (auto& c : u.contacts) {
    w.StartObject();
    write_text(w, "name", c.name);
    write_text(w, "channel", c.channel);
    write_text(w, "to", c.to);
    w.Key("statusUpdates");
    w.Bool(c.status_updates);
    w.EndObject();
  }
  w.EndArray();
  w.Key("rules");
  w.StartArray();
  for (auto& r : u.rules) {
    w.StartObject();
    write_text(w, "contact", r.contact);
    w.Key("delaySeconds");
    w.Double(r.delay_seconds);
    w.EndObject();
  }
  w.EndArray();
}

void write_heartbeat(json_writer& w, const provisioned_heartbeat& h) {
  w.StartObject();
  write_text(w, "name", h.name);
  write_text(w, "key", h.key);
  w.Key("periodSeconds");
  w.Double(h.period_seconds);
  w.Key("graceSeconds");
  w.Double(h.grace_seconds);
  write_text(w, "policy", h.policy);
  w.Key("alertIfNeverPinged");
  w.Bool(h.alert_if_never_pinged);
  w.EndObject();
}

void write_integration(json_writer& w, const provisioned_integration& i) {
  w.StartObject();
  write_text(w, "name", i.name);
  write_text(w, "type", i.type);
  write_text(w, "key", i.key);
  write_text(w, "policy", i.policy);
  w.Key("shadow");
  w.Bool(i.shadow);
  w.Key("rateLimitPerMinute");
  w.Int(i.rate_limit_per_minute);
  write_given(w, "heartbeat", i.heartbeat);
  if (!i.group_by.empty()) {
    w.Key("grouping");
    w.StartObject();
    w.Key("by");
    w.StartArray();
    for (auto& path : i.group_by)
      write_string(w, path);
    w.EndArray();
    w.EndObject();
  }
  w.EndObject();
}

void write_named_key(json_writer& w, const provisioned_api_key& k) {
  w.StartObject();
  write_text(w, "name", k.name);
  write_text(w, "key", k.key);
  write_text(w, "scope", std::string{scope_name(k.scope)});
  w.EndObject();
}

// Left out when it says only the defaults (passwords on, no OpenID provider).
void write_auth(json_writer& w, const org_auth& a) {
  if (a.password && !a.oidc.configured())
    return;
  w.Key("auth");
  w.StartObject();
  if (a.oidc.configured()) {
    w.Key("oidc");
    w.StartObject();
    write_text(w, "issuer", a.oidc.issuer);
    write_text(w, "clientId", a.oidc.client_id);
    write_text(w, "clientSecret", a.oidc.client_secret);
    write_text(w, "scopes", a.oidc.scopes);
    write_text(w, "claim", a.oidc.claim);
    w.EndObject();
  }
  w.Key("password");
  w.Bool(a.password);
  w.EndObject();
}

template <class Items, class Write>
void write_list(json_writer& w, const char* key, const Items& items, Write write) {
  w.Key(key);
  w.StartArray();
  for (auto& item : items)
    write(w, item);
  w.EndArray();
}

} // namespace

std::string render_provisioning(const provisioned_org& o) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("orgs");
  w.StartArray();
  w.StartObject();
  write_text(w, "name", o.name);
  if (o.disabled) {
    w.Key("disabled");
    w.Bool(true);
  }
  w.Key("apiKeys");
  w.StartArray();
  for (auto& key : o.api_keys)
    write_string(w, key);
  for (auto& key : o.named_keys)
    write_named_key(w, key);
  w.EndArray();
  write_auth(w, o.auth);
  write_list(w, "channels", o.channels, write_channel);
  write_list(w, "users", o.users, [](json_writer& w, const user_config& u) {
    w.StartObject();
    write_text(w, "name", u.name);
    if (u.role != role::responder) // the default, left out as provisioning may
      write_text(w, "role", std::string{role_name(u.role)});
    write_given(w, "login", u.login);
    write_user_fields(w, u, false);
    w.EndObject();
  });
  write_list(w, "schedules", o.schedules, write_schedule);
  write_list(w, "policies", o.policies, write_policy);
  write_list(w, "heartbeats", o.heartbeats, write_heartbeat);
  write_list(w, "integrations", o.integrations, write_integration);
  w.EndObject();
  w.EndArray();
  w.EndObject();
  return to_string(out);
}

std::string render_provision_changes(bool dry_run, size_t changed_rows,
                                     const std::vector<std::string>& changes) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("dryRun");
  w.Bool(dry_run);
  w.Key("changedRows");
  w.Uint64(changed_rows);
  write_list(w, "changes", changes,
             [](json_writer& w, const std::string& line) { write_string(w, line); });
  w.EndObject();
  return to_string(out);
}

std::string render_user_definition(const user_config& u) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  write_user_fields(w, u, true);
  w.EndObject();
  return to_string(out);
}

} // namespace belay::protocol
