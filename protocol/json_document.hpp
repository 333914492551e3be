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
// column where parsing stopped, or, for text PostgreSQL cannot store (find_unstorable),
// an invalid_value error naming the field.
std::optional<error> parse_json(rapidjson::Document& doc, std::string_view text,
                                std::string_view what);

// "a string", "an object", … for messages such as "must be an object, not an array".
const char* json_type_name(const rapidjson::Value& v);

std::string_view string_view_of(const rapidjson::Value& string);

// The value re-serialised without whitespace.
std::string compact_json(const rapidjson::Value& v);

// Text a document may carry that PostgreSQL cannot store: a NUL character, or an unpaired
// UTF-16 surrogate ("\udc00", which RapidJSON decodes into invalid UTF-8). Found by the
// parser, it is a 400 naming the field; found by the database, it would be a 503 after
// part of a batch was written (G10).
struct unstorable_text {
  std::string field; // JSON path of the string or member name
  bool nul = false;  // else an unpaired surrogate
};

// The first unstorable string or member name in `v`, whose path is `path`.
std::optional<unstorable_text> find_unstorable(const rapidjson::Value& v,
                                               const std::string& path);

// "'<field>' must not contain NUL (\u0000) characters", or unpaired surrogates.
std::string unstorable_message(const unstorable_text& t);

} // namespace belay::protocol
