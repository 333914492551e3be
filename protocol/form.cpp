#include "protocol/form.hpp"

#include <rapidjson/encodings.h>
#include <rapidjson/memorystream.h>

namespace belay::protocol {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

struct discard_output {
  void Put(char) {}
};

bool valid_utf8(std::string_view text) {
  rapidjson::MemoryStream in(text.data(), text.size());
  discard_output out;
  while (in.Tell() < text.size())
    if (!rapidjson::UTF8<char>::Validate(in, out))
      return false;
  return true;
}

error invalid_form(std::string message) {
  return error{400, "invalid_form", std::move(message), ""};
}

// nullopt on a malformed escape.
std::optional<std::string> decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c != '%') {
      out += c;
    } else {
      const int high = i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
      const int low = high >= 0 ? hex_digit(text[i + 2]) : -1;
      if (low < 0)
        return std::nullopt;
      out += static_cast<char>(high * 16 + low);
      i += 2;
    }
  }
  return out;
}

} // namespace

parsed<form_fields> parse_form(std::string_view body) {
  form_fields fields;
  std::size_t begin = 0;
  while (begin <= body.size()) {
    std::size_t end = body.find('&', begin);
    if (end == std::string_view::npos)
      end = body.size();
    const std::string_view segment = body.substr(begin, end - begin);
    begin = end + 1;
    if (segment.empty())
      continue;
    if (fields.size() == max_form_fields)
      return invalid_form("the form has more than " + std::to_string(max_form_fields) +
                          " fields");
    const std::size_t equals = segment.find('=');
    auto name = decode(segment.substr(0, equals));
    auto value = decode(equals == std::string_view::npos ? std::string_view{}
                                                         : segment.substr(equals + 1));
    if (!name || !value)
      return invalid_form("form field " + std::to_string(fields.size() + 1) +
                          " has a '%' not followed by two hex digits");
    for (const std::string* text : {&*name, &*value}) {
      if (text->find('\0') != std::string::npos)
        return invalid_form("the form has a NUL character (%00)");
      if (!valid_utf8(*text))
        return invalid_form("the form has a field that is not valid UTF-8");
    }
    fields.emplace_back(std::move(*name), std::move(*value));
  }
  return fields;
}

std::optional<std::string> form_value(const form_fields& fields, std::string_view name) {
  for (const auto& [field, value] : fields)
    if (field == name)
      return value;
  return std::nullopt;
}

} // namespace belay::protocol
