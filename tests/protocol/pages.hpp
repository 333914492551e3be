// Incidents and pages for the renderers' tests.
#pragma once

#include "protocol/page.hpp"

#include <string>

namespace belay::protocol::test {

inline incident_record incident_in(const std::string& status) {
  incident_record incident;
  incident.id = 42;
  incident.title = "Disk full on db-1";
  incident.severity = "critical";
  incident.status = status;
  return incident;
}

// A page of `incident` carrying the way back, as with_answer() gives it.
inline page answerable(const incident_record& incident, const std::string& token,
                       const std::string& answer_url, const std::string& voice_url = "") {
  page p;
  p.incident = incident;
  p.answer_token = token;
  p.answer_url = answer_url;
  p.voice_url = voice_url;
  return p;
}

// A status update of `incident` ("acknowledged" or "resolved").
inline page update_of(const incident_record& incident, const std::string& update) {
  page p;
  p.incident = incident;
  p.update = update;
  return p;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() &&
         text.compare(text.size() - end.size(), end.size(), end) == 0;
}

} // namespace belay::protocol::test
