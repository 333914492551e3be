// Evidence (docs/architecture.md#incident-lifecycle): an incident keeps the last five
// payloads it was sent. Each kept payload is bounded, so an incident's evidence stays
// under 5 × 16 KiB however large the (up to 512 KiB) bodies were.
#pragma once

#include "protocol/json_writer.hpp"

#include <cstddef>
#include <string_view>

namespace belay::protocol {

inline constexpr std::size_t max_evidence_bytes = 16 * 1024;

// Writes `payload_json` (compact JSON) as one evidence entry: itself when it has at
// most max_evidence_bytes, else {"truncated":true,"bytes":<its size>,"head":"<its
// beginning, as text>"}, which is smaller than that.
void write_evidence(json_writer& w, std::string_view payload_json);

} // namespace belay::protocol
