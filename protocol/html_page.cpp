#include "protocol/html_page.hpp"

#include "protocol/markup.hpp"

namespace belay::protocol {

namespace {

// The answer page's URL is its credential: no referrer may carry it elsewhere, and no
// search engine should keep a page of belay's.
constexpr std::string_view head_start =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<meta name=\"referrer\" content=\"no-referrer\">\n"
    "<meta name=\"robots\" content=\"noindex, nofollow\">\n";

constexpr std::string_view style =
    "<style>\n"
    "body{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif;margin:0;"
    "padding:1rem;background:#f4f4f5;color:#18181b;line-height:1.4}\n"
    "main{max-width:32rem;margin:0 auto;background:#fff;border-radius:.75rem;"
    "padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}\n"
    "h1{font-size:1.3rem;margin:0 0 1rem;overflow-wrap:anywhere}\n"
    "dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem;margin:0 0 1.25rem}\n"
    "dt{color:#71717a}dd{margin:0;overflow-wrap:anywhere}\n"
    ".notice{margin:0 0 1rem;padding:.75rem;border-radius:.5rem;background:#ecfdf5;"
    "color:#065f46;font-weight:600}\n"
    ".notice.problem{background:#fef2f2;color:#991b1b}\n"
    "form{display:flex;flex-direction:column;gap:.75rem}\n"
    "label{display:flex;flex-direction:column;gap:.25rem;color:#3f3f46}\n"
    "input{font:inherit;font-size:1.05rem;padding:.7rem;border:1px solid #d4d4d8;"
    "border-radius:.5rem}\n"
    "button,a.button{font:inherit;font-size:1.1rem;font-weight:600;padding:.9rem;border:"
    "0;"
    "border-radius:.5rem;color:#fff;cursor:pointer;text-align:center;"
    "text-decoration:none;display:block}\n"
    ".ack{background:#b45309}.resolve{background:#15803d}\n"
    ".primary{background:#1d4ed8}\n"
    ".or{text-align:center;color:#71717a;margin:1rem 0}\n"
    ".critical,.error{color:#b91c1c;font-weight:600}.warning{color:#b45309}\n"
    "</style>\n";

} // namespace

std::string html_document(std::string_view title, const std::string& main) {
  std::string out{head_start};
  out += "<title>";
  out += escape_html(title);
  out += "</title>\n";
  out += style;
  out += "</head>\n<body>\n<main>\n";
  out += main;
  out += "</main>\n</body>\n</html>\n";
  return out;
}

} // namespace belay::protocol
