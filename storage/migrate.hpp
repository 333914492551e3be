// Versioned schema migrations, compiled into the binary from storage/migrations/.
#pragma once

#include <string>
#include <vector>

namespace belay::storage {

class connection;

// Applies every migration not yet recorded in schema_migrations, in file-name order,
// inside one transaction holding an advisory lock: two processes starting at once
// migrate once. Returns the versions it applied (empty when already current).
std::vector<std::string> migrate(connection& c);

} // namespace belay::storage
