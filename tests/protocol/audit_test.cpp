// The audit log's hash chain (docs/security.md#audit-log): every field is in a row's
// hash, no field can borrow another's bytes, and a checked chain names the first row
// that was altered, removed or moved.
#include "protocol/audit.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;

namespace {

std::vector<audit_entry> chain(int n) {
  std::vector<audit_entry> rows;
  std::string prev = genesis_hash;
  for (int i = 1; i <= n; ++i) {
    audit_entry e;
    e.id = i;
    e.at = 1'000'000LL * i;
    e.org_id = 7;
    e.actor = "alice";
    e.via = "console";
    e.source_ip = "127.0.0.1";
    e.action = "incident.ack";
    e.object_kind = "incident";
    e.object_name = std::to_string(100 + i);
    e.changes_json = R"({"status":"ACKNOWLEDGED"})";
    e.prev_hash = prev;
    e.hash = audit_hash(e);
    prev = e.hash;
    rows.push_back(e);
  }
  return rows;
}

std::optional<chain_break> check(const std::vector<audit_entry>& rows) {
  int64_t expected = 1;
  std::string prev = genesis_hash;
  return check_chain(rows, expected, prev);
}

} // namespace

TEST_CASE("every field of a row is in its hash, each in its own bounds") {
  auto base = chain(1)[0];
  std::vector<audit_entry> variants(12, base);
  variants[0].id += 1;
  variants[1].at += 1;
  variants[2].org_id += 1;
  variants[3].actor = "mallory";
  variants[4].via = "api";
  variants[5].source_ip = "10.0.0.1";
  variants[6].action = "incident.resolve";
  variants[7].object_kind = "policy";
  variants[8].object_name = "102";
  variants[9].changes_json = "{}";
  variants[10].prev_hash = std::string(64, '1');
  // A byte moved from one field to its neighbour: the same concatenation, another row.
  variants[11].actor = "alic";
  variants[11].via = "econsole";
  for (auto& v : variants)
    CHECK(audit_hash(v) != base.hash);
}

TEST_CASE("a chain holds until a row is altered, removed or reordered, and the check "
          "names it") {
  auto rows = chain(5);
  CHECK_FALSE(check(rows));

  auto altered = rows;
  altered[2].actor = "mallory";
  auto b = check(altered);
  REQUIRE(b);
  CHECK(b->id == 3);
  CHECK(b->why.find("altered") != std::string::npos);

  // Altered and its hash recomputed: the next row no longer follows it.
  altered[2].hash = audit_hash(altered[2]);
  b = check(altered);
  REQUIRE(b);
  CHECK(b->id == 4);

  auto removed = rows;
  removed.erase(removed.begin() + 1);
  b = check(removed);
  REQUIRE(b);
  CHECK(b->id == 2);
  CHECK(b->why.find("missing") != std::string::npos);

  auto swapped = rows;
  std::swap(swapped[3].id, swapped[4].id);
  std::swap(swapped[3], swapped[4]);
  b = check(swapped);
  REQUIRE(b);
  CHECK(b->id == 4);
}

TEST_CASE("the end of the chain must be the head's newest row") {
  auto rows = chain(3);
  int64_t next = 1;
  std::string prev = genesis_hash;
  REQUIRE_FALSE(check_chain(rows, next, prev));
  CHECK_FALSE(check_chain_end(next, prev, {1, genesis_hash, 3, rows[2].hash}));
  // The newest row deleted: the head still names it.
  rows.pop_back();
  next = 1;
  prev = genesis_hash;
  REQUIRE_FALSE(check_chain(rows, next, prev));
  auto b = check_chain_end(next, prev, {1, genesis_hash, 3, chain(3)[2].hash});
  REQUIRE(b);
  CHECK(b->id == 3);
}

TEST_CASE("configuration changes are listed by verb, kind and name") {
  auto text = render_audit_changes({{"added", "channel", "hook"},
                                    {"removed", "user", "bob"},
                                    {"added", "API key", "ci"}});
  CHECK(text ==
        R"({"added":[{"kind":"channel","name":"hook"},{"kind":"API key","name":"ci"}],)"
        R"("removed":[{"kind":"user","name":"bob"}]})");
  CHECK(render_audit_changes({}) == "{}");
}
