// TwiML (Twilio's XML) that belay answers with or hands to an outgoing call. Every
// text is escaped; no XML declaration, which Twilio does not need and the Twiml
// parameter of an outgoing call does not want.
#pragma once

#include "protocol/page.hpp"

#include <string>
#include <string_view>

namespace belay::protocol {

// <Response><Message>text</Message></Response>: the reply to an inbound SMS.
std::string render_twiml_message(std::string_view text);

// <Response><Say>text</Say></Response>: what a caller hears after pressing a key.
std::string render_twiml_say(std::string_view text);

// The outgoing call for `p`. Answerable: the incident read out, then one key gathered
// and POSTed (as Digits) to p.voice_url; when no key is pressed Twilio goes on past the
// <Gather>, so the caller is told nothing was recorded. Plain: the incident and its
// step read out. Update: status_update_text() read out.
std::string voice_twiml(const page& p);

} // namespace belay::protocol
