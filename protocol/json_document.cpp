#include "protocol/json_document.hpp"

#include "protocol/json_writer.hpp"
#include "protocol/text.hpp"

#include <rapidjson/error/en.h>

namespace belay::protocol {

namespace {

constexpr unsigned parse_flags =
    rapidjson::kParseValidateEncodingFlag | rapidjson::kParseFullPrecisionFlag;

struct text_position {
  std::size_t line = 1;
  std::size_t column = 1;
};

text_position position_of(std::string_view text, std::size_t offset) {
  text_position pos;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

std::string at(std::string_view text, std::size_t offset) {
  const text_position pos = position_of(text, offset);
  return " (line " + std::to_string(pos.line) + ", column " + std::to_string(pos.column) +
         ")";
}

// The offset where nesting first exceeds max_json_depth, if it does. Brackets inside
// strings do not count.
std::optional<std::size_t> too_deep_at(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_json_depth)
        return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

error invalid_json(std::string message) {
  return error{400, "invalid_json", std::move(message), ""};
}

} // namespace

std::optional<error> parse_json(rapidjson::Document& doc, std::string_view text,
                                std::string_view what) {
  const std::string subject{what};
  if (is_blank(text))
    return invalid_json(subject + " is empty; expected JSON");
  if (auto offset = too_deep_at(text))
    return invalid_json(subject + " nests deeper than " + std::to_string(max_json_depth) +
                        " levels" + at(text, *offset));
  doc.Parse<parse_flags>(text.data(), text.size());
  if (!doc.HasParseError())
    return std::nullopt;
  std::string reason = rapidjson::GetParseError_En(doc.GetParseError());
  if (!reason.empty() && reason.back() == '.')
    reason.pop_back();
  return invalid_json(subject + " is not valid JSON: " + reason +
                      at(text, doc.GetErrorOffset()));
}

const char* json_type_name(const rapidjson::Value& v) {
  switch (v.GetType()) {
  case rapidjson::kNullType:
    return "null";
  case rapidjson::kFalseType:
  case rapidjson::kTrueType:
    return "a boolean";
  case rapidjson::kObjectType:
    return "an object";
  case rapidjson::kArrayType:
    return "an array";
  case rapidjson::kStringType:
    return "a string";
  case rapidjson::kNumberType:
    return "a number";
  }
  return "an unknown value";
}

std::string_view string_view_of(const rapidjson::Value& string) {
  return {string.GetString(), string.GetStringLength()};
}

std::string compact_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  v.Accept(w);
  return to_string(out);
}

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

} // namespace

// Depth is bounded: parse_json refused documents nested deeper than max_json_depth.
std::optional<unstorable_text> find_unstorable(const rapidjson::Value& v,
                                               const std::string& path) {
  if (v.IsString())
    return check_text(string_view_of(v), path);
  if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i)
      if (auto found = find_unstorable(v[i], element_path(path, i)))
        return found;
  } else if (v.IsObject()) {
    for (const auto& member : v.GetObject()) {
      const auto name = string_view_of(member.name);
      const std::string child = member_path(path, name);
      if (auto found = check_text(name, child))
        return found;
      if (auto found = find_unstorable(member.value, child))
        return found;
    }
  }
  return std::nullopt;
}

std::string unstorable_message(const unstorable_text& t) {
  return "'" + t.field + "' must not contain " +
         (t.nul ? "NUL (\\u0000) characters" : "unpaired surrogates (\\ud800-\\udfff)");
}

} // namespace belay::protocol
