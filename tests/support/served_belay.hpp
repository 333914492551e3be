// The real binary over HTTP against a private schema: one or more `belay serve`
// processes provisioned from a temporary file, plus small JSON request helpers for
// the end-to-end tests in tests/http/.
#pragma once

#include "support/belay_process.hpp"
#include "support/bodies.hpp"
#include "support/eventually.hpp"
#include "support/test_database.hpp"

#include <rapidjson/document.h>
#include <string>
#include <vector>

namespace belay::test {

// Orgs "alpha" and "beta", each with API key "<org>-key", a log channel, policy
// "default" (step 0 at once to "#ops", step 1 a day later to "lead": nothing else fires
// during a test), an events integration "<org>-routing" and an alertmanager
// integration "<org>-am".
std::string two_orgs();

// Writes `text` to a fresh temporary file, removed on destruction.
class temp_file {
public:
  explicit temp_file(const std::string& text);
  ~temp_file();
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

struct reply {
  int status = 0; // 0: no answer at all
  std::string body;
  rapidjson::Document json; // null when the body is not JSON
};

class served_belay {
public:
  // Starts `nodes` processes ("node-0", "node-1", …) sharing one database, each with
  // the `extra` flags too.
  explicit served_belay(const std::string& provisioning = two_orgs(), int nodes = 1,
                        const std::vector<std::string>& extra = {});

  test_database db;

  reply post(const std::string& path, const std::string& body, const std::string& key,
             int node = 0);
  reply get(const std::string& path, const std::string& key, int node = 0);
  // The native trigger: POST /api/v1/incidents with the default policy.
  reply trigger(const std::string& dedup_key, const std::string& key = "alpha-key",
                int node = 0);
  // Triggers `dedup_key` as alpha under `policy`, titled "Disk full on <dedup_key>"; the
  // trigger must open a new incident. Its id.
  int64_t open(const std::string& dedup_key, const std::string& policy);
  // A PagerDuty event through alpha's events integration (test::pd_event).
  reply enqueue(const std::string& action, const std::string& dedup_key,
                const std::string& more = "", int node = 0);
  httplib::Client client(int node = 0) const { return nodes_.at(node).client(); }
  const belay_process& process(int node = 0) const { return nodes_.at(node); }
  belay_process& process(int node = 0) { return nodes_.at(node); }

  // Rows in incident, timeline and delivery: what any write would change.
  std::vector<int64_t> row_counts();
  int64_t count(const std::string& sql) { return db.count(sql); }
  // Waits until the incident's first ladder step has fired and its deliveries to the log
  // channel went out, so that nothing about it changes on its own for a day.
  void wait_settled(int64_t incident_id);
  // The value of one series in the node's /metrics, 0 when absent.
  double metric(const std::string& series, int node = 0);
  // The status of the one incident of alpha's the node holds, as its inspector shows it,
  // or "none held".
  std::string held_status(int node = 0);

private:
  temp_file file_;
  std::vector<belay_process> nodes_;
};

// The body parsed as JSON (a null document when it is not JSON).
reply to_reply(const httplib::Result& r);

// The id of the incident an answer shows ({"incident":{"id":…}}).
int64_t id_of(const reply& r);

// The error code of {"error":{"code":…}}, or "" when the body is not that shape.
std::string error_code(const reply& r);
std::string error_field(const reply& r);

std::string bearer(const std::string& key);

} // namespace belay::test
