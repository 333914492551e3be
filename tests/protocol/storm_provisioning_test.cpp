// Provisioning of storms (docs/guarantees.md#storms): throttles and bundles per channel,
// grouping per integration, with their defaults and the precise errors bad values get.
#include "parsed_helpers.hpp"
#include "protocol/provisioning.hpp"

using namespace belay;
using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

// One org with a channel whose members are `channel_json` and an integration whose are
// `integration_json` (each spliced into the object).
std::string org_with(const std::string& channel_json,
                     const std::string& integration_json = R"("type":"alertmanager")") {
  return R"({"orgs":[{"name":"acme","channels":[{"name":"c",)" + channel_json +
         R"(}],"policies":[{"name":"p","steps":[{"delaySeconds":0,"targets":[{"channel":"c","to":"x"}]}]}],
         "integrations":[{"name":"prom","key":"k","policy":"p",)" +
         integration_json + R"(}]}]})";
}

const channel_config& channel_of(const parsed<provisioning>& p) {
  return value_of(p).orgs.at(0).channels.at(0);
}

std::vector<std::pair<int, double>> windows(const throttle_windows& w) {
  std::vector<std::pair<int, double>> out;
  for (auto& x : w)
    out.emplace_back(x.count, x.seconds);
  return out;
}

using pairs = std::vector<std::pair<int, double>>;

const error& refused(const parsed<provisioning>& p) {
  const error& e = error_of(p);
  CHECK(e.status == 400);
  CHECK(e.code == "invalid_provisioning");
  return e;
}

} // namespace

