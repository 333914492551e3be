// The provisioning file (docs/operations.md#provisioning): what parses is a configuration
// belay can apply as it stands — every name it refers to exists, names and keys are
// unique, failover chains end — and a refusal says where the file is wrong.
#include "checks.hpp"
#include "protocol/provisioning.hpp"

#include <set>

using namespace belay;
using namespace belay::fuzz;

namespace {

bool is_one_of(std::string_view s, std::initializer_list<std::string_view> choices) {
  for (auto choice : choices)
    if (s == choice)
      return true;
  return false;
}

// The scheme of "<scheme>://<host>…", lower-cased; empty when there is no host.
std::string scheme_with_host(std::string_view url) {
  const auto separator = url.find("://");
  if (separator == std::string_view::npos || separator == 0)
    return "";
  const auto host = url.substr(separator + 3);
  if (host.empty() || host[0] == '/' || host[0] == '?' || host[0] == '#')
    return "";
  std::string scheme{url.substr(0, separator)};
  for (char& c : scheme)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return scheme;
}

bool is_key(std::string_view key) {
  if (key.empty() || !is_utf8(key))
    return false;
  for (char c : key)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F)
      return false;
  return true;
}

const channel_config* channel_named(const protocol::provisioned_org& org,
                                    const std::string& name) {
  for (const auto& c : org.channels)
    if (c.name == name)
      return &c;
  return nullptr;
}

void check_channel(const protocol::provisioned_org& org, const channel_config& c) {
  check_name(c.name);
  FUZZ_CHECK(c.name.find(':') == std::string::npos);
  FUZZ_CHECK(is_one_of(c.type, {"webhook", "slack", "email", "sms", "voice", "log"}));
  if (c.type != "log")
    FUZZ_CHECK(is_key(c.url)); // no whitespace or control characters
  if (c.type == "email")
    FUZZ_CHECK(is_one_of(scheme_with_host(c.url), {"smtp", "smtps"}));
  else if (c.type != "log")
    FUZZ_CHECK(is_one_of(scheme_with_host(c.url), {"http", "https"}));
  for (const std::string* text : {&c.url, &c.secret, &c.account, &c.from})
    FUZZ_CHECK(is_utf8(*text) && !has_nul(*text));
  FUZZ_CHECK(c.max_attempts >= 1);
  FUZZ_CHECK(is_duration(c.retry_base_seconds) && c.retry_base_seconds > 0);
  FUZZ_CHECK(is_duration(c.retry_cap_seconds) &&
             c.retry_cap_seconds >= c.retry_base_seconds);
  FUZZ_CHECK(is_duration(c.timeout_seconds) && c.timeout_seconds > 0);
  // A dead letter moves along failoverTo: the chain must reach its end.
  const channel_config* at = &c;
  for (std::size_t hops = 0; !at->failover_to.empty(); ++hops) {
    FUZZ_CHECK(hops < org.channels.size());
    at = channel_named(org, at->failover_to);
    FUZZ_CHECK(at != nullptr);
  }
}

void check_org(const protocol::provisioned_org& org, std::set<std::string>& keys) {
  check_name(org.name);
  for (const auto& key : org.api_keys) {
    FUZZ_CHECK(is_key(key));
    FUZZ_CHECK(keys.insert(key).second);
  }
  std::set<std::string> channels;
  for (const auto& c : org.channels) {
    FUZZ_CHECK(channels.insert(c.name).second);
    check_channel(org, c);
  }
  std::set<std::string> policies;
  for (const auto& p : org.policies) {
    FUZZ_CHECK(policies.insert(p.name).second);
    check_policy(p);
    check_policy_round_trip(p);
    for (const auto& s : p.steps)
      for (const auto& t : s.targets)
        FUZZ_CHECK(channels.count(t.channel) == 1);
  }
  std::set<std::string> integrations;
  for (const auto& i : org.integrations) {
    check_name(i.name);
    FUZZ_CHECK(integrations.insert(i.name).second);
    FUZZ_CHECK(is_one_of(i.type, {"events", "alertmanager"}));
    FUZZ_CHECK(is_key(i.key));
    FUZZ_CHECK(keys.insert(i.key).second);
    FUZZ_CHECK(policies.count(i.policy) == 1);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json = bytes(data, size);
  auto result = protocol::parse_provisioning(json);
  if (auto* e = std::get_if<protocol::error>(&result)) {
    check_error(*e, json, {"invalid_json", "invalid_provisioning"});
    return 0;
  }
  std::set<std::string> org_names;
  std::set<std::string> keys; // API and integration keys share one namespace
  for (const auto& org : std::get<protocol::provisioning>(result).orgs) {
    FUZZ_CHECK(org_names.insert(org.name).second);
    check_org(org, keys);
  }
  return 0;
}
