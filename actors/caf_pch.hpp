// Precompiled header: one CAF parse per target instead of ~15 s per translation unit.
#pragma once

#include <caf/all.hpp>
