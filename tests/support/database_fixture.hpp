// What every fixture on a private database has: the database, the org its test works in
// (set once it is provisioned), and the readings its test script makes.
#pragma once

#include "support/test_database.hpp"

#include <string>

namespace belay::test {

struct database_fixture {
  test_database db;
  int64_t org = 0;

  template <class... Ts> int64_t count(const std::string& sql, const Ts&... args) {
    return db.count(sql, args...);
  }
  std::string incident_status(int64_t id) { return db.incident_status(id); }
};

} // namespace belay::test
