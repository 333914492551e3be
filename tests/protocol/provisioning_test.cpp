#include "parsed_helpers.hpp"
#include "protocol/provisioning.hpp"

using namespace belay;
using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

// The provisioning example of docs/operations.md#provisioning.
const char* design_example = R"({"orgs":[{"name":"acme","apiKeys":["acme-admin-key"],
  "channels":[{"name":"ops-hook","type":"webhook","url":"http://127.0.0.1:9000/hook","secret":"s",
               "maxAttempts":4,"retryBaseSeconds":30,"retryCapSeconds":120,"timeoutSeconds":5}],
  "policies":[{"name":"default","repeat":0,"repeatDelaySeconds":300,"graceSeconds":300,
               "steps":[{"delaySeconds":0,"targets":[{"channel":"ops-hook","to":"#ops"}]},
                        {"delaySeconds":300,"targets":[{"channel":"ops-hook","to":"lead"}]}]}],
  "integrations":[{"name":"prom","type":"alertmanager","key":"acme-am-key","policy":"default",
                   "grouping":{"by":["labels.alertname","labels.cluster"]}},
                  {"name":"pd","type":"events","key":"acme-routing-key","policy":"default","shadow":false}]}]})";

// The design example with the value at `pointer` (RFC 6901) replaced by `value_json`.
std::string example_with(const char* pointer, const std::string& value_json) {
  return belay::test::with_value(design_example, pointer, value_json);
}

std::string example_without(const char* pointer) {
  return belay::test::without(design_example, pointer);
}

const error& invalid(const parsed<provisioning>& p) {
  const error& e = error_of(p);
  CHECK(e.code == "invalid_provisioning");
  return e;
}

} // namespace

TEST_CASE("the docs/operations.md example provisions one org with everything in it") {
  auto p = value_of(parse_provisioning(design_example));
  REQUIRE(p.orgs.size() == 1);
  const provisioned_org& acme = p.orgs[0];
  CHECK(acme.name == "acme");
  CHECK(acme.api_keys == std::vector<std::string>{"acme-admin-key"});

  REQUIRE(acme.channels.size() == 1);
  const channel_config& hook = acme.channels[0];
  CHECK(hook.org_id == 0);
  CHECK(hook.name == "ops-hook");
  CHECK(hook.type == "webhook");
  CHECK(hook.url == "http://127.0.0.1:9000/hook");
  CHECK(hook.secret == "s");
  CHECK(hook.max_attempts == 4);
  CHECK(hook.retry_base_seconds == 30);
  CHECK(hook.retry_cap_seconds == 120);
  CHECK(hook.timeout_seconds == 5);
  CHECK(hook.failover_to.empty());

  REQUIRE(acme.policies.size() == 1);
  const policy& def = acme.policies[0];
  CHECK(def.name == "default");
  CHECK(def.repeat_delay_seconds == 300.0);
  REQUIRE(def.steps.size() == 2);
  CHECK(def.steps[1].delay_seconds == 300);
  CHECK(def.steps[1].targets[0].to == "lead");

  REQUIRE(acme.integrations.size() == 2);
  CHECK(acme.integrations[0].name == "prom");
  CHECK(acme.integrations[0].type == "alertmanager");
  CHECK(acme.integrations[0].key == "acme-am-key");
  CHECK(acme.integrations[0].policy == "default");
  CHECK_FALSE(acme.integrations[0].shadow);
  CHECK(acme.integrations[0].group_by ==
        std::vector<std::string>{"labels.alertname", "labels.cluster"});
  CHECK(acme.integrations[1].type == "events");
  CHECK(acme.integrations[1].group_by.empty());
}

