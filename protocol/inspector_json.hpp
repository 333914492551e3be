// The inspector snapshot (GET /api/v1/inspector and each server-sent event): the
// node, its registry, every incident actor, every channel actor, dead letters and
// storage. Channel secrets and URLs are never rendered.
#pragma once

#include "protocol/views.hpp"

#include <string>

namespace belay::protocol {

std::string render_inspector(const inspector_snapshot& s);

} // namespace belay::protocol
