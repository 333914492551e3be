// Secrets at rest (docs/guarantees.md#no-key-at-rest-in-clear): sealing and opening, the
// refusals at start (a missing key, a key of the wrong id), and a rotation: a node reads
// values under the old key until `belay rekey` rewrites them under the new one.
#include "protocol/hash.hpp"
#include "protocol/provisioning.hpp"
#include "storage/db.hpp"
#include "storage/provision.hpp"
#include "storage/sealed.hpp"
#include "storage/stored_secrets.hpp"
#include "support/belay_process.hpp"
#include "support/eventually.hpp"
#include "support/http_sink.hpp"
#include "support/served_belay.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

const std::string key_a = std::string(64, 'a');
const std::string key_b =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

storage::keyring ring(const std::string& current, const std::string& old = "") {
  storage::keyring keys;
  keys.current = storage::parse_data_key(current, "test");
  if (!old.empty())
    keys.old = storage::parse_data_key(old, "test");
  return keys;
}

std::string hook_org(const std::string& hook_url) {
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[{"name":"hook","type":"webhook","url":")" +
         hook_url + R"(","secret":"hook-secret-42"}],
    "policies":[{"name":"default","steps":[{"delaySeconds":0,"targets":[
      {"channel":"hook","to":"#ops"}]}]}]}]})";
}

// `belay <command>` against the database with `flags` and no key unless they give one.
test::belay_process run_belay(const std::string& command, const test::test_database& db,
                              std::vector<std::string> flags) {
  std::vector<std::string> args{command, "--database-url", db.url()};
  if (command == "serve")
    args.insert(args.end(), {"--port", std::to_string(test::free_port())});
  args.insert(args.end(), flags.begin(), flags.end());
  return test::belay_process{args,
                             {{"BELAY_DATA_ENCRYPTION_KEY_FILE", ""},
                              {"BELAY_ALLOWED_TARGET_NETWORKS", "127.0.0.0/8,::1"}}};
}

// Every non-empty value of the secret columns, as stored.
std::vector<std::string> stored_secrets(test::test_database& db) {
  auto r = db.sql().exec(R"sql(
    SELECT v FROM channel, LATERAL (VALUES (url), (secret), (signing_secret)) s(v) WHERE v <> ''
    UNION ALL SELECT secret FROM signing_secret)sql");
  std::vector<std::string> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(r.str(i, 0));
  return out;
}

bool all_sealed_under(test::test_database& db, const std::string& key_id) {
  auto values = stored_secrets(db);
  for (auto& v : values)
    if (storage::sealed_key_id(v) != key_id)
      return false;
  return !values.empty();
}

} // namespace

TEST_CASE("a sealed value opens with its key only, and each seal draws a new nonce") {
  auto keys = ring(key_a);
  auto sealed = storage::seal(keys, "hook-secret-42");
  CHECK(sealed.find("hook-secret-42") == std::string::npos);
  CHECK(storage::sealed_key_id(sealed) == keys.current->id);
  CHECK(storage::seal(keys, "hook-secret-42") != sealed);
  CHECK(storage::open(keys, sealed) == "hook-secret-42");
  CHECK(storage::seal(keys, "").empty());
  CHECK(storage::open(keys, "clear value") == "clear value");
  CHECK(storage::seal(storage::keyring{}, "no key: clear") == "no key: clear");

  // A wrong key: its id differs, and the refusal names the id, never the value.
  try {
    storage::open(ring(key_b), sealed);
    FAIL("opened under the wrong key");
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    CHECK(what.find(keys.current->id) != std::string::npos);
    CHECK(what.find("hook-secret-42") == std::string::npos);
  }
  // An altered value does not open (GCM's tag).
  auto altered = sealed;
  altered[altered.size() - 3] = altered[altered.size() - 3] == 'A' ? 'B' : 'A';
  CHECK_THROWS_AS(storage::open(keys, altered), std::runtime_error);
}

TEST_CASE("a key file holds 32 bytes as hex or base64, and nothing else") {
  auto hex = storage::parse_data_key(key_b + "\n", "--data-encryption-key-file");
  auto b64 = storage::parse_data_key("ASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4mrze8=",
                                     "--data-encryption-key-file");
  CHECK(hex.bytes == b64.bytes);
  CHECK(hex.id == b64.id);
  CHECK(hex.id.size() == 8);
  for (auto bad : {"", "abc", "0123456789abcdef", "not base64 at all, not hex either!!"})
    CHECK_THROWS_WITH(storage::parse_data_key(bad, "--data-encryption-key-file"),
                      Catch::Contains("--data-encryption-key-file"));
}

TEST_CASE("without a key, belay serve refuses a provisioning file with a secret, "
          "naming the setting, and writes nothing") {
  test::test_database db{false};
  test::temp_file provisioning{hook_org("http://127.0.0.1:9/hook")};
  auto refused = run_belay("serve", db, {"--provision", provisioning.path()});
  CHECK(refused.wait_exit() == 2);
  auto log = refused.log();
  INFO(log);
  CHECK(log.find("--data-encryption-key-file") != std::string::npos);
  CHECK(log.find("BELAY_DATA_ENCRYPTION_KEY_FILE") != std::string::npos);
  CHECK(log.find("belay: ") == log.rfind("belay: ")); // one line says why
  CHECK(db.count("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()") ==
        0);
}

