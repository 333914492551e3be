// Applies a provisioning file: idempotent (the same file changes no row), a changed
// file updates in place, and things the file no longer names are removed.
#pragma once

#include "protocol/audit.hpp"
#include "protocol/provisioning.hpp"

#include <string>
#include <vector>

namespace belay::storage {

class connection;

struct provision_report {
  size_t orgs = 0;
  size_t changed_rows = 0; // rows inserted, updated or deleted
  // What changed, a line each: "org 'acme': add channel 'ops-hook'". Keys appear only
  // as the first 12 hex digits of their hash.
  std::vector<std::string> changes;
};

// Who applies it, for the audit log (docs/security.md#audit-log): one row per org the
// application names (or disables), in its transaction, with what changed by kind and
// name. `action` is provision.apply for a file, config.replace for the API.
struct provision_audit {
  std::string actor = "provisioning";
  std::string via = "cli";
  std::string source_ip;
  std::string action = "provision.apply";
  std::string object_name; // the file's path, for a file
  micros at = 0;           // 0: now by the wall clock (a command, not the logic)
};

// One transaction under an advisory lock. Throws db_error (e.g. a key that another
// org, not in this file, already uses). Fails closed: an org the file no longer names
// is disabled and loses its API keys, integrations and heartbeats (a removed key stops
// working on every node within the key cache's 10 s); within an org, keys, integrations,
// heartbeats, channels, policies, users and schedules the file no longer names are
// deleted.
// `dry_run` rolls the transaction back: the report says what would change.
provision_report apply_provisioning(connection& c, const protocol::provisioning& p,
                                    bool dry_run = false,
                                    const provision_audit& who = {});

// The same for one org alone (PUT /api/v1/config): other orgs are left as they are.
// `keep_api_keys` keeps the org's stored keys; "<set>" secrets and keys keep theirs
// (protocol::stored_secret).
provision_report apply_org_provisioning(connection& c, const protocol::provisioned_org& o,
                                        bool dry_run = false,
                                        const provision_audit& who = {});

} // namespace belay::storage
