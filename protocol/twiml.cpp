#include "protocol/twiml.hpp"

#include "protocol/markup.hpp"

namespace belay::protocol {

namespace {

// Twilio reads up to 4,096 characters; a monitor's title can be 1,024 and nobody
// listens to that much of one on the phone.
constexpr std::size_t max_spoken_title_chars = 300;

std::string response(std::string_view verb, std::string_view text) {
  std::string out = "<Response><";
  out += verb;
  out += '>';
  out += escape_html(text);
  out += "</";
  out += verb;
  out += "></Response>";
  return out;
}

} // namespace

std::string render_twiml_message(std::string_view text) {
  return response("Message", text);
}

std::string render_twiml_say(std::string_view text) {
  return response("Say", text);
}

std::string render_voice_gather(const incident_record& incident,
                                std::string_view action_url) {
  // The severity as stored, in lower case: speech engines spell out some words
  // written in capitals.
  const std::string prompt =
      "belay page. Severity " + one_line(incident.severity) + ". " +
      one_line(clip(incident.title, max_spoken_title_chars)) + ". Incident " +
      std::to_string(incident.id) + ". Press 1 to acknowledge, 2 to resolve.";
  return "<Response><Gather numDigits=\"1\" action=\"" + escape_html(action_url) +
         "\" method=\"POST\"><Say>" + escape_html(prompt) +
         "</Say></Gather><Say>No key was pressed. Nothing was recorded.</Say></Response>";
}

} // namespace belay::protocol
