// Escaping for the markup belay renders around text it did not write (incident titles
// come from monitors, user names from Slack): HTML pages, TwiML and Slack mrkdwn.
#pragma once

#include <string>
#include <string_view>

namespace belay::protocol {

// &, <, >, " and ' as entities: safe in HTML text and in quoted attributes, and valid
// XML (TwiML). Control characters other than tab, CR and LF become spaces: XML 1.0
// allows them in no form, not even as character references, and Twilio would refuse
// the whole document.
std::string escape_html(std::string_view text);

// &, < and > as entities, the three Slack reads as markup (links, mentions) in mrkdwn
// text.
std::string escape_slack(std::string_view text);

} // namespace belay::protocol
