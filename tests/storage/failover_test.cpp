// docs/operations.md#failover, "belay never keeps writing to a demoted server": an error
// that ends a session (a server turned standby, an admin shutdown, a lost connection)
// closes belay's connection, and the next statement goes over a fresh one, to whichever
// host is the primary then. Each failure is made on the real test cluster.
#include "storage/db.hpp"
#include "support/postgres_proxy.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

int64_t backend_pid(storage::connection& c) {
  return c.exec("SELECT pg_backend_pid()").int64(0, 0);
}

// What a demoted server does to a session: its transactions are read-only, so every
// write fails with 25006 (read_only_sql_transaction).
void demote(storage::connection& c) {
  c.exec("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
}

// The SQLSTATE of the db_error that `work` throws ("" for a lost connection, "none"
// when it throws nothing).
template <class F> std::string sqlstate_of(F&& work) {
  try {
    work();
  } catch (const storage::db_error& e) {
    return e.sqlstate;
  }
  return "none";
}

const std::string write_sql = "INSERT INTO written (n) VALUES ($1)";

} // namespace

TEST_CASE(
    "the SQLSTATEs that end a session are the failover ones, not a statement's own") {
  for (auto state :
       {"08000", "08003", "08006", "08P01", "57P01", "57P02", "57P03", "25006"}) {
    INFO(state);
    CHECK(storage::ends_session(state));
  }
  // A cancelled statement (statement_timeout), a conflict or a constraint leaves the
  // session usable.
  for (auto state : {"", "57014", "40001", "40P01", "23505", "25P02", "42P01"}) {
    INFO(state);
    CHECK_FALSE(storage::ends_session(state));
  }
}

TEST_CASE(
    "a write refused as read-only (25006) closes the connection, and the next one is "
    "fresh and writes") {
  test::test_database db;
  db.sql().exec("CREATE TABLE written (n int)");
  storage::connection c{db.url()};
  auto demoted_pid = backend_pid(c);
  demote(c);
  SECTION("a prepared statement") {
    CHECK(sqlstate_of([&] { c.query(write_sql, 1); }) == "25006");
  }
  SECTION("inside a transaction") {
    CHECK(sqlstate_of([&] { storage::transaction(c, [&] { c.query(write_sql, 1); }); }) ==
          "25006");
  }
  CHECK_FALSE(c.healthy());
  // Closed, it stays closed: a statement never runs outside the transaction it was in.
  CHECK(sqlstate_of([&] { c.exec("SELECT 1"); }) == "");
  REQUIRE(c.reset());
  CHECK(backend_pid(c) != demoted_pid);
  c.query(write_sql, 2);
  CHECK(db.sql().exec("SELECT count(*) FROM written").int64(0, 0) == 1);
}

TEST_CASE("a 25006 does not poison the pool: the next caller gets a fresh connection "
          "that writes") {
  test::test_database db;
  db.sql().exec("CREATE TABLE written (n int)");
  storage::pool p{db.url(), 1};
  int64_t demoted_pid = 0;
  {
    auto conn = p.acquire();
    demoted_pid = backend_pid(*conn);
    demote(*conn);
    CHECK(sqlstate_of([&] { conn->query(write_sql, 1); }) == "25006");
  }
  CHECK(p.busy() == 0);
  for (int i = 0; i < 3; ++i) {
    auto conn = p.acquire();
    CHECK(backend_pid(*conn) != demoted_pid);
    conn->query(write_sql, i);
  }
  CHECK(db.sql().exec("SELECT count(*) FROM written").int64(0, 0) == 3);
}

TEST_CASE(
    "an admin shutdown of the session (57P01) closes the connection, and the pool's "
    "next is fresh") {
  test::test_database db;
  storage::pool p{db.url(), 1};
  int64_t terminated_pid = 0;
  {
    auto conn = p.acquire();
    terminated_pid = backend_pid(*conn);
    REQUIRE(
        db.sql().query("SELECT pg_terminate_backend($1)", terminated_pid).boolean(0, 0));
    // The server says why before it closes (57P01); libpq may only see the close.
    auto state = sqlstate_of([&] { conn->exec("SELECT 1"); });
    INFO("sqlstate " << state);
    CHECK((state == "57P01" || state.empty()));
    CHECK_FALSE(conn->healthy());
  }
  auto conn = p.acquire();
  CHECK(backend_pid(*conn) != terminated_pid);
}

TEST_CASE(
    "a connection lost under a statement (class 08) is closed, and the pool's next is "
    "fresh") {
  test::test_database db;
  test::postgres_proxy pg;
  storage::pool p{pg.url(db), 1};
  int64_t lost_pid = 0;
  {
    auto conn = p.acquire();
    lost_pid = backend_pid(*conn);
    pg.proxy.reset_all();
    CHECK(sqlstate_of([&] { conn->exec("SELECT 1"); }) != "none");
    CHECK_FALSE(conn->healthy());
  }
  auto conn = p.acquire();
  CHECK(backend_pid(*conn) != lost_pid);
  CHECK(pg.proxy.connections().accepted == 2);
}
