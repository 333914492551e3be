// Every served node's metrics token (BELAY_METRICS_TOKEN, set by belay_process::serve)
// unless a test gives its own --metrics-token: a scrape presenting it reads per-org
// (per-channel) series, as served_belay::metric() does.
#pragma once

#include <string>

namespace belay::test {

inline const std::string metrics_token = "test-metrics-token";

} // namespace belay::test
