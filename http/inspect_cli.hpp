// `belay inspect [--url URL] [--key KEY]`: the inspector snapshot (GET /api/v1/inspector)
// as terminal tables, for hosts reached only over ssh. Needs no database.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace belay {

// Runs the command with the arguments after "inspect"; returns the process exit code
// (0 shown, 1 the node could not be asked or refused, 2 a usage error).
int run_inspect(const std::vector<std::string>& args);

// The snapshot JSON as text: a node line, a registry line, then incidents sorted by next
// timer due, channels with their scheduled retries, and dead letters. Relative times
// ("in 4m 05s") count from the snapshot's own node.now, so the output depends on the
// JSON alone. Control characters in names and titles are shown as '?'. Throws
// std::invalid_argument when `json` is not a JSON object.
std::string render_inspector_table(std::string_view json);

} // namespace belay
