#include "protocol/email.hpp"

#include "protocol/bundle_text.hpp"
#include "protocol/markup.hpp"
#include "protocol/mime.hpp"
#include "protocol/text.hpp"
#include "protocol/wording.hpp"

#include <cctype>

namespace belay::protocol {

namespace {

constexpr std::size_t max_title_chars = 500;
constexpr std::size_t max_dedup_key_chars = 500;
constexpr std::size_t max_answerable_subject_title_chars = 200;
// Starts with "=_", which neither a line of the text part nor base64 can.
constexpr std::string_view boundary = "=_belay_answer";

// The incident, where its ladder is and which attempt this is.
std::string incident_details(const page& p) {
  const auto& incident = p.incident;
  return "Incident " + std::to_string(incident.id) + ": " +
         one_line(clip(incident.title, max_title_chars)) + "\r\n" + "\r\n" +
         "Severity:  " + severity_label(incident) + "\r\n" +
         "Status:    " + one_line(incident.status) + "\r\n" +
         "Dedup key: " + one_line(clip(incident.dedup_key, max_dedup_key_chars)) +
         "\r\n" + "Ladder:    " + step_label(p) + " of policy '" +
         one_line(incident.policy) + "'\r\n" + "Attempt:   " + std::to_string(p.attempt) +
         "\r\n" + "\r\n";
}

// Every incident of the bundle with its own link, the bundle's link answering all first.
email_parts bundle_content(const page& p) {
  email_parts parts;
  if (!p.update.empty()) {
    parts.subject = one_line(bundle_update_text(p, 200));
    parts.text = bundle_update_text(p, 100000) + "\r\n";
    return parts;
  }
  parts.subject = "[belay] " + bundle_headline(p);
  const std::string& all = p.answer_url;
  parts.text = parts.subject.substr(8) + ".\r\n\r\n";
  if (!all.empty())
    parts.text += "Acknowledge or resolve all of them here:\r\n" + all + "\r\n\r\n";
  std::string items;
  for (auto& b : p.bundle) {
    const auto& i = b.incident;
    const std::string title = one_line(clip(i.title, max_title_chars));
    const std::string& link = b.answer_url.empty() ? all : b.answer_url;
    parts.text += "#" + std::to_string(i.id) + " [" + severity_label(i) + "] " + title +
                  (link.empty() ? "" : "\r\n  " + link) + "\r\n";
    items +=
        "<li><b>" + escape_html(severity_label(i)) + "</b> #" + std::to_string(i.id) +
        " " + escape_html(title) +
        (link.empty() ? ""
                      : " &middot; <a href=\"" + escape_html(link) + "\">answer</a>") +
        "</li>\r\n";
  }
  if (!all.empty())
    parts.text += "\r\nThe links answer as you: do not forward them.\r\n";
  parts.html =
      "<!DOCTYPE html>\r\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
      escape_html(parts.subject) + "</title></head>\r\n" +
      "<body style=\"font-family:sans-serif;color:#18181b\">\r\n" +
      "<h1 style=\"font-size:18px\">" + escape_html(bundle_headline(p)) + "</h1>\r\n" +
      (all.empty() ? std::string{}
                   : "<p><a href=\"" + escape_html(all) +
                         "\" style=\"display:inline-block;padding:10px 16px;"
                         "background:#18181b;color:#ffffff;text-decoration:none;"
                         "border-radius:6px\">Acknowledge or resolve all</a></p>\r\n") +
      "<ul>\r\n" + items + "</ul>\r\n" +
      "<p style=\"color:#71717a;font-size:12px\">The links answer as you: do not forward "
      "them.</p>\r\n</body></html>\r\n";
  return parts;
}

email_parts answerable_content(const page& p) {
  const auto& incident = p.incident;
  const std::string severity = severity_label(incident);
  const std::string status = one_line(incident.status);
  const std::string title = one_line(incident.title);
  const std::string id = "#" + std::to_string(incident.id);
  const std::string& url = p.answer_url;
  email_parts parts;
  parts.subject = "[belay] " + severity + " " +
                  clip(title, max_answerable_subject_title_chars) + " (" +
                  incident_label(incident) + ")";
  const std::string help = help_request_text(p);
  parts.text = "Incident " + id + ": " + title + "\r\n\r\n" +
               (help.empty() ? "" : help + "\r\n\r\n") + "Severity: " + severity +
               "\r\n" + "Status:   " + status + "\r\n\r\n" +
               "Acknowledge or resolve it here:\r\n" + url + "\r\n\r\n" +
               "The link answers as you: do not forward it.\r\n";
  parts.html =
      "<!DOCTYPE html>\r\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
      escape_html(title) + "</title></head>\r\n" +
      "<body style=\"font-family:sans-serif;color:#18181b\">\r\n" +
      "<h1 style=\"font-size:18px\">Incident " + id + ": " + escape_html(title) +
      "</h1>\r\n" + (help.empty() ? "" : "<p>" + escape_html(help) + "</p>\r\n") +
      "<p>Severity: <b>" + escape_html(severity) + "</b><br>Status: <b>" +
      escape_html(status) + "</b></p>\r\n" + "<p><a href=\"" + escape_html(url) +
      "\" style=\"display:inline-block;padding:10px 16px;background:#18181b;"
      "color:#ffffff;text-decoration:none;border-radius:6px\">Acknowledge or resolve</a>"
      "</p>\r\n" +
      "<p style=\"color:#71717a;font-size:12px\">The link answers as you: do not forward "
      "it.</p>\r\n</body></html>\r\n";
  return parts;
}

bool is_atext(char c) {
  static constexpr std::string_view specials = "!#$%&'*+-/?^_`{|}~";
  return std::isalnum(static_cast<unsigned char>(c)) ||
         specials.find(c) != std::string_view::npos;
}

void append_escaped(std::string& out, char c) {
  static constexpr char digits[] = "0123456789ABCDEF";
  auto u = static_cast<unsigned char>(c);
  out += '=';
  out += digits[u >> 4];
  out += digits[u & 0x0f];
}

std::string part(std::string_view content_type, const mime_body& body) {
  return "--" + std::string{boundary} + "\r\nContent-Type: " + std::string{content_type} +
         "\r\nContent-Transfer-Encoding: " + body.transfer_encoding + "\r\n\r\n" +
         body.text;
}

} // namespace

email_parts email_content(const page& p) {
  const auto& incident = p.incident;
  switch (kind_of(p)) {
  case page_kind::status_update: {
    email_parts parts;
    parts.subject = one_line(status_update_text(incident, p.update));
    parts.text = status_update_text(incident, p.update, p.message) + "\r\n\r\n" +
                 incident_details(p);
    return parts;
  }
  case page_kind::answerable:
    return answerable_content(p);
  case page_kind::bundle:
    return bundle_content(p);
  case page_kind::plain:
    break;
  }
  email_parts parts;
  parts.subject = "[belay] " + severity_label(incident) + " " +
                  one_line(clip(incident.title, max_title_chars));
  parts.text = incident_details(p) +
               "Acknowledge the incident in belay to stop the escalation.\r\n";
  return parts;
}

std::string email_message_id(const page& p) {
  // id-left must be a dot-atom: atext separated by single dots.
  const auto& key = p.idempotency_key;
  std::string left;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i] == ':' ? '.' : key[i];
    bool dot_allowed =
        c == '.' && !left.empty() && left.back() != '.' && i + 1 < key.size();
    if ((is_atext(c) && c != '=') || dot_allowed)
      left += c;
    else
      append_escaped(left, c);
  }
  return left + "@belay";
}

