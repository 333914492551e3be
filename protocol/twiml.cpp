#include "protocol/twiml.hpp"

#include "protocol/bundle_text.hpp"
#include "protocol/markup.hpp"
#include "protocol/text.hpp"
#include "protocol/wording.hpp"

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

std::string spoken_title(const incident_record& incident) {
  return one_line(clip(incident.title, max_spoken_title_chars));
}

// Says `prompt` and posts the key pressed to the voice URL.
std::string gather(const page& p, const std::string& prompt) {
  return "<Response><Gather numDigits=\"1\" action=\"" + escape_html(p.voice_url) +
         "\" method=\"POST\"><Say>" + escape_html(prompt) +
         "</Say></Gather><Say>No key was pressed. Nothing was recorded.</Say>"
         "</Response>";
}

// The count and the first three titles: a call is no place for a list.
std::string spoken_bundle(const page& p) {
  std::string text = "belay. " + bundle_headline(p) + ".";
  for (std::size_t k = 0; k < p.bundle.size() && k < 3; ++k)
    text += " " + spoken_title(p.bundle[k].incident) + ".";
  if (p.bundle.size() > 3)
    text += " And " + std::to_string(p.bundle.size() - 3) + " more.";
  return text;
}

} // namespace

std::string render_twiml_message(std::string_view text) {
  return response("Message", text);
}

std::string render_twiml_say(std::string_view text) {
  return response("Say", text);
}

std::string voice_twiml(const page& p) {
  const auto& incident = p.incident;
  switch (kind_of(p)) {
  case page_kind::status_update:
    return render_twiml_say(status_update_text(incident, p.update, p.message));
  case page_kind::answerable: {
    // The severity as stored, in lower case: speech engines spell out some words
    // written in capitals.
    const std::string help = help_request_text(p);
    const std::string prompt =
        "belay page. Severity " + one_line(incident.severity) + ". " +
        spoken_title(incident) + ". Incident " + std::to_string(incident.id) + ". " +
        (help.empty() ? "" : help + ". ") + "Press 1 to acknowledge, 2 to resolve.";
    return gather(p, prompt);
  }
  case page_kind::bundle:
    if (!p.update.empty())
      return render_twiml_say(bundle_update_text(p, 600));
    if (p.voice_url.empty())
      return render_twiml_say(spoken_bundle(p));
    return gather(p, spoken_bundle(p) + " Press 1 to acknowledge all, 2 to resolve all.");
  case page_kind::plain:
    break;
  }
  return render_twiml_say("belay page. " + severity_label(incident) + ". " +
                          spoken_title(incident) + ". Incident " +
                          std::to_string(incident.id) + ", " + step_label(p) + ".");
}

} // namespace belay::protocol
