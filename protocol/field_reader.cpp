#include "protocol/field_reader.hpp"

#include "protocol/json_document.hpp"
#include "protocol/text.hpp"

#include <cmath>

namespace belay::protocol {

namespace {

std::string quoted(const std::string& path) {
  return "'" + path + "'";
}

std::string list(std::initializer_list<std::string_view> choices) {
  std::string out;
  for (auto choice : choices) {
    if (!out.empty())
      out += ", ";
    out += choice;
  }
  return out;
}

} // namespace

field_reader::field_reader(const rapidjson::Value& value, std::string path,
                           std::optional<error>& first_error)
    : object_(value), path_(std::move(path)), first_error_(first_error) {
  if (!value.IsObject()) {
    const std::string subject = path_.empty() ? "the document" : quoted(path_);
    fail("wrong_type", path_,
         subject + " must be a JSON object, not " + json_type_name(value));
  }
}

std::string field_reader::path_of(std::string_view name) const {
  return member_path(path_, name);
}

void field_reader::fail(std::string code, std::string field, std::string message) {
  if (!first_error_)
    first_error_ = error{400, std::move(code), std::move(message), std::move(field)};
}

const rapidjson::Value* field_reader::member(const char* name) const {
  if (!object_.IsObject())
    return nullptr;
  auto it = object_.FindMember(name);
  if (it == object_.MemberEnd() || it->value.IsNull())
    return nullptr;
  return &it->value;
}

const rapidjson::Value* field_reader::typed_member(const char* name,
                                                   bool (rapidjson::Value::*is)() const,
                                                   const char* expected) {
  if (!ok())
    return nullptr;
  const rapidjson::Value* v = member(name);
  if (v && !(v->*is)()) {
    fail("wrong_type", path_of(name),
         quoted(path_of(name)) + " must be " + expected + ", not " + json_type_name(*v));
    return nullptr;
  }
  return v;
}

std::string field_reader::string_value(const rapidjson::Value& v, const std::string& path,
                                       std::size_t max_chars, blank rule) {
  if (!ok())
    return {};
  if (!v.IsString()) {
    fail("wrong_type", path,
         quoted(path) + " must be a string, not " + json_type_name(v));
    return {};
  }
  const std::string_view text = string_view_of(v);
  if (text.find('\0') != std::string_view::npos) {
    fail("invalid_value", path,
         quoted(path) + " must not contain NUL (\\u0000) characters");
    return {};
  }
  if (rule == blank::refused && is_blank(text)) {
    fail("invalid_value", path, quoted(path) + " must not be empty or blank");
    return {};
  }
  if (max_chars != no_length_limit) {
    const std::size_t length = utf8_length(text);
    if (length > max_chars) {
      fail("too_long", path,
           quoted(path) + " must be at most " + std::to_string(max_chars) +
               " characters long, not " + std::to_string(length));
      return {};
    }
  }
  return std::string{text};
}

std::string field_reader::required_string(const char* name, std::size_t max_chars) {
  if (ok() && !member(name))
    fail("missing_field", path_of(name), quoted(path_of(name)) + " is required");
  return optional_string(name, max_chars).value_or("");
}

std::optional<std::string>
field_reader::optional_string(const char* name, std::size_t max_chars, blank rule) {
  const rapidjson::Value* v = ok() ? member(name) : nullptr;
  if (!v)
    return std::nullopt;
  std::string text = string_value(*v, path_of(name), max_chars, rule);
  return ok() ? std::optional<std::string>{std::move(text)} : std::nullopt;
}

std::optional<std::string>
field_reader::optional_choice(const char* name,
                              std::initializer_list<std::string_view> choices) {
  auto text = optional_string(name, no_length_limit, blank::allowed);
  if (!text)
    return std::nullopt;
  for (auto choice : choices)
    if (*text == choice)
      return text;
  fail("invalid_value", path_of(name),
       quoted(path_of(name)) + " must be one of " + list(choices) + ", not \"" +
           abbreviate(*text) + "\"");
  return std::nullopt;
}

std::string
field_reader::required_choice(const char* name,
                              std::initializer_list<std::string_view> choices) {
  if (ok() && !member(name))
    fail("missing_field", path_of(name),
         quoted(path_of(name)) + " is required (one of " + list(choices) + ")");
  return optional_choice(name, choices).value_or("");
}

std::optional<int> field_reader::optional_int(const char* name, int minimum) {
  const rapidjson::Value* v = typed_member(name, &rapidjson::Value::IsNumber, "a number");
  if (!v)
    return std::nullopt;
  // 4.5 is not a count; 1e10 is one, just too big for an int.
  if (!v->IsInt()) {
    const double d = v->GetDouble();
    if (d != std::floor(d))
      fail("wrong_type", path_of(name),
           quoted(path_of(name)) + " must be a whole number");
    else if (d >= minimum)
      fail("invalid_value", path_of(name), quoted(path_of(name)) + " is too large");
    else
      fail("invalid_value", path_of(name),
           quoted(path_of(name)) + " must be at least " + std::to_string(minimum));
    return std::nullopt;
  }
  if (v->GetInt() < minimum) {
    fail("invalid_value", path_of(name),
         quoted(path_of(name)) + " must be at least " + std::to_string(minimum) +
             ", not " + std::to_string(v->GetInt()));
    return std::nullopt;
  }
  return v->GetInt();
}

std::optional<bool> field_reader::optional_bool(const char* name) {
  const rapidjson::Value* v =
      typed_member(name, &rapidjson::Value::IsBool, "true or false");
  return v ? std::optional<bool>{v->GetBool()} : std::nullopt;
}

std::optional<double> field_reader::optional_seconds(const char* name,
                                                     lowest_seconds lowest) {
  const rapidjson::Value* v =
      typed_member(name, &rapidjson::Value::IsNumber, "a number of seconds");
  if (!v)
    return std::nullopt;
  const double seconds = v->GetDouble();
  const bool too_low = lowest == lowest_seconds::zero ? seconds < 0 : seconds <= 0;
  if (too_low) {
    fail("invalid_value", path_of(name),
         quoted(path_of(name)) +
             (lowest == lowest_seconds::zero ? " must not be negative"
                                             : " must be greater than zero") +
             ", not " + decimal_text(seconds));
    return std::nullopt;
  }
  if (!std::isfinite(seconds) || seconds > max_duration_seconds) {
    fail("invalid_value", path_of(name),
         quoted(path_of(name)) + " must be at most " +
             decimal_text(max_duration_seconds) + " seconds (one year)");
    return std::nullopt;
  }
  return seconds;
}

const rapidjson::Value* field_reader::optional_object(const char* name) {
  return typed_member(name, &rapidjson::Value::IsObject, "an object");
}

const rapidjson::Value* field_reader::required_object(const char* name) {
  if (ok() && !member(name))
    fail("missing_field", path_of(name), quoted(path_of(name)) + " is required");
  return optional_object(name);
}

const rapidjson::Value* field_reader::optional_array(const char* name) {
  return typed_member(name, &rapidjson::Value::IsArray, "an array");
}

const rapidjson::Value* field_reader::required_array(const char* name) {
  if (ok() && !member(name))
    fail("missing_field", path_of(name), quoted(path_of(name)) + " is required");
  return optional_array(name);
}

void field_reader::refuse_unknown(std::initializer_list<std::string_view> known) {
  if (!ok())
    return;
  for (const auto& m : object_.GetObject()) {
    const std::string_view name = string_view_of(m.name);
    bool is_known = false;
    for (auto k : known)
      is_known = is_known || k == name;
    if (!is_known) {
      fail("unknown_field", path_of(name),
           quoted(path_of(name)) + " is not a known field (expected one of " +
               list(known) + ")");
      return;
    }
  }
}

} // namespace belay::protocol
