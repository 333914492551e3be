#include "protocol/bundle_text.hpp"

#include "protocol/text.hpp"

#include <algorithm>
#include <iterator>
#include <tuple>
#include <vector>

namespace belay::protocol {

namespace {

std::string incidents_word(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " incident" : " incidents");
}

std::string listed(const incident_record& incident, std::size_t title_chars) {
  return "#" + std::to_string(incident.id) + " " +
         one_line(clip(incident.title, title_chars));
}

// Incidents' entries joined by "; " within max_chars, the rest counted.
template <class It>
std::string joined(It first, It last, std::size_t max_chars, std::size_t title_chars) {
  std::string text;
  std::size_t shown = 0, total = static_cast<std::size_t>(std::distance(first, last));
  for (auto it = first; it != last; ++it) {
    auto entry = listed(*it, title_chars);
    auto more = " ...and " + std::to_string(total - shown) + " more";
    if (shown > 0 && text.size() + 2 + entry.size() + more.size() > max_chars)
      return text + ";" + more;
    text += (shown > 0 ? "; " : "") + entry;
    ++shown;
  }
  return text;
}

} // namespace

std::string bundle_headline(const page& p) {
  std::size_t critical = 0;
  for (auto& b : p.bundle)
    critical += b.incident.severity == "critical";
  auto text = incidents_word(p.bundle.size()) + " need you";
  if (critical > 0)
    text += " (" + std::to_string(critical) + " critical)";
  return text;
}

std::string bundle_list(const page& p, std::size_t max_chars, std::size_t title_chars) {
  std::vector<incident_record> incidents;
  for (auto& b : p.bundle)
    incidents.push_back(b.incident);
  return joined(incidents.begin(), incidents.end(), max_chars, title_chars);
}

std::string bundle_update_text(const page& p, std::size_t max_chars) {
  // (what, by, via) -> incidents, in the order of their first appearance
  using clause = std::tuple<std::string, std::string, std::string>;
  std::vector<std::pair<clause, std::vector<incident_record>>> clauses;
  for (auto& b : p.bundle) {
    const auto& i = b.incident;
    const bool resolved = i.status == "RESOLVED";
    clause key{resolved ? "resolved" : "acknowledged",
               resolved ? i.resolved_by : i.acked_by,
               resolved ? i.resolved_via : i.acked_via};
    auto it = std::find_if(clauses.begin(), clauses.end(),
                           [&](auto& c) { return c.first == key; });
    if (it == clauses.end())
      it = clauses.insert(clauses.end(), {key, {}});
    it->second.push_back(i);
  }
  std::string text = "[belay]";
  const auto share = max_chars / std::max<std::size_t>(clauses.size(), 1);
  for (std::size_t k = 0; k < clauses.size(); ++k) {
    auto& [key, incidents] = clauses[k];
    auto& [what, by, via] = key;
    text += (k > 0 ? ". " : " ") + incidents_word(incidents.size()) + " " + what;
    if (!by.empty())
      text += " by " + one_line(by);
    if (!via.empty())
      text += " via " + one_line(via);
    text += ": " + joined(incidents.begin(), incidents.end(), share, 60);
  }
  return text;
}

} // namespace belay::protocol
