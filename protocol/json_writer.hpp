// Small helpers every renderer in belay shares, so that strings, times and absent
// values look the same in every response.
#pragma once

#include "protocol/model.hpp"

#include <optional>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <string>
#include <string_view>

namespace belay::protocol {

using json_writer = rapidjson::Writer<rapidjson::StringBuffer>;

// Length-aware, so strings holding a NUL byte are not cut short.
void write_string(json_writer& w, std::string_view s);
// An empty string is written as null: records use "" for "not set".
void write_string_or_null(json_writer& w, std::string_view s);
void write_time(json_writer& w, micros t);
void write_time_or_null(json_writer& w, const std::optional<micros>& t);
// Re-emits stored JSON (a timeline detail, say) as a value rather than as a string.
// Text that does not parse is wrapped as {"unparsed":"<text>"} so that one damaged
// row cannot make a whole response invalid JSON.
void write_stored_json(json_writer& w, std::string_view json);

// The finished document as a std::string (length-aware, like write_string).
std::string to_string(const rapidjson::StringBuffer& buffer);

} // namespace belay::protocol