std::string email_message(const page& p, std::string_view from, std::time_t now) {
  const auto content = email_content(p);
  const auto text = text_body(content.text);
  const bool alternative = !content.html.empty();
  std::string m;
  m += "Date: " + rfc5322_date(now) + "\r\n";
  m += "From: " + header_text(one_line(from)) + "\r\n";
  m += "To: " + one_line(p.target) + "\r\n";
  m += "Subject: " + header_text(content.subject) + "\r\n";
  m += "Message-ID: <" + email_message_id(p) + ">\r\n";
  m += "MIME-Version: 1.0\r\n";
  if (alternative) {
    m += "Content-Type: multipart/alternative; boundary=\"" + std::string{boundary} +
         "\"\r\n";
  } else {
    m += "Content-Type: text/plain; charset=utf-8\r\n";
    m += "Content-Transfer-Encoding: " + text.transfer_encoding + "\r\n";
  }
  m += "Auto-Submitted: auto-generated\r\n";
  m += "X-Belay-Incident: " + std::to_string(p.incident.id) + "\r\n";
  m += "\r\n";
  if (!alternative)
    return m + text.text;
  m += part("text/plain; charset=utf-8", text);
  // An escaped title may make a line longer than SMTP's 998 octets: always base64.
  m += part("text/html; charset=utf-8", base64_body(content.html));
  m += "--" + std::string{boundary} + "--\r\n";
  return m;
}

} // namespace belay::protocol
