#include "storage/migrate.hpp"

#include "storage/db.hpp"

#include <set>
#include <string_view>
#include <utility>

namespace belay::embedded {
extern const std::vector<std::pair<std::string_view, std::string_view>> migrations;
}

namespace belay::storage {

namespace {

// Any fixed number works: it only has to be the same in every belay process.
constexpr const char* lock_sql = "SELECT pg_advisory_xact_lock(7823410092)";

constexpr const char* create_table_sql = R"sql(
CREATE TABLE IF NOT EXISTS schema_migrations (
  version    text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
))sql";

std::string version_of(std::string_view file) {
  auto dot = file.rfind('.');
  return std::string{file.substr(0, dot)};
}

} // namespace

std::vector<std::string> migrate(connection& c) {
  return transaction(c, [&] {
    c.exec(lock_sql);
    c.exec(create_table_sql);
    std::set<std::string> done;
    auto rows = c.exec("SELECT version FROM schema_migrations");
    for (int i = 0; i < rows.rows(); ++i)
      done.insert(rows.str(i, 0));
    std::vector<std::string> applied;
    for (auto& [file, sql] : embedded::migrations) {
      auto version = version_of(file);
      if (done.count(version))
        continue;
      c.run_script(std::string{sql});
      c.query("INSERT INTO schema_migrations (version) VALUES ($1)", version);
      applied.push_back(version);
    }
    return applied;
  });
}

} // namespace belay::storage
