#include "protocol/json_document.hpp"

#include "protocol/json_writer.hpp"
#include "protocol/text.hpp"

#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace belay::protocol {

namespace {

// Numbers arrive as their text (see checked_values).
constexpr unsigned parse_flags =
    rapidjson::kParseValidateEncodingFlag | rapidjson::kParseNumbersAsStringsFlag;

// Builds the document from the reader's events, correcting what RapidJSON 1.1.0
// (Debian 12's) gets wrong, fixed after that release: numbers, even in full-precision
// mode: 0e100 comes out as -2e146,
//   0.184467440737095516159 as -6.5e-201, and 2e308 as an infinity that no writer can
//   render (Tencent/rapidjson#1249, #1441, #2326). So the reader hands numbers over as
//   text, converted here: integers as 64-bit integers while they fit, anything else
//   with the C library's correctly rounded strtod, in the C locale.
// (An unpaired low surrogate escape also passes as bytes that are not UTF-8: the parsers
// refuse it with the field named, through find_unstorable.)
class checked_values {
public:
  explicit checked_values(rapidjson::Document& doc) : doc_(doc) {}

  // Why the last event was refused, if it was.
  std::optional<rapidjson::ParseErrorCode> refusal() const { return refusal_; }

  // `text` is NUL-terminated and already valid JSON number syntax.
  bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
    const char* end = text + length;
    if (std::string_view{text, length}.find_first_of(".eE") == std::string_view::npos) {
      if (text[0] == '-') {
        int64_t value = 0;
        if (std::from_chars(text, end, value).ec == std::errc{})
          return doc_.Int64(value);
      } else {
        uint64_t value = 0;
        if (std::from_chars(text, end, value).ec == std::errc{})
          return doc_.Uint64(value);
      }
    }
    static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
    const double value = strtod_l(text, nullptr, c_locale);
    if (std::isinf(value))
      return refuse(rapidjson::kParseErrorNumberTooBig);
    return doc_.Double(value);
  }

  // Everything else goes to the document as it is.
  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned u) { return doc_.Uint(u); }
  bool Int64(int64_t i) { return doc_.Int64(i); }
  bool Uint64(uint64_t u) { return doc_.Uint64(u); }
  bool Double(double d) { return doc_.Double(d); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return doc_.String(s, n, copy);
  }
  bool StartObject() { return doc_.StartObject(); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    return doc_.Key(s, n, copy);
  }
  bool EndObject(rapidjson::SizeType members) { return doc_.EndObject(members); }
  bool StartArray() { return doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) { return doc_.EndArray(elements); }

private:
  bool refuse(rapidjson::ParseErrorCode why) {
    refusal_ = why;
    return false;
  }

  rapidjson::Document& doc_;
  std::optional<rapidjson::ParseErrorCode> refusal_;
};

// Fills a document through checked_values (a generator for Document::Populate).
struct checked_parse {
  explicit checked_parse(std::string_view json) : text(json) {}

  std::string_view text;
  rapidjson::ParseResult result;
  std::optional<rapidjson::ParseErrorCode> refusal;

  bool operator()(rapidjson::Document& doc) {
    checked_values handler(doc);
    rapidjson::MemoryStream bytes(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> in(bytes);
    rapidjson::Reader reader;
    result = reader.Parse<parse_flags>(in, handler);
    refusal = handler.refusal();
    return !result.IsError();
  }
};

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

// A member name quoted in a path may hold an unpaired surrogate: U+FFFD stands in for it,
// so that the error itself is valid UTF-8.
std::string with_surrogates_replaced(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i + 2 < s.size() && static_cast<unsigned char>(s[i]) == 0xED &&
        (static_cast<unsigned char>(s[i + 1]) & 0xE0) == 0xA0) {
      out += "\xEF\xBF\xBD";
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
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
  checked_parse parse(text);
  doc.Populate(parse);
  if (!parse.result.IsError()) {
    // Refused here, before any parser quotes such text back in an error message.
    if (auto bad = find_unstorable(doc, "")) {
      bad->field = with_surrogates_replaced(bad->field);
      return error{400, "invalid_value", unstorable_message(*bad), bad->field};
    }
    return std::nullopt;
  }
  std::string reason =
      rapidjson::GetParseError_En(parse.refusal.value_or(parse.result.Code()));
  if (!reason.empty() && reason.back() == '.')
    reason.pop_back();
  return invalid_json(subject + " is not valid JSON: " + reason +
                      at(text, parse.result.Offset()));
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
