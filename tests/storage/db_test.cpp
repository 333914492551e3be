// storage::connection's prepared statements.
#include "storage/db.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

using namespace belay;

namespace {

// When this session last prepared `sql`, as PostgreSQL records it.
std::string prepared_at(storage::connection& c, const std::string& sql) {
  // Unparameterised, so that asking does not prepare a statement of its own.
  auto r = c.exec("SELECT prepare_time::text FROM pg_prepared_statements "
                  "WHERE statement = '" +
                  sql + "'");
  return r.rows() == 1 ? r.str(0, 0) : std::string{};
}

} // namespace

// Runs `sql` through `run` (which checks its answer), waits `wait` and runs it again:
// whether the second run was prepared anew.
template <class Run>
bool prepared_anew_after(storage::connection& c, const std::string& sql, Run run,
                         std::chrono::milliseconds wait) {
  run(1);
  auto first = prepared_at(c, sql);
  REQUIRE_FALSE(first.empty());
  std::this_thread::sleep_for(wait);
  run(2);
  auto again = prepared_at(c, sql);
  REQUIRE_FALSE(again.empty());
  return again != first;
}

TEST_CASE("a prepared statement is planned again once it is a second old") {
  test::test_database db;
  storage::connection c{db.url()};
  const std::string sql = "SELECT $1::int + 1";
  auto run = [&](int n) { CHECK(c.query(sql, n).int64(0, 0) == n + 1); };
  CHECK_FALSE(prepared_anew_after(c, sql, run, std::chrono::milliseconds{0}));
  // planned afresh: tables may have grown since
  CHECK(prepared_anew_after(c, sql, run, std::chrono::milliseconds{1100}));
}

TEST_CASE("a statement by key keeps its plan for ten seconds, then is planned again") {
  test::test_database db;
  storage::connection c{db.url()};
  const std::string sql = "SELECT $1::int * 2";
  auto run = [&](int n) { CHECK(c.query_by_key(sql, n).int64(0, 0) == 2 * n); };
  CHECK_FALSE(prepared_anew_after(c, sql, run, std::chrono::milliseconds{1100}));
  CHECK(prepared_anew_after(c, sql, run, storage::connection::key_lookup_replan_after));
}
