// Provisioning fails closed (docs/guarantees.md#provisioning-fails-closed): what the file
// no longer names stops working, an org included; `belay provision --check FILE` says
// what would change and changes nothing.
#include "http/keys.hpp"
#include "protocol/hash.hpp"
#include "protocol/provisioning.hpp"
#include "storage/answers.hpp"
#include "storage/db.hpp"
#include "storage/keys.hpp"
#include "storage/provision.hpp"
#include "support/belay_process.hpp"
#include "support/served_belay.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>
#include <thread>

using namespace belay;
using namespace std::chrono_literals;

namespace {

std::string org(const std::string& name, const std::string& channel = "log") {
  return R"({"name":")" + name + R"(","apiKeys":[")" + name + R"(-key"],
    "channels":[{"name":")" +
         channel + R"(","type":"log"}],
    "policies":[{"name":"default","steps":[{"delaySeconds":0,"targets":[{"channel":")" +
         channel + R"(","to":"#ops"}]}]}],
    "integrations":[{"name":"pd","type":"events","key":")" +
         name + R"(-routing","policy":"default"}]})";
}

std::string file(const std::vector<std::string>& orgs) {
  std::string out = R"({"orgs":[)";
  for (size_t i = 0; i < orgs.size(); ++i)
    out += (i ? "," : "") + orgs[i];
  return out + "]}";
}

protocol::provisioning parsed(const std::string& json) {
  auto p = protocol::parse_provisioning(json);
  REQUIRE(std::holds_alternative<protocol::provisioning>(p));
  return std::get<protocol::provisioning>(p);
}

} // namespace

TEST_CASE("an org left out of the provisioning file is disabled and its keys stop "
          "working") {
  test::test_database db;
  db.provision(file({org("acme"), org("beta")}));
  storage::pool pool{db.url(), 1};
  key_store keys{pool, 100ms};
  REQUIRE(keys.org_for("beta-key"));
  REQUIRE(keys.integration_for("beta-routing"));
  auto report = storage::apply_provisioning(db.sql(), parsed(file({org("acme")})));
  CHECK(std::find(report.changes.begin(), report.changes.end(),
                  "org 'beta': disable org (the file no longer names it)") !=
        report.changes.end());
  CHECK(db.count("SELECT count(*) FROM org WHERE name = 'beta' AND disabled_at IS NOT "
                 "NULL") == 1);
  std::this_thread::sleep_for(150ms); // the key cache's bound, here 100 ms
  CHECK_FALSE(keys.org_for("beta-key"));
  CHECK_FALSE(keys.integration_for("beta-routing"));
  CHECK(keys.org_for("acme-key"));
  // Named again, it is enabled with its keys.
  db.provision(file({org("acme"), org("beta")}));
  CHECK(db.count("SELECT count(*) FROM org WHERE disabled_at IS NOT NULL") == 0);
  std::this_thread::sleep_for(2100ms); // the unknown-key cache's bound
  CHECK(keys.org_for("beta-key"));
}

TEST_CASE("a dry run tells what applying would change and changes nothing") {
  test::test_database db;
  db.provision(file({org("acme"), org("beta")}));
  auto before = db.count("SELECT count(*) FROM channel") +
                db.count("SELECT count(*) FROM api_key") +
                db.count("SELECT count(*) FROM integration");
  auto report = storage::apply_provisioning(
      db.sql(), parsed(file({org("acme", "mail"), org("gamma")})), true);
  auto has = [&](const std::string& line) {
    INFO(line);
    return std::find(report.changes.begin(), report.changes.end(), line) !=
           report.changes.end();
  };
  CHECK(has("org 'acme': add channel 'mail'"));
  CHECK(has("org 'acme': remove channel 'log'"));
  CHECK(has("org 'acme': update policy 'default'"));
  CHECK(has("org 'gamma': add org"));
  CHECK(has("org 'beta': disable org (the file no longer names it)"));
  CHECK(has("org 'beta': remove integration 'pd'"));
  for (auto& line : report.changes)
    CHECK(line.find("-key") == std::string::npos); // keys only as hash prefixes
  auto after = db.count("SELECT count(*) FROM channel") +
               db.count("SELECT count(*) FROM api_key") +
               db.count("SELECT count(*) FROM integration");
  CHECK(after == before);
  CHECK(db.count("SELECT count(*) FROM org") == 2);
  // The same file again changes nothing.
  CHECK(storage::apply_provisioning(db.sql(), parsed(file({org("acme"), org("beta")})),
                                    true)
            .changes.empty());
}

TEST_CASE(
    "belay provision --check validates a file, prints the changes, writes nothing") {
  test::test_database db;
  db.provision(file({org("acme")}));
  test::temp_file good{file({org("acme", "mail")})};
  test::belay_process check{
      {"provision", "--check", good.path(), "--database-url", db.url()}};
  CHECK(check.wait_exit() == 0);
  auto out = check.log();
  INFO(out);
  CHECK(out.find("valid (1 org(s))") != std::string::npos);
  CHECK(out.find("org 'acme': add channel 'mail'") != std::string::npos);
  CHECK(db.count("SELECT count(*) FROM channel WHERE name = 'mail'") == 0);

  test::temp_file bad{
      R"({"orgs":[{"name":"acme","channels":[{"name":"x","type":"pigeon"}]}]})"};
  test::belay_process refused{{"provision", "--check", bad.path()}};
  CHECK(refused.wait_exit() != 0);
  INFO(refused.log());
  CHECK(refused.log().find("orgs[0].channels[0].type") != std::string::npos);

  test::belay_process no_db{{"provision", "--check", good.path()}};
  CHECK(no_db.wait_exit() == 0);
  CHECK(no_db.log().find("no database given") != std::string::npos);
}