TEST_CASE("channel settings default to 4 attempts, 30 s base, 120 s cap, 5 s timeout") {
  auto p = value_of(parse_provisioning(example_with(
      "/orgs/0/channels/0",
      R"({"name":"ops-hook","type":"slack","url":"https://hooks.slack.com/x"})")));
  const channel_config& c = p.orgs[0].channels[0];
  CHECK(c.max_attempts == 4);
  CHECK(c.retry_base_seconds == 30);
  CHECK(c.retry_cap_seconds == 120);
  CHECK(c.timeout_seconds == 5);
}

TEST_CASE("durations may be fractional") {
  auto p = value_of(parse_provisioning(example_with(
      "/orgs/0/channels/0",
      R"({"name":"ops-hook","type":"webhook","url":"http://h/","retryBaseSeconds":0.1,"retryCapSeconds":0.4,"timeoutSeconds":0.25})")));
  CHECK(p.orgs[0].channels[0].retry_base_seconds == 0.1);
  CHECK(p.orgs[0].channels[0].retry_cap_seconds == 0.4);
  CHECK(p.orgs[0].channels[0].timeout_seconds == 0.25);
}

TEST_CASE("a retry base above the default cap lifts the cap with it") {
  auto p = value_of(parse_provisioning(
      example_with("/orgs/0/channels/0",
                   R"({"name":"ops-hook","type":"log","retryBaseSeconds":600})")));
  CHECK(p.orgs[0].channels[0].retry_cap_seconds == 600);
}

TEST_CASE("a log channel needs no URL") {
  auto p = value_of(parse_provisioning(
      example_with("/orgs/0/channels/0", R"({"name":"ops-hook","type":"log"})")));
  CHECK(p.orgs[0].channels[0].url.empty());
}

TEST_CASE("an empty org list and an org with only a name are valid") {
  CHECK(value_of(parse_provisioning(R"({"orgs":[]})")).orgs.empty());
  auto p = value_of(parse_provisioning(R"({"orgs":[{"name":"bare"}]})"));
  CHECK(p.orgs[0].channels.empty());
}

TEST_CASE("malformed provisioning JSON is invalid_json with the line") {
  auto e = error_of(parse_provisioning("{\"orgs\": [\n  {\"name\": \"acme\",}\n]}"));
  CHECK(e.code == "invalid_json");
  CHECK_THAT(e.message, Catch::Contains("line 2"));
}

TEST_CASE("orgs is required") {
  auto e = invalid(parse_provisioning("{}"));
  CHECK(e.field == "orgs");
}

TEST_CASE("a misspelt setting is refused with its path") {
  auto e =
      invalid(parse_provisioning(example_with("/orgs/0/channels/0/maxAttempt", "3")));
  CHECK(e.field == "orgs[0].channels[0].maxAttempt");
  CHECK_THAT(e.message, Catch::Contains("not a known field"));
}

TEST_CASE("a missing required field is named by its path") {
  CHECK(invalid(parse_provisioning(example_without("/orgs/0/name"))).field ==
        "orgs[0].name");
  CHECK(invalid(parse_provisioning(example_without("/orgs/0/channels/0/type"))).field ==
        "orgs[0].channels[0].type");
  CHECK(invalid(parse_provisioning(example_without("/orgs/0/channels/0/url"))).field ==
        "orgs[0].channels[0].url");
  CHECK(
      invalid(parse_provisioning(example_without("/orgs/0/integrations/1/key"))).field ==
      "orgs[0].integrations[1].key");
}

TEST_CASE("channel URLs must use the scheme of their transport") {
  struct url_case {
    const char* type;
    const char* url;
    bool accepted;
  };
  auto c = GENERATE(url_case{"webhook", "https://example.org/hook", true},
                    url_case{"webhook", "ftp://example.org/hook", false},
                    url_case{"webhook", "http://", false},
                    url_case{"webhook", "example.org/hook", false},
                    url_case{"webhook", "http://exa mple.org", false},
                    url_case{"slack", "https://hooks.slack.com/services/T/B/X", true},
                    url_case{"sms", "http://127.0.0.1:9100", true},
                    url_case{"voice", "smtp://mail.example.org", false},
                    url_case{"email", "smtps://mail.example.org:465", true},
                    url_case{"email", "SMTP://mail.example.org", true},
                    url_case{"email", "https://mail.example.org", false});
  INFO(c.type << " " << c.url);
  auto result = parse_provisioning(
      example_with("/orgs/0/channels/0", std::string{R"({"name":"ops-hook","type":")"} +
                                             c.type + R"(","url":")" + c.url + "\"}"));
  if (c.accepted) {
    CHECK(value_of(result).orgs[0].channels[0].url == c.url);
  } else {
    const error& e = invalid(result);
    CHECK(e.field == "orgs[0].channels[0].url");
    CHECK_THAT(e.message, !Catch::Contains("example.org"));
  }
}

TEST_CASE("a refused URL is not echoed, since it may carry credentials") {
  auto e = invalid(parse_provisioning(example_with(
      "/orgs/0/channels/0/url", "\"ftp://ops:hunter2@files.example.org/\"")));
  CHECK_THAT(e.message, !Catch::Contains("hunter2"));
}

TEST_CASE("retry and timeout numbers are range-checked") {
  CHECK(invalid(parse_provisioning(example_with("/orgs/0/channels/0/maxAttempts", "0")))
            .field == "orgs[0].channels[0].maxAttempts");
  CHECK(invalid(
            parse_provisioning(example_with("/orgs/0/channels/0/retryBaseSeconds", "0")))
            .field == "orgs[0].channels[0].retryBaseSeconds");
  CHECK(invalid(
            parse_provisioning(example_with("/orgs/0/channels/0/retryCapSeconds", "10")))
            .field == "orgs[0].channels[0].retryCapSeconds");
  CHECK(
      invalid(parse_provisioning(example_with("/orgs/0/channels/0/timeoutSeconds", "-1")))
          .field == "orgs[0].channels[0].timeoutSeconds");
  CHECK(invalid(parse_provisioning(
                    example_with("/orgs/0/channels/0/timeoutSeconds", "\"5\"")))
            .field == "orgs[0].channels[0].timeoutSeconds");
}

TEST_CASE("a channel name may not contain the idempotency key separator") {
  auto e = invalid(
      parse_provisioning(example_with("/orgs/0/channels/0/name", "\"ops:hook\"")));
  CHECK(e.field == "orgs[0].channels[0].name");
}

TEST_CASE("failoverTo must name another channel of the same org") {
  auto self = invalid(
      parse_provisioning(example_with("/orgs/0/channels/0/failoverTo", "\"ops-hook\"")));
  CHECK(self.field == "orgs[0].channels[0].failoverTo");
  CHECK_THAT(self.message, Catch::Contains("itself"));
  auto unknown = invalid(
      parse_provisioning(example_with("/orgs/0/channels/0/failoverTo", "\"pager\"")));
  CHECK(unknown.field == "orgs[0].channels[0].failoverTo");
  CHECK_THAT(unknown.message, Catch::Contains("\"pager\""));
}

TEST_CASE("a failover chain that loops is refused") {
  auto e = invalid(parse_provisioning(example_with("/orgs/0/channels", R"([
    {"name":"ops-hook","type":"log"},
    {"name":"a","type":"log","failoverTo":"b"},
    {"name":"b","type":"log","failoverTo":"c"},
    {"name":"c","type":"log","failoverTo":"a"}])")));
  CHECK(e.field == "orgs[0].channels[1].failoverTo");
  CHECK_THAT(e.message, Catch::Contains("a -> b -> c -> a"));
}

TEST_CASE("a failover chain that ends is fine") {
  auto p = value_of(parse_provisioning(example_with("/orgs/0/channels", R"([
    {"name":"ops-hook","type":"log","failoverTo":"mail"},
    {"name":"mail","type":"email","url":"smtp://127.0.0.1:2525","failoverTo":"sms"},
    {"name":"sms","type":"sms","url":"http://127.0.0.1:9100"}])")));
  CHECK(p.orgs[0].channels[0].failover_to == "mail");
}

TEST_CASE("names are unique within their org") {
  auto channel = invalid(parse_provisioning(
      example_with("/orgs/0/channels/1", R"({"name":"ops-hook","type":"log"})")));
  CHECK(channel.field == "orgs[0].channels[1].name");
  CHECK_THAT(channel.message, Catch::Contains("orgs[0].channels[0].name"));
  auto integration = invalid(
      parse_provisioning(example_with("/orgs/0/integrations/1/name", "\"prom\"")));
  CHECK(integration.field == "orgs[0].integrations[1].name");
  auto policy_doc = json(design_example);
  rapidjson::Value copy(policy_doc["orgs"][0]["policies"][0], policy_doc.GetAllocator());
  policy_doc["orgs"][0]["policies"].PushBack(copy, policy_doc.GetAllocator());
  CHECK(invalid(parse_provisioning(text_of(policy_doc))).field ==
        "orgs[0].policies[1].name");
}

TEST_CASE("org names are unique across the file, other names only within an org") {
  auto doc = json(R"({"orgs":[{"name":"acme","channels":[{"name":"c","type":"log"}]},
                              {"name":"globex","channels":[{"name":"c","type":"log"}]},
                              {"name":"acme"}]})");
  auto e = invalid(parse_provisioning(text_of(doc)));
  CHECK(e.field == "orgs[2].name");
}

TEST_CASE("keys are unique across the whole file and never echoed") {
  auto e = invalid(parse_provisioning(R"({"orgs":[
    {"name":"acme","apiKeys":["secret-1"]},
    {"name":"globex","apiKeys":["other"],
     "channels":[{"name":"c","type":"log"}],
     "policies":[{"name":"p","steps":[{"targets":[{"channel":"c","to":"x"}]}]}],
     "integrations":[{"name":"i","type":"events","key":"secret-1","policy":"p"}]}]})"));
  CHECK(e.field == "orgs[1].integrations[0].key");
  CHECK_THAT(e.message, Catch::Contains("orgs[0].apiKeys[0]"));
  CHECK_THAT(e.message, !Catch::Contains("secret-1"));
}

TEST_CASE("keys must be non-empty and free of whitespace") {
  CHECK(invalid(parse_provisioning(example_with("/orgs/0/apiKeys/0", "\"\""))).field ==
        "orgs[0].apiKeys[0]");
  CHECK(invalid(parse_provisioning(example_with("/orgs/0/apiKeys/0", "\"two words\"")))
            .field == "orgs[0].apiKeys[0]");
  CHECK(invalid(parse_provisioning(example_with("/orgs/0/apiKeys/0", "7"))).field ==
        "orgs[0].apiKeys[0]");
}

TEST_CASE("policy targets must name a channel of the org") {
  auto e = invalid(parse_provisioning(
      example_with("/orgs/0/policies/0/steps/1/targets/0/channel", "\"pager\"")));
  CHECK(e.field == "orgs[0].policies[0].steps[1].targets[0].channel");
  CHECK_THAT(e.message, Catch::Contains("\"pager\""));
}

TEST_CASE("policy shape errors carry the full path") {
  CHECK(
      invalid(parse_provisioning(example_with("/orgs/0/policies/0/steps", "[]"))).field ==
      "orgs[0].policies[0].steps");
  CHECK(invalid(parse_provisioning(example_with("/orgs/0/policies/0/repeat", "-1")))
            .field == "orgs[0].policies[0].repeat");
  CHECK(invalid(parse_provisioning(
                    example_with("/orgs/0/policies/0/steps/0/delaySeconds", "-5")))
            .field == "orgs[0].policies[0].steps[0].delaySeconds");
}

TEST_CASE("integrations must name a policy of the org and a known type") {
  CHECK(invalid(parse_provisioning(
                    example_with("/orgs/0/integrations/0/policy", "\"nightly\"")))
            .field == "orgs[0].integrations[0].policy");
  CHECK(invalid(
            parse_provisioning(example_with("/orgs/0/integrations/0/type", "\"nagios\"")))
            .field == "orgs[0].integrations[0].type");
  CHECK(invalid(
            parse_provisioning(example_with("/orgs/0/integrations/0/shadow", "\"yes\"")))
            .field == "orgs[0].integrations[0].shadow");
}

TEST_CASE("shadow integrations are marked") {
  auto p =
      value_of(parse_provisioning(example_with("/orgs/0/integrations/1/shadow", "true")));
  CHECK(p.orgs[0].integrations[1].shadow);
}

namespace {

// The users and schedules of docs/guarantees.md#on-call, in an org with the channels they
// name and a policy that pages the schedule, then a user.
const char* people_example = R"({"orgs":[{"name":"acme",
  "channels":[{"name":"mail","type":"email","url":"smtp://127.0.0.1:2525"},
              {"name":"sms","type":"sms","url":"http://127.0.0.1:9100"}],
  "users": [{"name": "alice", "fullName": "Alice Ng", "timeZone": "Europe/Berlin",
             "contacts": [{"name": "mail", "channel": "mail", "to": "alice@example.com"},
                          {"name": "phone", "channel": "sms", "to": "+15550100", "statusUpdates": true}],
             "rules": [{"contact": "mail", "delaySeconds": 0}, {"contact": "phone", "delaySeconds": 120}]},
            {"name": "bob", "contacts": [{"name": "mail", "channel": "mail", "to": "bob@example.com"}],
             "rules": [{"contact": "mail"}]},
            {"name": "carol", "contacts": [{"name": "mail", "channel": "mail", "to": "carol@example.com"}],
             "rules": [{"contact": "mail"}]},
            {"name": "dave", "contacts": [{"name": "sms", "channel": "sms", "to": "+15550199"}],
             "rules": [{"contact": "sms"}]}],
  "schedules": [{"name": "primary", "timeZone": "America/New_York",
                 "layers": [{"name": "weekdays", "users": ["alice", "bob", "carol"],
                             "rotation": {"type": "weekly", "length": 1, "start": "2026-11-02T09:00"},
                             "restrictions": [{"days": ["mon","tue","wed","thu","fri"], "start": "09:00", "end": "18:00"}]},
                            {"name": "backstop", "users": ["dave"], "rotation": {"type": "daily", "length": 1, "start": "2026-11-02T00:00"}}]}],
  "policies":[{"name":"default","steps":[{"targets":[{"schedule":"primary"}]},
                                         {"delaySeconds":300,"targets":[{"user":"alice"},{"channel":"mail","to":"lead@example.com"}]}]}]}]})";

std::string people_with(const char* pointer, const std::string& value_json) {
  return belay::test::with_value(people_example, pointer, value_json);
}

std::string people_without(const char* pointer) {
  return belay::test::without(people_example, pointer);
}

} // namespace

TEST_CASE("the docs/ example users and schedules provision with everything in them") {
  auto p = value_of(parse_provisioning(people_example));
  const provisioned_org& acme = p.orgs[0];
  REQUIRE(acme.users.size() == 4);
  const user_config& alice = acme.users[0];
  CHECK(alice.name == "alice");
  CHECK(alice.full_name == "Alice Ng");
  CHECK(alice.time_zone == "Europe/Berlin");
  REQUIRE(alice.contacts.size() == 2);
  CHECK(alice.contacts[0].name == "mail");
  CHECK(alice.contacts[0].channel == "mail");
  CHECK(alice.contacts[0].to == "alice@example.com");
  CHECK_FALSE(alice.contacts[0].status_updates);
  CHECK(alice.contacts[1].channel == "sms");
  CHECK(alice.contacts[1].status_updates);
  REQUIRE(alice.rules.size() == 2);
  CHECK(alice.rules[0].contact == "mail");
  CHECK(alice.rules[0].delay_seconds == 0);
  CHECK(alice.rules[1].contact == "phone");
  CHECK(alice.rules[1].delay_seconds == 120);
  CHECK(acme.users[1].full_name.empty());
  CHECK(acme.users[1].time_zone.empty());

  REQUIRE(acme.schedules.size() == 1);
  const schedule& primary = acme.schedules[0];
  CHECK(primary.name == "primary");
  CHECK(primary.zone == date::locate_zone("America/New_York"));
  REQUIRE(primary.layers.size() == 2);
  CHECK(primary.layers[0].users == std::vector<std::string>{"alice", "bob", "carol"});
  CHECK(primary.layers[1].rotation.type == rotation_type::daily);

  const auto& steps = acme.policies[0].steps;
  CHECK(steps[0].targets[0].schedule == "primary");
  CHECK(steps[1].targets[0].user == "alice");
  CHECK(steps[1].targets[1].channel == "mail");
}

TEST_CASE("users are optional, and so are schedules") {
  auto p = value_of(parse_provisioning(design_example));
  CHECK(p.orgs[0].users.empty());
  CHECK(p.orgs[0].schedules.empty());
}

TEST_CASE("a user's contacts use the org's channels and rules the user's contacts") {
  auto channel = invalid(parse_provisioning(
      people_with("/orgs/0/users/0/contacts/1/channel", R"("pager")")));
  CHECK(channel.field == "orgs[0].users[0].contacts[1].channel");
  CHECK_THAT(channel.message, Catch::Contains("\"pager\""));
  auto rule = invalid(
      parse_provisioning(people_with("/orgs/0/users/0/rules/1/contact", R"("sms")")));
  CHECK(rule.field == "orgs[0].users[0].rules[1].contact");
  CHECK_THAT(rule.message, Catch::Contains("user \"alice\""));
  CHECK(invalid(
            parse_provisioning(people_with("/orgs/0/users/0/rules/1/delaySeconds", "-1")))
            .field == "orgs[0].users[0].rules[1].delaySeconds");
  CHECK(invalid(parse_provisioning(
                    people_with("/orgs/0/users/0/contacts/1/statusUpdates", R"("yes")")))
            .field == "orgs[0].users[0].contacts[1].statusUpdates");
  CHECK(invalid(parse_provisioning(people_without("/orgs/0/users/0/contacts/1/to")))
            .field == "orgs[0].users[0].contacts[1].to");
}

TEST_CASE("a user must be reachable: contacts and rules are required and non-empty") {
  CHECK(
      invalid(parse_provisioning(people_with("/orgs/0/users/1/contacts", "[]"))).field ==
      "orgs[0].users[1].contacts");
  CHECK(invalid(parse_provisioning(people_with("/orgs/0/users/1/rules", "[]"))).field ==
        "orgs[0].users[1].rules");
  CHECK(invalid(parse_provisioning(people_without("/orgs/0/users/1/rules"))).field ==
        "orgs[0].users[1].rules");
}

TEST_CASE("user fields are checked with their paths") {
  CHECK(invalid(parse_provisioning(
                    people_with("/orgs/0/users/0/timeZone", R"("Europe/Atlantis")")))
            .field == "orgs[0].users[0].timeZone");
  CHECK(invalid(parse_provisioning(people_with("/orgs/0/users/0/email", R"("a@b")")))
            .field == "orgs[0].users[0].email");
  CHECK(invalid(parse_provisioning(
                    people_with("/orgs/0/users/0/contacts/0/address", R"("a@b")")))
            .field == "orgs[0].users[0].contacts[0].address");
  auto twice =
      invalid(parse_provisioning(people_with("/orgs/0/users/2/name", R"("bob")")));
  CHECK(twice.field == "orgs[0].users[2].name");
  CHECK_THAT(twice.message, Catch::Contains("orgs[0].users[1].name"));
  CHECK(invalid(parse_provisioning(
                    people_with("/orgs/0/users/0/contacts/1/name", R"("mail")")))
            .field == "orgs[0].users[0].contacts[1].name");
}

TEST_CASE("schedules are checked with their full paths") {
  auto stranger = invalid(parse_provisioning(
      people_with("/orgs/0/schedules/0/layers/1/users/0", R"("mallory")")));
  CHECK(stranger.field == "orgs[0].schedules[0].layers[1].users[0]");
  CHECK_THAT(stranger.message, Catch::Contains("\"mallory\""));
  CHECK(invalid(parse_provisioning(people_with(
                    "/orgs/0/schedules/0/layers/1/rotation/start", R"("tomorrow")")))
            .field == "orgs[0].schedules[0].layers[1].rotation.start");
  CHECK(invalid(parse_provisioning(
                    people_with("/orgs/0/schedules/0/timeZone", R"("Moon/Tycho")")))
            .field == "orgs[0].schedules[0].timeZone");
  CHECK(invalid(parse_provisioning(people_with(
                    "/orgs/0/schedules/0/layers/0/restrictions/0/days/0", R"("lun")")))
            .field == "orgs[0].schedules[0].layers[0].restrictions[0].days[0]");
  CHECK(invalid(parse_provisioning(
                    people_with("/orgs/0/schedules/0/layers/0/rotation/length", "0")))
            .field == "orgs[0].schedules[0].layers[0].rotation.length");
  auto doc = json(people_example);
  rapidjson::Value copy(doc["orgs"][0]["schedules"][0], doc.GetAllocator());
  doc["orgs"][0]["schedules"].PushBack(copy, doc.GetAllocator());
  CHECK(invalid(parse_provisioning(text_of(doc))).field == "orgs[0].schedules[1].name");
}

TEST_CASE("policy targets must name a user or schedule of the org") {
  auto user = invalid(parse_provisioning(
      people_with("/orgs/0/policies/0/steps/1/targets/0", R"({"user":"mallory"})")));
  CHECK(user.field == "orgs[0].policies[0].steps[1].targets[0].user");
  CHECK_THAT(user.message, Catch::Contains("\"mallory\""));
  auto schedule = invalid(parse_provisioning(people_with(
      "/orgs/0/policies/0/steps/0/targets/0", R"({"schedule":"secondary"})")));
  CHECK(schedule.field == "orgs[0].policies[0].steps[0].targets[0].schedule");
  auto both = invalid(
      parse_provisioning(people_with("/orgs/0/policies/0/steps/0/targets/0",
                                     R"({"schedule":"primary","user":"alice"})")));
  CHECK(both.field == "orgs[0].policies[0].steps[0].targets[0].schedule");
}

TEST_CASE("users and schedules belong to their org") {
  auto e = invalid(parse_provisioning(R"({"orgs":[
    {"name":"acme","channels":[{"name":"c","type":"log"}],
     "users":[{"name":"alice","contacts":[{"name":"log","channel":"c","to":"x"}],
               "rules":[{"contact":"log"}]}]},
    {"name":"globex","channels":[{"name":"c","type":"log"}],
     "schedules":[{"name":"s","timeZone":"Etc/UTC","layers":[{"name":"l","users":["alice"],
                   "rotation":{"type":"daily","start":"2026-01-01T00:00"}}]}]}]})"));
  CHECK(e.field == "orgs[1].schedules[0].layers[0].users[0]");
}

