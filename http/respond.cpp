#include "http/respond.hpp"

#include "http/keys.hpp"
#include "protocol/text.hpp"

#include <cctype>

namespace belay {

std::string bearer_key(const httplib::Request& req) {
  // The scheme is case-insensitive (RFC 7235): "bearer", "BEARER" and "Bearer" are one.
  const std::string value = req.get_header_value("Authorization");
  const std::string_view header = value;
  constexpr std::string_view scheme = "bearer";
  if (header.size() <= scheme.size() || header[scheme.size()] != ' ')
    return {};
  for (size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != scheme[i])
      return {};
  auto key = header.substr(scheme.size());
  auto first = key.find_first_not_of(' ');
  auto last = key.find_last_not_of(' ');
  if (first == std::string_view::npos)
    return {};
  return std::string{key.substr(first, last - first + 1)};
}

std::optional<int64_t> authenticate(api& a, const httplib::Request& req,
                                    httplib::Response& res) {
  auto key = bearer_key(req);
  if (key.empty()) {
    reply_error(res, 401, "missing_key",
                "send the org API key as 'Authorization: Bearer <key>'");
    return std::nullopt;
  }
  auto org = a.keys.org_for(key);
  if (!org)
    reply_error(res, 401, "unknown_key", "the API key is not known");
  return org;
}

} // namespace belay
