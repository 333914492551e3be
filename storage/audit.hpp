// The audit log's rows (docs/security.md#audit-log, protocol/audit.hpp): appended in the
// transaction of the change each records, read a page at a time, checked whole by
// `belay audit verify`, and pruned past --audit-retention-days.
#pragma once

#include "protocol/audit.hpp"
#include "protocol/commands.hpp"
#include "storage/db.hpp"

#include <optional>
#include <string>
#include <vector>

namespace belay::storage {

class connection;

// Appends `e` (its id, prev_hash and hash filled in here; `at` too when 0, by the wall
// clock: a command's row) under the lock of the chain's
// head, which it holds until the caller's transaction ends; opens one of its own when
// the caller has none. Returns the row as written.
protocol::audit_entry append_audit(connection& c, protocol::audit_entry e);

// The row of a write `who` asked for (attribution: actor, via, source address).
protocol::audit_entry audit_row(const attribution& who, micros at, int64_t org_id,
                                std::string action, std::string object_kind,
                                std::string object_name,
                                std::string changes_json = "null");

// `work` in a transaction of its own when `who` names someone (its audit row must
// commit with it) and the caller has none; as it is otherwise.
template <class F> auto audited(connection& c, const attribution& who, F&& work) {
  return who.actor.empty() || c.in_transaction() ? work() : transaction(c, work);
}

struct audit_filter {
  int64_t org_id = 0;
  int64_t before_id = 0; // 0: from the newest
  int limit = 100;
  std::string actor;  // "" for any
  std::string action; // "" for any
};
struct audit_page {
  std::vector<protocol::audit_entry> entries; // newest first
  std::optional<int64_t> next_before;         // when older rows follow
};
audit_page list_audit(connection& c, const audit_filter& f);

// The whole chain read in id order against its head. `rows` counts the rows checked.
struct audit_verification {
  int64_t rows = 0;
  std::optional<protocol::chain_break> broken;
  std::string head_hash;
  int64_t head_id = 0;
};
audit_verification verify_audit(connection& c);

// Retention: the rows written before `before`, at most `limit` of them, oldest first;
// the head then says what the oldest kept row follows. Returns how many went.
size_t prune_audit(connection& c, micros before, int limit);

} // namespace belay::storage
