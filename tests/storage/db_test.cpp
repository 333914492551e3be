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

TEST_CASE("a prepared statement is planned again once it is a second old") {
  test::test_database db;
  storage::connection c{db.url()};
  const std::string sql = "SELECT $1::int + 1";
  CHECK(c.query(sql, 1).int64(0, 0) == 2);
  auto first = prepared_at(c, sql);
  REQUIRE_FALSE(first.empty());
  CHECK(c.query(sql, 2).int64(0, 0) == 3);
  CHECK(prepared_at(c, sql) == first); // reused within the second
  std::this_thread::sleep_for(std::chrono::milliseconds{1100});
  CHECK(c.query(sql, 3).int64(0, 0) == 4);
  auto again = prepared_at(c, sql);
  CHECK_FALSE(again.empty());
  CHECK(again != first); // planned afresh: tables may have grown since
}

TEST_CASE("a statement by key keeps its plan for ten seconds, then is planned again") {
  test::test_database db;
  storage::connection c{db.url()};
  const std::string sql = "SELECT $1::int * 2";
  CHECK(c.query_by_key(sql, 1).int64(0, 0) == 2);
  auto first = prepared_at(c, sql);
  REQUIRE_FALSE(first.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds{1100});
  CHECK(c.query_by_key(sql, 2).int64(0, 0) == 4);
  CHECK(prepared_at(c, sql) == first); // past the second: still the same plan
  std::this_thread::sleep_for(storage::connection::key_lookup_replan_after);
  CHECK(c.query_by_key(sql, 3).int64(0, 0) == 6);
  auto again = prepared_at(c, sql);
  CHECK_FALSE(again.empty());
  CHECK(again != first);
}