namespace {

// The design example with the heartbeat of docs/operations.md#heartbeat-example in it.
std::string with_heartbeat(const std::string& fields = "") {
  return example_with(
      "/orgs/0/heartbeats",
      R"([{"name":"nightly-backup","key":"nightly-ping-key","periodSeconds":86400,
           "graceSeconds":3600,"policy":"default")" +
          fields + "}]");
}

std::string heartbeat_with(const char* pointer, const std::string& value_json) {
  return belay::test::with_value(with_heartbeat(), pointer, value_json);
}

} // namespace

TEST_CASE("the docs/operations.md heartbeat provisions with everything in it") {
  auto p = value_of(parse_provisioning(with_heartbeat()));
  REQUIRE(p.orgs[0].heartbeats.size() == 1);
  auto& h = p.orgs[0].heartbeats[0];
  CHECK(h.name == "nightly-backup");
  CHECK(h.key == "nightly-ping-key");
  CHECK(h.period_seconds == 86400);
  CHECK(h.grace_seconds == 3600);
  CHECK(h.policy == "default");
  CHECK_FALSE(h.alert_if_never_pinged);
  auto never =
      value_of(parse_provisioning(with_heartbeat(R"(,"alertIfNeverPinged":true)")));
  CHECK(never.orgs[0].heartbeats[0].alert_if_never_pinged);
}

