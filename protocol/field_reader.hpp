// Typed reads of one JSON object's members for the parsers in protocol/. Every error
// names the full JSON path at fault ("orgs[0].channels[1].url").
#pragma once

#include "protocol/error.hpp"

#include <cstddef>
#include <initializer_list>
#include <limits>
#include <optional>
#include <rapidjson/document.h>
#include <string>
#include <string_view>

namespace belay::protocol {

inline constexpr std::size_t no_length_limit = std::numeric_limits<std::size_t>::max();

// Durations are seconds (fractional allowed). The ceiling keeps every duration far
// inside the int64 microsecond range the clock uses; nobody pages after a year.
inline constexpr double max_duration_seconds = 365.0 * 24 * 3600;

enum class blank { refused, allowed };
enum class lowest_seconds { zero, above_zero };

// The first error sticks and every later read is a no-op returning an empty value, so
// a parser reads top to bottom like the document it describes and checks once at the
// end (the std::istream pattern). Readers of nested objects share the error slot.
//
// Absent and null members are the same: many clients write null for "not set".
class field_reader {
public:
  // Records wrong_type when `value` is not an object.
  field_reader(const rapidjson::Value& value, std::string path,
               std::optional<error>& first_error);

  bool ok() const { return !first_error_; }
  // The error slot, for a reader of a nested object to share.
  std::optional<error>& error_slot() { return first_error_; }
  bool has(const char* name) const { return member(name) != nullptr; }
  const std::string& path() const { return path_; }
  std::string path_of(std::string_view name) const;
  void fail(std::string code, std::string field, std::string message);

  std::string required_string(const char* name, std::size_t max_chars);
  std::optional<std::string> optional_string(const char* name, std::size_t max_chars,
                                             blank rule = blank::refused);
  // A string that must be one of `choices`; absent gives nullopt.
  std::optional<std::string>
  optional_choice(const char* name, std::initializer_list<std::string_view> choices);
  std::string required_choice(const char* name,
                              std::initializer_list<std::string_view> choices);
  std::optional<int> optional_int(const char* name, int minimum);
  std::optional<bool> optional_bool(const char* name);
  std::optional<double> optional_seconds(const char* name, lowest_seconds lowest);
  // nullptr when absent (or after an error).
  const rapidjson::Value* optional_object(const char* name);
  const rapidjson::Value* required_object(const char* name);
  const rapidjson::Value* optional_array(const char* name);
  const rapidjson::Value* required_array(const char* name);

  // Validates a string found anywhere (an array element, say) with the same rules.
  std::string string_value(const rapidjson::Value& v, const std::string& path,
                           std::size_t max_chars, blank rule);
  // Refuses members outside `known`: in configuration a misspelt name must fail
  // loudly rather than quietly fall back to a default.
  void refuse_unknown(std::initializer_list<std::string_view> known);

private:
  const rapidjson::Value* member(const char* name) const;
  const rapidjson::Value* typed_member(const char* name,
                                       bool (rapidjson::Value::*is)() const,
                                       const char* expected);

  const rapidjson::Value& object_;
  std::string path_;
  std::optional<error>& first_error_;
};

} // namespace belay::protocol
