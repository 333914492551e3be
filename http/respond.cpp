#include "http/respond.hpp"

#include "http/keys.hpp"

namespace belay {

std::string bearer_key(const httplib::Request& req) {
  auto header = req.get_header_value("Authorization");
  constexpr std::string_view scheme = "Bearer ";
  if (header.size() <= scheme.size() || header.compare(0, scheme.size(), scheme) != 0)
    return {};
  return header.substr(scheme.size());
}

std::optional<int64_t> authenticate(api& a, const httplib::Request& req,
                                    httplib::Response& res) {
  auto key = bearer_key(req);
  if (key.empty()) {
    reply_error(res, 401, "missing_key", "send the org API key as 'Authorization: Bearer <key>'");
    return std::nullopt;
  }
  auto org = a.keys.org_for(key);
  if (!org)
    reply_error(res, 401, "unknown_key", "the API key is not known");
  return org;
}

} // namespace belay