TEST_CASE("channels throttle and bundle by their type's defaults") {
  auto sms = org_with(R"("type":"sms","url":"http://t","from":"+1")");
  auto parsed_sms = parse_provisioning(sms);
  CHECK(windows(channel_of(parsed_sms).throttle) == pairs{{1, 60}, {5, 900}, {11, 3600}});
  CHECK(windows(channel_of(parsed_sms).status_throttle) ==
        pairs{{1, 180}, {3, 1200}, {8, 7200}});
  CHECK(channel_of(parsed_sms).bundle);

  auto voice = parse_provisioning(org_with(R"("type":"voice","url":"http://t")"));
  CHECK(windows(channel_of(voice).throttle) == pairs{{1, 60}, {3, 900}, {7, 3600}});
  CHECK(windows(channel_of(voice).status_throttle) ==
        pairs{{1, 180}, {3, 1200}, {8, 7200}});
  CHECK(channel_of(voice).bundle);

  auto email = parse_provisioning(org_with(R"("type":"email","url":"smtp://m")"));
  CHECK(windows(channel_of(email).throttle) == pairs{{1, 60}});
  CHECK(windows(channel_of(email).status_throttle) == pairs{{1, 180}});
  CHECK(channel_of(email).bundle);

  auto slack = parse_provisioning(org_with(R"("type":"slack","url":"http://s")"));
  CHECK(channel_of(slack).throttle.empty());
  CHECK(channel_of(slack).status_throttle.empty());
  CHECK(channel_of(slack).bundle);
  CHECK(channel_of(slack).per_contact());

  for (auto type : {"webhook", "log"}) {
    auto p = parse_provisioning(
        org_with(std::string{R"("type":")"} + type + R"(","url":"http://h")"));
    CHECK(channel_of(p).throttle.empty());
    CHECK(channel_of(p).status_throttle.empty());
    CHECK_FALSE(channel_of(p).bundle);
    CHECK_FALSE(channel_of(p).per_contact()); // pages go page by page, as before
  }
}

TEST_CASE("a channel's throttle and bundle can be changed or turned off") {
  auto p = parse_provisioning(org_with(
      R"("type":"sms","url":"http://t","throttle":[{"count":2,"seconds":0.5}],"statusThrottle":[],"bundle":false)"));
  CHECK(windows(channel_of(p).throttle) == pairs{{2, 0.5}});
  CHECK(channel_of(p).status_throttle.empty());
  CHECK_FALSE(channel_of(p).bundle);

  auto off =
      parse_provisioning(org_with(R"("type":"sms","url":"http://t","throttle":[])"));
  CHECK(channel_of(off).throttle.empty());
  CHECK_FALSE(channel_of(off).status_throttle.empty()); // status updates keep theirs
  CHECK(channel_of(off).per_contact());                 // and the bundle

  auto webhook = parse_provisioning(org_with(
      R"("type":"webhook","url":"http://h","throttle":[{"count":10,"seconds":60}])"));
  CHECK(windows(channel_of(webhook).throttle) == pairs{{10, 60}});
  CHECK(channel_of(webhook).per_contact());
}

TEST_CASE("bad throttles and a bundle a channel cannot send are refused by path") {
  auto bad = [](const std::string& channel_json) {
    return refused(parse_provisioning(org_with(channel_json)));
  };
  auto zero =
      bad(R"("type":"sms","url":"http://t","throttle":[{"count":0,"seconds":60}])");
  CHECK(zero.field == "orgs[0].channels[0].throttle[0].count");
  CHECK(zero.message.find("at least 1") != std::string::npos);

  auto fraction =
      bad(R"("type":"sms","url":"http://t","throttle":[{"count":1.5,"seconds":60}])");
  CHECK(fraction.field == "orgs[0].channels[0].throttle[0].count");

  auto no_span = bad(
      R"("type":"sms","url":"http://t","statusThrottle":[{"count":1,"seconds":60},{"count":2,"seconds":0}])");
  CHECK(no_span.field == "orgs[0].channels[0].statusThrottle[1].seconds");

  auto negative =
      bad(R"("type":"sms","url":"http://t","throttle":[{"count":1,"seconds":-1}])");
  CHECK(negative.field == "orgs[0].channels[0].throttle[0].seconds");

  auto missing = bad(R"("type":"sms","url":"http://t","throttle":[{"count":3}])");
  CHECK(missing.field == "orgs[0].channels[0].throttle[0].seconds");

  auto unknown = bad(
      R"("type":"sms","url":"http://t","throttle":[{"count":1,"seconds":1,"per":"x"}])");
  CHECK(unknown.field == "orgs[0].channels[0].throttle[0].per");

  auto not_array = bad(R"("type":"sms","url":"http://t","throttle":{"count":1})");
  CHECK(not_array.field == "orgs[0].channels[0].throttle");

  for (auto type : {"webhook", "log"}) {
    auto e =
        bad(std::string{R"("type":")"} + type + R"(","url":"http://h","bundle":true)");
    CHECK(e.field == "orgs[0].channels[0].bundle");
    CHECK(e.message.find(type) != std::string::npos);
  }
  // false is what they do anyway
  CHECK_FALSE(channel_of(parse_provisioning(org_with(
                             R"("type":"webhook","url":"http://h","bundle":false)")))
                  .bundle);
}

TEST_CASE("an integration groups by the fields its events have") {
  auto am = parse_provisioning(org_with(
      R"("type":"log")",
      R"("type":"alertmanager","grouping":{"by":["labels.alertname","annotations.team"]})"));
  CHECK(value_of(am).orgs[0].integrations[0].group_by ==
        std::vector<std::string>{"labels.alertname", "annotations.team"});

  auto pd = parse_provisioning(org_with(
      R"("type":"log")",
      R"("type":"events","grouping":{"by":["payload.source","payload.component","payload.group","payload.class","payload.severity","payload.custom_details.region"]})"));
  CHECK(value_of(pd).orgs[0].integrations[0].group_by.size() == 6);

  auto none = parse_provisioning(org_with(R"("type":"log")"));
  CHECK(value_of(none).orgs[0].integrations[0].group_by.empty());
}

TEST_CASE("grouping by a field the integration's events do not have is refused by path") {
  auto bad = [](const std::string& integration_json) {
    return refused(parse_provisioning(org_with(R"("type":"log")", integration_json)));
  };
  auto payload_on_am = bad(
      R"("type":"alertmanager","grouping":{"by":["labels.alertname","payload.source"]})");
  CHECK(payload_on_am.field == "orgs[0].integrations[0].grouping.by[1]");
  CHECK(payload_on_am.message.find("labels.<name>") != std::string::npos);

  auto labels_on_pd = bad(R"("type":"events","grouping":{"by":["labels.alertname"]})");
  CHECK(labels_on_pd.field == "orgs[0].integrations[0].grouping.by[0]");

  CHECK(bad(R"("type":"alertmanager","grouping":{"by":["labels."]})").field ==
        "orgs[0].integrations[0].grouping.by[0]");
  CHECK(bad(R"("type":"events","grouping":{"by":["payload.summary"]})").field ==
        "orgs[0].integrations[0].grouping.by[0]");
  CHECK(bad(R"("type":"alertmanager","grouping":{"by":[]})").field ==
        "orgs[0].integrations[0].grouping.by");
  CHECK(bad(R"("type":"alertmanager","grouping":{})").field ==
        "orgs[0].integrations[0].grouping.by");
  CHECK(bad(R"("type":"alertmanager","grouping":{"by":["labels.a"],"wait":5})").field ==
        "orgs[0].integrations[0].grouping.wait");
  CHECK(bad(R"("type":"alertmanager","grouping":{"by":[7]})").field ==
        "orgs[0].integrations[0].grouping.by[0]");
}