TEST_CASE("without a key, belay serve and belay provision refuse a database holding "
          "channel secrets") {
  test::test_database db;
  db.provision(hook_org("http://127.0.0.1:9/hook")); // stored in clear: no key here
  auto serve = run_belay("serve", db, {});
  CHECK(serve.wait_exit() == 2);
  CHECK(serve.log().find("--data-encryption-key-file") != std::string::npos);
  test::temp_file logs_only{R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[{"name":"log","type":"log"}],"policies":[]}]})"};
  auto check = run_belay("provision", db, {"--check", logs_only.path()});
  CHECK(check.wait_exit() == 2);
  CHECK(check.log().find("--data-encryption-key-file") != std::string::npos);
  CHECK(db.count("SELECT count(*) FROM channel WHERE url LIKE 'sealed:%'") == 0);
}

TEST_CASE(
    "a clear database is sealed at the first start with a key, and pages as before") {
  test::test_database db;
  test::http_sink sink;
  db.provision(hook_org(sink.url("/hook")));
  CHECK(stored_secrets(db).size() == 3); // url, secret, and the answer-link secret
  test::temp_file key{key_a};
  test::temp_file provisioning{hook_org(sink.url("/hook"))};
  auto node = run_belay(
      "serve", db,
      {"--data-encryption-key-file", key.path(), "--provision", provisioning.path()});
  REQUIRE(node.wait_ready());
  CHECK(all_sealed_under(db, ring(key_a).current->id));
  // Applying the same file again changed no row, though every seal draws a new nonce.
  CHECK(node.log().find("0 row(s) changed") != std::string::npos);
  auto http = node.client();
  auto r = http.Post("/api/v1/incidents", {{"Authorization", "Bearer alpha-key"}},
                     R"({"dedupKey":"disk","title":"t","policy":"default"})",
                     "application/json");
  REQUIRE(r);
  CHECK(r->status == 201);
  CHECK(test::eventually([&] { return !sink.requests().empty(); }));
}

TEST_CASE("a value under a key the node does not hold stops start-up naming the key id "
          "only, the old key reads it, and belay rekey moves everything to the new key") {
  test::test_database db;
  test::http_sink sink;
  test::temp_file old_key{key_a}, new_key{key_b};
  test::temp_file provisioning{hook_org(sink.url("/hook"))};
  {
    auto first = run_belay("serve", db,
                           {"--data-encryption-key-file", old_key.path(), "--provision",
                            provisioning.path()});
    REQUIRE(first.wait_ready());
    first.stop();
  }
  auto old_id = ring(key_a).current->id, new_id = ring(key_b).current->id;
  REQUIRE(all_sealed_under(db, old_id));

  auto unknown = run_belay("serve", db, {"--data-encryption-key-file", new_key.path()});
  CHECK(unknown.wait_exit() == 2);
  auto log = unknown.log();
  INFO(log);
  CHECK(log.find("key id '" + old_id + "'") != std::string::npos);
  for (auto& stored : stored_secrets(db))
    CHECK(log.find(stored.substr(20)) == std::string::npos);
  CHECK(log.find("hook-secret-42") == std::string::npos);
  CHECK(log.find(key_a) == std::string::npos);

  // The old key given as the old one: the node starts and reads what it sealed.
  {
    auto rotating = run_belay("serve", db,
                              {"--data-encryption-key-file", new_key.path(),
                               "--data-encryption-key-old-file", old_key.path()});
    REQUIRE(rotating.wait_ready());
    rotating.stop();
  }
  auto rekey = run_belay("rekey", db,
                         {"--data-encryption-key-file", new_key.path(),
                          "--data-encryption-key-old-file", old_key.path()});
  REQUIRE(rekey.wait_exit() == 0);
  CHECK(rekey.log().find("rekeyed 3 stored secret(s) under key id " + new_id) !=
        std::string::npos);
  CHECK(all_sealed_under(db, new_id));

  // The old key's file is no longer needed.
  auto after = run_belay("serve", db, {"--data-encryption-key-file", new_key.path()});
  REQUIRE(after.wait_ready());
  auto r = after.client().Post(
      "/api/v1/incidents", {{"Authorization", "Bearer alpha-key"}},
      R"({"dedupKey":"disk","title":"t","policy":"default"})", "application/json");
  REQUIRE(r);
  CHECK(r->status == 201);
  REQUIRE(test::eventually([&] { return !sink.requests().empty(); }));
  auto page = sink.requests().front();
  auto signature = page.headers.find("X-Belay-Signature");
  REQUIRE(signature != page.headers.end());
  CHECK(signature->second == "sha256=" + hmac_sha256_hex("hook-secret-42", page.body));
}
