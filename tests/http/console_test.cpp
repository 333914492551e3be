// The console in a real browser: tests/console/console.spec.mjs drives Debian's chromium
// through playwright-core against a belay with a private database. The spec prints each
// step; on failure its output says which step and what the page showed.
#include "support/belay_process.hpp"
#include "support/oidc_provider.hpp"
#include "support/people.hpp"
#include "support/served_belay.hpp"
#include "support/shell.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <sys/stat.h>

using namespace belay;

namespace {

const char* const api_key = "console-test-key";

// The spec triggers with policy "default"; the second step is far off, so the incident
// is still OPEN (with a timer ticking in the page) when the browser acknowledges it.
// Policy "oncall" pages whoever is on call in "primary", for the incident view.
// Policy "answer" pages carol on the spec's own webhook, listening on `hook_port`.
// Heartbeat "nightly-backup" (ping key console-hb-key) is pinged by the spec.
// Policy "storm" posts to #storm on a Slack-shaped channel (the spec's webhook again)
// that lets one message through every 25 s (long enough that a loaded machine still sees
// the rest held: at 8 s the throttle opened before the page was looked at) and bundles
// the rest (docs/guarantees.md#storms); integration "prom" groups Alertmanager alerts by
// alertname into incidents of "default". Alice's second contact, which no rule pages, and
// the secrets (hook's, chat's, the keys) are for the configuration view: the spec checks
// that no secret reaches the page. People sign in (docs/security.md) with a password or
// through `issuer`: alice is an admin, bob a responder.
std::string provisioning(int hook_port,
                         const std::string& issuer = "http://127.0.0.1:9") {
  return R"({"orgs":[{"name":"console","apiKeys":["console-test-key"],
  "auth":{"password":true,"oidc":{"issuer":")" +
         issuer + R"(","clientId":"belay","clientSecret":"console-oidc-secret"}},
  "channels":[{"name":"log","type":"log"},
    {"name":"hook","type":"webhook","url":"http://127.0.0.1:)" +
         std::to_string(hook_port) + R"(/hook","secret":"console-hook-secret"},
    {"name":"chat","type":"slack","url":"http://127.0.0.1:)" +
         std::to_string(hook_port) +
         R"(/slack","signingSecret":"console-slack","throttle":[{"count":1,"seconds":25}]}],
  "users":[
    {"name":"alice","role":"admin","login":"alice@example.com","contacts":[{"name":"l","channel":"log","to":"alice"},
      {"name":"phone","channel":"log","to":"+15550100"}],"rules":[{"contact":"l"}]},
    {"name":"bob","login":"bob@example.com","contacts":[{"name":"l","channel":"log","to":"bob"}],"rules":[{"contact":"l"}]},
    {"name":"carol","contacts":[{"name":"h","channel":"hook","to":"carol"}],"rules":[{"contact":"h"}]}],
  "schedules":[{"name":"primary","timeZone":"Europe/Berlin","layers":[{"name":"days",
    "users":["alice","bob"],"rotation":{"type":"daily","start":"2026-01-01T09:00"}}]}],
  "policies":[{"name":"default","steps":[
    {"delaySeconds":0,"targets":[{"channel":"log","to":"#ops"}]},
    {"delaySeconds":600,"targets":[{"channel":"log","to":"lead"}]}]},
    {"name":"oncall","steps":[{"delaySeconds":0,"targets":[{"schedule":"primary"}]}]},
    {"name":"storm","steps":[{"delaySeconds":0,"targets":[{"channel":"chat","to":"#storm"}]}]},
    {"name":"answer","steps":[{"delaySeconds":0,"targets":[{"user":"carol"}]},
      {"delaySeconds":600,"targets":[{"channel":"log","to":"lead"}]}]}],
  "heartbeats":[{"name":"nightly-backup","key":"console-hb-key","periodSeconds":86400,
    "graceSeconds":3600,"policy":"default"}],
  "integrations":[{"name":"deploys","type":"events","key":"console-routing","policy":"default"},
    {"name":"prom","type":"alertmanager","key":"console-prom","policy":"default",
     "grouping":{"by":["labels.alertname"]}}]}]})";
}

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string build_dir() {
  const std::string binary = BELAY_BINARY;
  return binary.substr(0, binary.rfind('/'));
}

std::string tail(const std::string& text, size_t chars) {
  return text.size() <= chars ? text : "…" + text.substr(text.size() - chars);
}

} // namespace

TEST_CASE(
    "the console shows a triggered incident live and acknowledges it in a real browser",
    "[browser]") {
  const std::string spec_dir = BELAY_SOURCE_DIR "/tests/console";
  if (!exists("/usr/bin/chromium"))
    FAIL("/usr/bin/chromium is missing: install Debian's chromium (scripts/lib.sh "
         "BELAY_PACKAGES)");
  if (!exists(spec_dir + "/node_modules/playwright-core"))
    FAIL("playwright-core is not installed in tests/console: run scripts/test, or npm ci "
         "in tests/console");
  REQUIRE(test::run_command("command -v node 2>&1").exit_code == 0);

  test::test_database db;
  const int hook_port = test::free_port();
  test::oidc_provider idp{"console-oidc-secret"};
  test::temp_file provision_file{provisioning(hook_port, idp.issuer())};

  auto belay =
      test::belay_process::serve(db.url(), {"--provision", provision_file.path()});
  const std::string base_url = "http://127.0.0.1:" + std::to_string(belay.port());
  idp.configure(base_url + "/auth/oidc/callback");
  idp.next_login("sub-bob", "bob@example.com");
  const std::string password = "alice's console password";
  REQUIRE(test::set_password(db, "console", "alice@example.com", password).exit_code ==
          0);
  const std::string screenshot = build_dir() + "/console.png";
  std::remove(screenshot.c_str());

  // The spec bounds each step (~15 s) and its whole run (180 s); timeout(1) is the last
  // guard against a hang, killing node and so the browser.
  auto [code, output] = test::run_command(
      "cd '" + spec_dir + "' && timeout -k 10 240 node console.spec.mjs '" + base_url +
      "' '" + api_key + "' '" + screenshot + "' " + std::to_string(hook_port) + " \"" +
      password + "\" 2>&1");
  INFO("console.spec.mjs output:\n" << output);
  INFO("belay log (tail):\n" << tail(belay.log(), 4000));
  CHECK(code == 0);
  CHECK(exists(screenshot));
  CHECK(belay.stop() == 0);
}

// Without a browser: the page offers the configuration view, and its script is served and
// reads GET /api/v1/config (docs/http.md#console-configuration).
TEST_CASE("the console's page offers the configuration view and serves its script") {
  test::test_database db;
  test::temp_file provision_file{provisioning(test::free_port())};
  auto belay =
      test::belay_process::serve(db.url(), {"--provision", provision_file.path()});
  auto client = belay.client();

  auto page = client.Get("/console");
  REQUIRE(page);
  CHECK(page->status == 200);
  CHECK(page->body.find(R"(id="nav-config")") != std::string::npos);
  CHECK(page->body.find(R"(id="config-view")") != std::string::npos);
  CHECK(page->body.find(R"(<script src="/console/config.js")") != std::string::npos);

  auto script = client.Get("/console/config.js");
  REQUIRE(script);
  CHECK(script->status == 200);
  CHECK(script->get_header_value("Content-Type") == "text/javascript; charset=utf-8");
  CHECK(script->body.find("'/api/v1/config'") != std::string::npos);
  CHECK(belay.stop() == 0);
}
