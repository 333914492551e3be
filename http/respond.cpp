#include "http/respond.hpp"

#include "http/keys.hpp"
#include "protocol/text.hpp"

#include <cctype>
#include <rapidjson/document.h>

namespace belay {

namespace {

bool has_unpaired_surrogate(std::string_view text) {
  // U+D800..U+DFFF encode as ED A0..BF xx, which valid UTF-8 never contains; RapidJSON
  // refuses such raw bytes but decodes a lone "\udc00" escape into them.
  for (size_t i = 0; i + 1 < text.size(); ++i)
    if (static_cast<unsigned char>(text[i]) == 0xED &&
        (static_cast<unsigned char>(text[i + 1]) & 0xE0) == 0xA0)
      return true;
  return false;
}

std::optional<unstorable_text> check_text(std::string_view text,
                                          const std::string& path) {
  if (text.find('\0') != std::string_view::npos)
    return unstorable_text{path, true};
  if (has_unpaired_surrogate(text))
    return unstorable_text{path, false};
  return std::nullopt;
}

// Depth is bounded: the protocol/ parsers refused documents nested deeper than 64.
std::optional<unstorable_text> find_in(const rapidjson::Value& v,
                                       const std::string& path) {
  if (v.IsString())
    return check_text({v.GetString(), v.GetStringLength()}, path);
  if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i)
      if (auto found = find_in(v[i], protocol::element_path(path, i)))
        return found;
  } else if (v.IsObject()) {
    for (auto& m : v.GetObject()) {
      std::string_view name{m.name.GetString(), m.name.GetStringLength()};
      auto child = protocol::member_path(path, name);
      if (auto found = check_text(name, child))
        return found;
      if (auto found = find_in(m.value, child))
        return found;
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<unstorable_text> find_unstorable(std::string_view body,
                                               const char* within) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(body.data(), body.size());
  if (doc.HasParseError())
    return std::nullopt; // not JSON: the protocol parser has already said so
  if (!within)
    return find_in(doc, "");
  if (!doc.IsObject() || !doc.HasMember(within))
    return std::nullopt;
  return find_in(doc[within], within);
}

protocol::error unstorable_error(const unstorable_text& t) {
  return {
      400, "invalid_value",
      "'" + t.field + "' must not contain " +
          (t.nul ? "NUL (\\u0000) characters" : "unpaired surrogates (\\ud800-\\udfff)"),
      t.field};
}

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
