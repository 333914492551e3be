#include "protocol/answer_page.hpp"

#include "protocol/html_page.hpp"
#include "protocol/markup.hpp"

namespace belay::protocol {

namespace {

// A class only for the known severities: the value comes from a monitor.
std::string severity_class(std::string_view severity) {
  for (const char* known : {"critical", "error", "warning", "info"})
    if (severity == known)
      return std::string{" class=\""} + known + "\"";
  return "";
}

std::string row(std::string_view label, const std::string& value_html,
                const std::string& attributes = "") {
  return "<dt>" + std::string{label} + "</dt><dd" + attributes + ">" + value_html +
         "</dd>\n";
}

std::string incident_html(const incident_record& incident, std::string_view paged) {
  std::string status = escape_html(incident.status);
  if (incident.status == status_acknowledged && !incident.acked_by.empty())
    status += " by " + escape_html(incident.acked_by);
  std::string out = "<h1>" + escape_html(incident.title) + "</h1>\n<dl>\n";
  out +=
      row("Severity", escape_html(incident.severity), severity_class(incident.severity));
  out += row("Status", status);
  if (!paged.empty())
    out += row("Paged", escape_html(paged));
  out += row("Incident", "#" + std::to_string(incident.id));
  out += "</dl>\n";
  // No action attribute: the form posts to the page's own URL, /a/<token>.
  const bool ack = can_acknowledge(incident.status);
  const bool resolve = can_resolve(incident.status);
  if (ack || resolve) {
    out += "<form method=\"post\">\n";
    if (ack)
      out += "<button class=\"ack\" type=\"submit\" name=\"action\" "
             "value=\"ack\">Acknowledge</button>\n";
    if (resolve)
      out += "<button class=\"resolve\" type=\"submit\" name=\"action\" "
             "value=\"resolve\">Resolve</button>\n";
    out += "</form>\n";
  }
  return out;
}

std::string page_title(const incident_record& incident) {
  return "belay: " + incident.title;
}

} // namespace

std::string render_answer_page(const incident_record& incident, std::string_view paged) {
  return html_document(page_title(incident), incident_html(incident, paged));
}

std::string render_answer_confirmation(const incident_record& incident,
                                       std::string_view paged, answer_outcome outcome,
                                       std::string_view by) {
  const bool problem =
      outcome == answer_outcome::not_understood || outcome == answer_outcome::unavailable;
  std::string main = "<p class=\"notice";
  main += problem ? " problem" : "";
  main += "\" role=\"status\">";
  main += escape_html(answer_outcome_text(outcome, incident, by));
  main += "</p>\n";
  main += incident_html(incident, paged);
  return html_document(page_title(incident), main);
}

std::string render_bundle_page(const std::vector<incident_record>& incidents,
                               std::string_view paged, std::string_view notice,
                               bool problem) {
  size_t open = 0;
  for (auto& i : incidents)
    open += can_acknowledge(i.status) || can_resolve(i.status);
  const std::string title = std::to_string(incidents.size()) + " incidents";
  std::string main;
  if (!notice.empty())
    main += std::string{"<p class=\"notice"} + (problem ? " problem" : "") +
            "\" role=\"status\">" + escape_html(notice) + "</p>\n";
  main += "<h1>" + escape_html(title) + "</h1>\n<dl>\n";
  main += row("Still open", std::to_string(open));
  if (!paged.empty())
    main += row("Paged", escape_html(paged));
  main += "</dl>\n";
  if (open > 0)
    main += "<form method=\"post\">\n<button class=\"ack\" type=\"submit\" "
            "name=\"action\" value=\"ack\">Acknowledge all</button>\n"
            "<button class=\"resolve\" type=\"submit\" name=\"action\" "
            "value=\"resolve\">Resolve all</button>\n</form>\n";
  main += "<ul style=\"padding:0;list-style:none\">\n";
  for (size_t k = 0; k < incidents.size() && k < max_listed_in_bundle; ++k) {
    const auto& i = incidents[k];
    const auto id = std::to_string(i.id);
    main += "<li style=\"border-top:1px solid #e4e4e7;padding:.6rem 0\"><span" +
            severity_class(i.severity) + ">" + escape_html(i.severity) + "</span> #" +
            id + " " + escape_html(i.title) + " &middot; " + escape_html(i.status) + "\n";
    const bool ack = can_acknowledge(i.status), resolve = can_resolve(i.status);
    if (ack || resolve) {
      main += "<form method=\"post\" style=\"flex-direction:row\"><input type=\"hidden\" "
              "name=\"incident\" value=\"" +
              id + "\">";
      if (ack)
        main += "<button class=\"ack\" type=\"submit\" name=\"action\" "
                "value=\"ack\">Acknowledge</button>";
      if (resolve)
        main += "<button class=\"resolve\" type=\"submit\" name=\"action\" "
                "value=\"resolve\">Resolve</button>";
      main += "</form>";
    }
    main += "</li>\n";
  }
  main += "</ul>\n";
  if (incidents.size() > max_listed_in_bundle)
    main += "<p>…and " + std::to_string(incidents.size() - max_listed_in_bundle) +
            " more: the buttons above act on them too.</p>\n";
  return html_document("belay: " + title, main);
}

std::string render_answer_not_found() {
  return html_document(
      "belay: link not valid",
      "<h1>This link is not valid</h1>\n<p>It may have expired. Open the "
      "incident in belay instead.</p>\n");
}

} // namespace belay::protocol
