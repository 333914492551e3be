// /metrics as a stranger may see it (docs/operations.md#metrics): no label that names a
// tenant's things (a channel's name is chosen by its org), the series such labels told
// apart summed.
#pragma once

#include <string>

namespace belay::metrics {

bool names_tenant(const std::string& label);

// render() (actors/metrics.hpp) without tenant labels.
std::string render_tenant_free();

} // namespace belay::metrics
