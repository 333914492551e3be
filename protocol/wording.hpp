// The words every page renderer shares, so that a page reads the same on each channel.
#pragma once

#include "protocol/page.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace belay::protocol {

// Enough of a title to recognise an incident in an SMS or a status update.
inline constexpr std::size_t max_sms_title_chars = 160;
// Enough of a responder request's words for an SMS.
inline constexpr std::size_t max_help_request_chars = 300;

// "CRITICAL": the severity on one line, in capitals.
std::string severity_label(const incident_record& incident);
// "incident #42".
std::string incident_label(const incident_record& incident);
// "step 2", "step 2 (repeat 1)": humans count steps from 1.
std::string step_label(const page& p);

// The one message a contact with statusUpdates gets when an incident it was paged for
// is acknowledged or resolved (`update`: "acknowledged" or "resolved"), saying by whom
// and how: "[belay] Acknowledged by alice via sms: #42 Disk full on db-1".
// A status update (`update` "status_update") says `message`:
// "[belay] Update on #42 Disk full on db-1: failing over to db-2".
std::string status_update_text(const incident_record& incident, std::string_view update,
                               std::string_view message = {});
// What a page to a requested responder asks, "You are asked to help: <message>", or empty
// for any other page.
std::string help_request_text(const page& p);

} // namespace belay::protocol
