// The provisioning document written back (docs/http.md#configuration-api): the inverse
// of parse_provisioning (protocol/provisioning.hpp), so that what GET /api/v1/config
// answers, `belay provision` and PUT /api/v1/config accept unchanged.
#pragma once

#include "protocol/provisioning.hpp"

#include <string>
#include <vector>

namespace belay::protocol {

// {"orgs": [org]}. Values are written as they are: whoever fills `o` puts
// stored_secret where a secret or key is stored. Optional strings that are empty
// are left out; every other field is written, defaults included.
std::string render_provisioning(const provisioned_org& o);

// The answer of PUT /api/v1/config: {"dryRun", "changedRows", "changes": [line, …]},
// the lines `belay provision` prints.
std::string render_provision_changes(bool dry_run, size_t changed_rows,
                                     const std::vector<std::string>& changes);

// A user as storage keeps it: the provisioning shape without the name (the row's key).
std::string render_user_definition(const user_config& u);

} // namespace belay::protocol
