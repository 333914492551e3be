// application/x-www-form-urlencoded both ways, written for the tests rather than taken
// from belay: reading what a transport posted to Twilio's API, and writing what Twilio or
// Slack posts to belay.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace belay::test {

// The fields of a form body, percent- and plus-decoded (the last of a repeated name
// wins).
inline std::map<std::string, std::string> form_fields(const std::string& body) {
  auto decode = [](const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '+') {
        out += ' ';
      } else if (text[i] == '%' && i + 2 < text.size()) {
        out += static_cast<char>(std::strtol(text.substr(i + 1, 2).c_str(), nullptr, 16));
        i += 2;
      } else {
        out += text[i];
      }
    }
    return out;
  };
  std::map<std::string, std::string> fields;
  size_t begin = 0;
  while (begin <= body.size()) {
    auto end = body.find('&', begin);
    if (end == std::string::npos)
      end = body.size();
    auto pair = body.substr(begin, end - begin);
    auto eq = pair.find('=');
    if (!pair.empty())
      fields[decode(pair.substr(0, eq))] =
          eq == std::string::npos ? "" : decode(pair.substr(eq + 1));
    begin = end + 1;
  }
  return fields;
}

// Every byte but the unreserved ones as %XX.
inline std::string percent_encode(const std::string& text) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 0x0f];
    }
  }
  return out;
}

// `fields`, in order, as a form body.
inline std::string
form_body(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (auto& [name, value] : fields)
    out += (out.empty() ? "" : "&") + percent_encode(name) + "=" + percent_encode(value);
  return out;
}

} // namespace belay::test
