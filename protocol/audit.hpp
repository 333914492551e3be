// The audit log (docs/security.md#audit-log): one append-only row per write a person or
// key makes, and per sign-in, and the hash chain that makes an altered or deleted row
// evident. Pure: the row's canonical form, its hash, its JSON, and the check of a chain.
#pragma once

#include "protocol/model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace belay::protocol {

// What one write changed, by kind and name: a configuration change's items, or an
// incident's status.
struct audit_change {
  std::string verb; // added | updated | removed, or what happened ("resolved")
  std::string kind; // channel, user, API key, …
  std::string name;
};

struct audit_entry {
  int64_t id = 0; // gapless, from 1: the chain's order
  micros at = 0;
  int64_t org_id = 0; // 0: no one org's
  std::string actor;  // a user's name, "key:<name>", "provisioning", a login tried
  std::string via;    // api, console, link, sms, voice, slack, password, oidc, cli
  std::string source_ip;
  std::string action; // incident.ack, config.replace, session.sign_in, … (docs)
  std::string object_kind;
  std::string object_name;
  std::string changes_json = "null"; // never a secret
  std::string prev_hash;             // the row before's hash (genesis_hash for the first)
  std::string hash;
};

// What the first row follows.
extern const std::string genesis_hash;

// sha256 hex of prev_hash ‖ the row's fields, each as <length>:<bytes>, so that no
// field's content can be mistaken for another's boundary.
std::string audit_hash(const audit_entry& e);

// {"added":[{"kind","name"}],"updated":[…],"removed":[…]}, and any other verb as its
// own list; kinds and names only.
std::string render_audit_changes(const std::vector<audit_change>& changes);

// {"audit":[{"id","at","actor","via","sourceIp","action","object":{"kind","name"},
//  "changes","hash"}],"next":…}
std::string render_audit_page(const std::vector<audit_entry>& entries,
                              const std::optional<std::string>& next);

// Where a chain read in id order stops holding: the first row whose id does not follow
// (a row deleted), whose prev_hash is not the row before's hash, or whose hash is not
// its own; nullopt when it holds. `first_id` and `first_prev` are what the oldest kept
// row follows (retention removes older rows and records that); `last_id` and
// `last_hash` what the head says the newest is (a deleted newest row).
struct chain_break {
  int64_t id = 0; // the row at fault (or missing)
  std::string why;
};
struct chain_anchor {
  int64_t first_id = 1;
  std::string first_prev = genesis_hash;
  int64_t last_id = 0;
  std::string last_hash = genesis_hash;
};
// Checks `rows` (consecutive, in id order) given what came before them: the previous
// row's id and hash. Call it page by page; `expected_id` and `prev` advance.
std::optional<chain_break> check_chain(const std::vector<audit_entry>& rows,
                                       int64_t& expected_id, std::string& prev);
// The end of the chain against the head.
std::optional<chain_break> check_chain_end(int64_t next_id, const std::string& prev,
                                           const chain_anchor& anchor);

} // namespace belay::protocol
