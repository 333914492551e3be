// Parsing untrusted JSON into a RapidJSON document, and the checks every parser in
// protocol/ applies to what it keeps.
#pragma once

#include "protocol/error.hpp"

#include <optional>
#include <rapidjson/document.h>
#include <string>
#include <string_view>

namespace belay::protocol {

// Deeper documents are refused before parsing: the parser, the NUL check and
// re-serialisation all recurse, and a 512 KiB body of '[' would exhaust the stack.
inline constexpr int max_json_depth = 64;

// Parses `text` as one JSON value with valid UTF-8 (PostgreSQL would refuse anything
// else later, after the client had been told "accepted"). On failure returns an
// invalid_json error whose message names `what` ("request body") and the line and
// column where parsing stopped.
std::optional<error> parse_json(rapidjson::Document& doc, std::string_view text,
                                std::string_view what);

// "a string", "an object", … for messages such as "must be an object, not an array".
const char* json_type_name(const rapidjson::Value& v);

std::string_view string_view_of(const rapidjson::Value& string);

// The value re-serialised without whitespace.
std::string compact_json(const rapidjson::Value& v);

// The path of the first string or member name holding a NUL character, if any:
// PostgreSQL's text and jsonb types cannot store one, so it must be refused up front.
std::optional<std::string> find_nul(const rapidjson::Value& v, const std::string& path);

} // namespace belay::protocol
