// The PostgreSQL failover cluster of scripts/ha (one etcd, two Patroni members,
// docs/operations.md#failover), as the end-to-end failover tests drive it. scripts/test
// starts one in the folder BELAY_TEST_HA_DIR when Patroni can run here, and touches
// <folder>/up once it has a primary and a synchronous standby (<folder>/failed if it
// could not start it).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace belay::test {

// What a test prints to be counted as skipped rather than passed (tests/CMakeLists.txt
// gives ctest the same text).
inline constexpr const char* skipped_marker = "belay-test-skipped:";

struct ha_member {
  std::string name; // "pg1", "pg2"
  int port = 0;     // PostgreSQL's, on 127.0.0.1
  std::string role; // "leader", "sync_standby", "replica", or "" when it is down
};

struct ha_result {
  int status = -1;
  std::string output;
  // Seconds from the command's start to "new primary … after N s" in its output.
  std::optional<double> new_primary_after;
};

class ha_cluster {
public:
  // The cluster scripts/test started, once it is up; nullopt (with `why`) when there is
  // none. Throws when scripts/test tried and it failed, with the start's log.
  static std::optional<ha_cluster> from_environment(std::string& why,
                                                    std::chrono::seconds wait_up);

  // DATABASE_URL of database `db`: both hosts, target_session_attrs=read-write.
  std::string url(const std::string& db) const;
  // A plain URL to one member (any role), database `db`.
  std::string member_url(const ha_member& m, const std::string& db) const;
  // `scripts/ha <command>` on this cluster (switchover, kill-primary, status…).
  ha_result run(const std::string& command) const;
  std::vector<ha_member> members() const;
  std::optional<ha_member> leader() const;
  // The member's PostgreSQL log (log_directory outside its data directory).
  std::string server_log(const ha_member& m) const;
  const std::string& dir() const { return dir_; }

private:
  explicit ha_cluster(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

} // namespace belay::test
