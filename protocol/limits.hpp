// Limits and vocabularies of the wire formats, in one place so that the native API,
// the PagerDuty and Alertmanager ingest and provisioning cannot drift apart.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>

namespace belay::protocol {

// Lengths in characters; PagerDuty documents the same 255 and 1024.
inline constexpr std::size_t max_dedup_key_chars = 255;
inline constexpr std::size_t max_title_chars = 1024;
inline constexpr std::size_t max_name_chars = 255;

inline const std::initializer_list<std::string_view> severities = {"critical", "error",
                                                                   "warning", "info"};
inline constexpr std::string_view default_severity = "critical";

// Working an incident (docs/http.md#working-an-incident).
inline constexpr std::size_t max_note_chars = 4000;
inline constexpr int max_notes = 2000;
inline constexpr long long max_snooze_seconds = 24 * 3600;
inline constexpr std::size_t max_message_chars = 1000;    // a status update, a request
inline constexpr std::size_t max_people_per_request = 20; // responders, subscribers
inline const std::initializer_list<std::string_view> priorities = {"P1", "P2", "P3", "P4",
                                                                   "P5"};

} // namespace belay::protocol