TEST_CASE("heartbeat fields are checked with their paths") {
  auto field_of = [](const std::string& doc) {
    return invalid(parse_provisioning(doc)).field;
  };
  CHECK(field_of(heartbeat_with("/orgs/0/heartbeats/0/periodSeconds", "0")) ==
        "orgs[0].heartbeats[0].periodSeconds");
  CHECK(field_of(heartbeat_with("/orgs/0/heartbeats/0/periodSeconds", "\"1d\"")) ==
        "orgs[0].heartbeats[0].periodSeconds");
  CHECK(field_of(heartbeat_with("/orgs/0/heartbeats/0/graceSeconds", "-1")) ==
        "orgs[0].heartbeats[0].graceSeconds");
  CHECK(field_of(heartbeat_with("/orgs/0/heartbeats/0/policy", "\"nope\"")) ==
        "orgs[0].heartbeats[0].policy");
  CHECK(field_of(heartbeat_with("/orgs/0/heartbeats/0/key", "\"a/b\"")) ==
        "orgs[0].heartbeats[0].key");
  CHECK(field_of(heartbeat_with("/orgs/0/heartbeats/0/alertIfNeverPinged", "1")) ==
        "orgs[0].heartbeats[0].alertIfNeverPinged");
  CHECK(field_of(heartbeat_with("/orgs/0/heartbeats/0/periodSecs", "5")) ==
        "orgs[0].heartbeats[0].periodSecs");
  auto missing = invalid(parse_provisioning(
      belay::test::without(with_heartbeat(), "/orgs/0/heartbeats/0/periodSeconds")));
  CHECK(missing.field == "orgs[0].heartbeats[0].periodSeconds");
  CHECK(missing.message == "'orgs[0].heartbeats[0].periodSeconds' is required");
}

