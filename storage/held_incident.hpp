// An incident row with the ladder it runs: what loading, adopting and triggering read.
// On its own so that actors/fwd.hpp can define it: it travels in a std::optional, which
// must be complete wherever argument-dependent lookup meets a storage actor's handle.
#pragma once

#include "protocol/model.hpp"

namespace belay::storage {

struct held_incident {
  incident_record incident;
  ladder_ptr ladder; // the policy as it was when it opened; null if not read
};

} // namespace belay::storage