TEST_CASE("belay provision FILE applies the file, prints what changed, and serves "
          "nothing") {
  test::test_database db;
  db.provision(file({org("acme"), org("beta")}));
  test::temp_file next{file({org("acme", "mail"), org("gamma")})};
  test::belay_process apply{{"provision", next.path(), "--database-url", db.url()}};
  CHECK(apply.wait_exit() == 0);
  auto out = apply.log();
  INFO(out);
  CHECK(out.find("applied ") != std::string::npos);
  CHECK(out.find("org 'acme': add channel 'mail'") != std::string::npos);
  CHECK(out.find("org 'acme': remove channel 'log'") != std::string::npos);
  CHECK(out.find("org 'acme': update policy 'default'") != std::string::npos);
  CHECK(out.find("org 'gamma': add org") != std::string::npos);
  CHECK(out.find("org 'beta': disable org (the file no longer names it)") !=
        std::string::npos);
  CHECK(out.find("-key") == std::string::npos); // keys only as hash prefixes
  CHECK(db.count("SELECT count(*) FROM channel WHERE name = 'mail'") == 1);
  CHECK(db.count("SELECT count(*) FROM channel WHERE name = 'log' AND org_id = "
                 "(SELECT id FROM org WHERE name = 'acme')") == 0);
  CHECK(db.count("SELECT count(*) FROM org WHERE name = 'beta' AND disabled_at IS NOT "
                 "NULL") == 1);

  test::belay_process again{{"provision", "--database-url", db.url(), next.path()}};
  CHECK(again.wait_exit() == 0);
  CHECK(again.log().find("nothing changed") != std::string::npos);

  test::belay_process no_db{{"provision", next.path()}};
  CHECK(no_db.wait_exit() == 2);
  CHECK(no_db.log().find("no database") != std::string::npos);
}

TEST_CASE("a disabled org answers no link and verifies no reply") {
  test::test_database db;
  auto sms = [](const std::string& disabled) {
    return R"({"orgs":[{"name":"acme",)" + disabled + R"("apiKeys":["acme-key"],
      "channels":[{"name":"text","type":"sms","url":"http://127.0.0.1:9/sms",
                   "account":"AC1","secret":"token","from":"+15550000"}],
      "policies":[{"name":"default","steps":[{"targets":[{"channel":"text","to":"+1555"}]}]}]}]})";
  };
  db.provision(sms(""));
  auto org_id = db.org_id("acme");
  REQUIRE(storage::channel_named(db.sql(), org_id, "text"));
  REQUIRE(storage::channels_sending_from(db.sql(), "sms", "+15550000").size() == 1);

  auto report = storage::apply_provisioning(db.sql(), parsed(sms(R"("disabled":true,)")));
  CHECK(std::find(report.changes.begin(), report.changes.end(),
                  "org 'acme': disable org (\"disabled\": true)") !=
        report.changes.end());
  CHECK_FALSE(storage::channel_named(db.sql(), org_id, "text"));
  CHECK(storage::channels_sending_from(db.sql(), "sms", "+15550000").empty());
  CHECK(db.count("SELECT count(*) FROM api_key") == 0);
  CHECK(db.count("SELECT count(*) FROM channel") == 1); // its definitions stay

  storage::apply_provisioning(db.sql(), parsed(sms("")));
  CHECK(storage::channel_named(db.sql(), org_id, "text"));
}

TEST_CASE("a bad --allowed-target-networks stops belay at start, naming the setting") {
  test::test_database db;
  test::belay_process p{{"serve", "--database-url", db.url(), "--allowed-target-networks",
                         "127.0.0.0/8,10.0.0.0/33"}};
  CHECK(p.wait_exit() == 2);
  INFO(p.log());
  CHECK(p.log().find("--allowed-target-networks: entry 2: '10.0.0.0/33' has an invalid "
                     "prefix length (0 to 32)") != std::string::npos);
  test::belay_process env{{"serve", "--database-url", db.url()},
                          {{"BELAY_ALLOWED_TARGET_NETWORKS", "localhost"}}};
  CHECK(env.wait_exit() == 2);
  CHECK(env.log().find("BELAY_ALLOWED_TARGET_NETWORKS") != std::string::npos);
}

TEST_CASE(
    "an integration's grouping is stored, read with its key, and changed in place") {
  test::test_database db;
  auto grouped = [](const std::string& by) {
    return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
      "channels":[{"name":"log","type":"log"}],
      "policies":[{"name":"default","steps":[{"targets":[{"channel":"log","to":"#ops"}]}]}],
      "integrations":[{"name":"prom","type":"alertmanager","key":"acme-am",
                       "policy":"default")" +
           by + "}]}]}";
  };
  db.provision(grouped(R"(,"grouping":{"by":["labels.alertname","labels.c\"x"]})"));
  auto row = storage::find_integration(db.sql(), sha256_hex("acme-am"));
  REQUIRE(row);
  CHECK(row->group_by == std::vector<std::string>{"labels.alertname", "labels.c\"x"});
  auto report = storage::apply_provisioning(db.sql(), parsed(grouped("")));
  REQUIRE(report.changes.size() == 1);
  CHECK(report.changes[0].find("integration 'prom'") != std::string::npos);
  row = storage::find_integration(db.sql(), sha256_hex("acme-am"));
  REQUIRE(row);
  CHECK(row->group_by.empty());
}