TEST_CASE("a heartbeat key is unique across the file and never echoed") {
  auto e = invalid(
      parse_provisioning(heartbeat_with("/orgs/0/heartbeats/0/key", "\"acme-am-key\"")));
  // Heartbeats come before integrations: the integration's key is the later one.
  CHECK(e.field == "orgs[0].integrations[0].key");
  CHECK_THAT(e.message, Catch::Contains("orgs[0].heartbeats[0].key"));
  CHECK_THAT(e.message, !Catch::Contains("acme-am-key"));
  auto names = invalid(parse_provisioning(heartbeat_with(
      "/orgs/0/heartbeats/1",
      R"({"name":"nightly-backup","key":"k2","periodSeconds":60,"policy":"default"})")));
  CHECK(names.field == "orgs[0].heartbeats[1].name");
}

TEST_CASE("an alertmanager integration may name a heartbeat of its org for Watchdog") {
  auto p = value_of(parse_provisioning(
      heartbeat_with("/orgs/0/integrations/0/heartbeat", "\"nightly-backup\"")));
  CHECK(p.orgs[0].integrations[0].heartbeat == "nightly-backup");
  CHECK(invalid(parse_provisioning(
                    heartbeat_with("/orgs/0/integrations/0/heartbeat", "\"other\"")))
            .field == "orgs[0].integrations[0].heartbeat");
  // Only Alertmanager sends a Watchdog.
  CHECK(invalid(parse_provisioning(heartbeat_with("/orgs/0/integrations/1/heartbeat",
                                                  "\"nightly-backup\"")))
            .field == "orgs[0].integrations[1].heartbeat");
}
