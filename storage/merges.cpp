#include "storage/merges.hpp"

#include "storage/db.hpp"

#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <utility>

namespace belay::storage {

namespace {

const std::string any_sql = "SELECT EXISTS (SELECT 1 FROM merged_key)";

// Whether any merge exists: once one does, every batch probes merged_key. Until then the
// database is asked again at most once a second, so a merge on another node redirects
// this node's events within a second (this node's own merges, at once).
std::atomic<bool> some{false};
std::atomic<int64_t> asked_at{std::numeric_limits<int64_t>::min()}; // steady ms
constexpr int64_t ask_every_ms = 1000;

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool merges_exist(connection& c) {
  if (some)
    return true;
  auto now = steady_ms();
  auto last = asked_at.load();
  if (last != std::numeric_limits<int64_t>::min() && now - last < ask_every_ms)
    return false;
  asked_at = now;
  if (c.query(any_sql).boolean(0, 0))
    some = true;
  return some;
}

// The open incidents the keys ($1 orgs, $2 keys, pairwise) were merged into, by key.
const std::string redirects_sql = R"sql(
SELECT m.org_id, m.dedup_key, t.dedup_key
FROM unnest($1::bigint[], $2::text[]) AS k(org_id, dedup_key)
JOIN merged_key m ON m.org_id = k.org_id AND m.dedup_key = k.dedup_key
JOIN incident t ON t.org_id = m.org_id AND t.id = m.into_id
WHERE t.status <> 'RESOLVED')sql";

} // namespace

void note_merges() {
  some = true;
}

std::vector<trigger_event> redirect_merged(connection& c,
                                           const std::vector<trigger_event>& events) {
  if (events.empty() || !merges_exist(c))
    return events;
  std::vector<int64_t> orgs;
  std::vector<std::string> keys;
  for (auto& e : events) {
    orgs.push_back(e.cmd.org_id);
    keys.push_back(e.cmd.dedup_key);
  }
  auto r = c.query(redirects_sql, bigint_array(orgs), text_array(keys));
  if (r.rows() == 0)
    return events;
  std::map<std::pair<int64_t, std::string>, std::string> into;
  for (int i = 0; i < r.rows(); ++i)
    into[{r.int64(i, 0), r.str(i, 1)}] = r.str(i, 2);
  auto out = events;
  for (auto& e : out)
    if (auto it = into.find({e.cmd.org_id, e.cmd.dedup_key}); it != into.end())
      e.cmd.dedup_key = it->second;
  return out;
}

} // namespace belay::storage
