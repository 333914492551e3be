// TwiML (Twilio's XML) that belay answers with or hands to an outgoing call. Every
// text is escaped; no XML declaration, which Twilio does not need and the Twiml
// parameter of an outgoing call does not want.
#pragma once

#include "protocol/model.hpp"

#include <string>
#include <string_view>

namespace belay::protocol {

// <Response><Message>text</Message></Response>: the reply to an inbound SMS.
std::string render_twiml_message(std::string_view text);

// <Response><Say>text</Say></Response>: what a caller hears after pressing a key.
std::string render_twiml_say(std::string_view text);

// The outgoing call: the incident read out, then one key gathered and POSTed (as
// Digits) to `action_url`, twilio_voice_url's answer. When no key is pressed Twilio
// goes on past the <Gather>, so the caller is told nothing was recorded.
std::string render_voice_gather(const incident_record& incident,
                                std::string_view action_url);

} // namespace belay::protocol
