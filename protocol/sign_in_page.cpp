#include "protocol/sign_in_page.hpp"

#include "protocol/html_page.hpp"
#include "protocol/markup.hpp"
#include "protocol/oidc.hpp"

namespace belay::protocol {

namespace {

std::string hidden(std::string_view name, std::string_view value) {
  return "<input type=\"hidden\" name=\"" + std::string{name} + "\" value=\"" +
         escape_html(value) + "\">\n";
}

std::string problem_html(std::string_view problem) {
  if (problem.empty())
    return {};
  return "<p class=\"notice problem\" role=\"alert\">" + escape_html(problem) + "</p>\n";
}

} // namespace

std::string safe_next_path(std::string_view next) {
  const bool local = next.size() >= 1 && next[0] == '/' &&
                     (next.size() < 2 || (next[1] != '/' && next[1] != '\\')) &&
                     next.find_first_of("\r\n\t") == std::string_view::npos;
  return local ? std::string{next} : std::string{"/console"};
}

std::string render_sign_in_page(const sign_in_choices& c) {
  std::string main = "<h1>Sign in to belay</h1>\n" + problem_html(c.problem);
  if (c.org.empty()) {
    main += "<form method=\"get\" action=\"/login\">\n"
            "<label>Organisation<input name=\"org\" autocomplete=\"organization\" "
            "required autofocus></label>\n" +
            hidden("next", c.next) +
            "<button class=\"primary\" type=\"submit\">Continue</button>\n</form>\n";
    return html_document("belay: sign in", main);
  }
  main += "<dl><dt>Organisation</dt><dd>" + escape_html(c.org) +
          " (<a href=\"/login?next=" + escape_html(percent_encode(c.next)) +
          "\">another</a>)</dd></dl>\n";
  if (!c.provider.empty())
    main += "<a class=\"button primary\" id=\"sign-in-oidc\" href=\"/auth/oidc?org=" +
            escape_html(percent_encode(c.org)) +
            "&amp;next=" + escape_html(percent_encode(c.next)) + "\">Sign in with " +
            escape_html(c.provider) + "</a>\n";
  if (!c.provider.empty() && c.password)
    main += "<p class=\"or\">or</p>\n";
  if (c.password)
    main += "<form method=\"post\" action=\"/auth/password\" id=\"sign-in-password\">\n" +
            hidden("org", c.org) + hidden("next", c.next) +
            "<label>Login<input name=\"login\" autocomplete=\"username\" required "
            "value=\"" +
            escape_html(c.login) +
            "\"></label>\n"
            "<label>Password<input name=\"password\" type=\"password\" "
            "autocomplete=\"current-password\" required></label>\n"
            "<button class=\"primary\" type=\"submit\">Sign in</button>\n</form>\n";
  if (c.provider.empty() && !c.password)
    main += "<p>This organisation has no way to sign in here; its API keys still work "
            "for scripts.</p>\n";
  return html_document("belay: sign in", main);
}

std::string render_sign_in_refused(std::string_view org, std::string_view message) {
  std::string main = "<h1>Not signed in</h1>\n" + problem_html(message);
  main += "<p><a href=\"/login" +
          (org.empty() ? std::string{}
                       : "?org=" + escape_html(percent_encode(std::string{org}))) +
          "\">Back to sign-in</a></p>\n";
  return html_document("belay: not signed in", main);
}

} // namespace belay::protocol
