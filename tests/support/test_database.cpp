#include "support/test_database.hpp"

#include "protocol/provisioning.hpp"
#include "storage/migrate.hpp"
#include "storage/provision.hpp"
#include "support/shell.hpp"

#include <atomic>
#include <cstdlib>
#include <memory>
#include <random>
#include <stdexcept>
#include <unistd.h>

namespace belay::test {

std::string cluster_url() {
  auto* url = std::getenv("BELAY_TEST_DATABASE_URL");
  if (!url || !*url)
    throw std::runtime_error("BELAY_TEST_DATABASE_URL is not set: run the tests with "
                             "scripts/test, which starts a private PostgreSQL");
  return url;
}

test_database::test_database(bool migrated) {
  static std::atomic<int> counter{0};
  std::random_device rd;
  schema_ = "t_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + "_" +
            std::to_string(rd() % 100000);
  {
    storage::connection admin{cluster_url()};
    admin.exec("CREATE SCHEMA " + schema_);
  }
  url_ = cluster_url() + " options='-c search_path=" + schema_ + "'";
  conn_ = std::make_unique<storage::connection>(url_);
  if (migrated)
    storage::migrate(*conn_);
}

test_database::~test_database() {
  conn_.reset();
  try {
    storage::connection admin{cluster_url()};
    admin.exec("DROP SCHEMA " + schema_ + " CASCADE");
  } catch (...) {
    // The schema is left behind in a throwaway cluster: harmless.
  }
}

void test_database::provision(const std::string& json) {
  auto parsed = protocol::parse_provisioning(json);
  if (auto* err = std::get_if<protocol::error>(&parsed))
    throw std::runtime_error("test provisioning invalid: " + err->field + ": " +
                             err->message);
  storage::apply_provisioning(*conn_, std::get<protocol::provisioning>(parsed));
}

int64_t test_database::org_id(const std::string& name) {
  auto r = conn_->query("SELECT id FROM org WHERE name = $1", name);
  if (r.rows() == 0)
    throw std::runtime_error("no org named " + name);
  return r.int64(0, 0);
}

std::string test_database::incident_status(int64_t id) {
  return conn_->query("SELECT status FROM incident WHERE id = $1", id).str(0, 0);
}

std::string test_database::dump() const {
  auto command = "/usr/lib/postgresql/15/bin/pg_dump --no-owner -n " + schema_ +
                 " -d \"" + cluster_url() + "\" 2>&1";
  return run_command(command).output;
}

} // namespace belay::test
