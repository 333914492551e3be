// A real, empty, migrated PostgreSQL schema per test, on the private cluster that
// scripts/test started (BELAY_TEST_DATABASE_URL). Dropped when the test ends.
#pragma once

#include "storage/db.hpp"

#include <string>

namespace belay::test {

// The cluster scripts/test started; fails the test loudly when it is not there.
std::string cluster_url();

class test_database {
public:
  explicit test_database(bool migrated = true);
  ~test_database();
  // A connection string whose search_path is this test's schema.
  const std::string& url() const { return url_; }
  const std::string& schema() const { return schema_; }
  storage::connection& sql() { return *conn_; }
  // Applies a provisioning document given as JSON text; fails the test if invalid.
  void provision(const std::string& json);
  int64_t org_id(const std::string& name);
  // The one number a query returns (a count, an id, a step), `args` bound to $1, $2, ….
  template <class... Ts> int64_t count(const std::string& sql, const Ts&... args) {
    return conn_->query(sql, args...).int64(0, 0);
  }
  // The status incident `id` has in the database.
  std::string incident_status(int64_t id);
  // pg_dump of this schema, as text (with pg_dump's own errors): what a stolen backup
  // would hold.
  std::string dump() const;

private:
  std::string schema_;
  std::string url_;
  std::unique_ptr<storage::connection> conn_;
};

} // namespace belay::test
