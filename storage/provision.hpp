// Applies a provisioning file: idempotent (the same file changes no row), a changed
// file updates in place, and things the file no longer names are removed.
#pragma once

#include "protocol/provisioning.hpp"

namespace belay::storage {

class connection;

struct provision_report {
  size_t orgs = 0;
  size_t changed_rows = 0; // rows inserted, updated or deleted
};

// One transaction under an advisory lock. Throws db_error (e.g. a key that another
// org, not in this file, already uses).
provision_report apply_provisioning(connection& c, const protocol::provisioning& p);

} // namespace belay::storage
