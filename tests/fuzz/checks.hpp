// What the fuzz targets share: a check that aborts (so libFuzzer keeps the input and
// prints the stack), an independent strict JSON and UTF-8 reader, and the invariants
// of protocol/'s error and policy types, which several parsers return.
#pragma once

#include "protocol/error.hpp"
#include "protocol/field_reader.hpp"
#include "protocol/model.hpp"
#include "protocol/policy_json.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <rapidjson/document.h>
#include <string>
#include <string_view>

#define FUZZ_CHECK(condition)                                                            \
  ((condition) ? (void)0 : ::belay::fuzz::broken(#condition, __FILE__, __LINE__))

namespace belay::fuzz {

[[noreturn]] inline void broken(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
  std::abort();
}

inline std::string_view bytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past
// U+10FFFF. Written here rather than taken from RapidJSON, which the parsers use.
inline bool is_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto lead = static_cast<unsigned char>(s[i]);
    std::size_t length = 0;
    unsigned lowest = 0;
    unsigned code = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2, lowest = 0x80, code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, lowest = 0x800, code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, lowest = 0x10000, code = lead & 0x07;
    } else {
      return false;
    }
    if (s.size() - i < length)
      return false;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(s[i + k]);
      if ((next & 0xC0) != 0x80)
        return false;
      code = (code << 6) | (next & 0x3F);
    }
    if (code < lowest || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
      return false;
    i += length;
  }
  return true;
}

inline bool is_blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

inline std::size_t characters(std::string_view s) {
  std::size_t n = 0;
  for (char c : s)
    n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

inline bool has_nul(std::string_view s) {
  return s.find('\0') != std::string_view::npos;
}

// What PostgreSQL and a strict client accept: one JSON value, valid UTF-8. Numbers
// stay text (their syntax is still checked): RapidJSON 1.1.0 misconverts some, and no
// check here needs their value. Iterative, because the parsers refuse deep nesting and
// this reader must not overflow the stack on the inputs they refuse.
inline bool parse_strict(rapidjson::Document& doc, std::string_view text) {
  doc.Parse<rapidjson::kParseValidateEncodingFlag |
            rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseIterativeFlag>(
      text.data(), text.size());
  return !doc.HasParseError();
}

inline bool is_json_object(std::string_view text) {
  rapidjson::Document doc;
  return parse_strict(doc, text) && doc.IsObject();
}

// Whether `holds` is true of every string and member name in `v`.
template <class Predicate>
bool every_string(const rapidjson::Value& v, const Predicate& holds) {
  if (v.IsString())
    return holds(std::string_view{v.GetString(), v.GetStringLength()});
  if (v.IsArray())
    for (const auto& element : v.GetArray())
      if (!every_string(element, holds))
        return false;
  if (v.IsObject())
    for (const auto& m : v.GetObject())
      if (!every_string(m.name, holds) || !every_string(m.value, holds))
        return false;
  return true;
}

// A JSON text whose strings and member names hold no NUL, which jsonb cannot store.
inline bool free_of_nul(const rapidjson::Value& v) {
  return every_string(v, [](std::string_view s) { return !has_nul(s); });
}

// What storage puts in a jsonb column: an object, valid UTF-8, no NUL anywhere.
inline bool is_storable_object(std::string_view text) {
  rapidjson::Document doc;
  return parse_strict(doc, text) && doc.IsObject() && free_of_nul(doc);
}

inline std::string_view string_at(const rapidjson::Value& object, const char* name) {
  auto it = object.FindMember(name);
  FUZZ_CHECK(it != object.MemberEnd() && it->value.IsString());
  return {it->value.GetString(), it->value.GetStringLength()};
}

// Whether the input's JSON value, if it is one, is an object: only then can every error
// but invalid_json name the path of the field at fault.
inline bool opens_object(std::string_view input) {
  const auto first = input.find_first_not_of(" \t\n\r");
  return first != std::string_view::npos && input[first] == '{';
}

// An error a client (or an operator, for provisioning) gets back: a known code, words
// that say what is wrong, and a body that is valid JSON and reads back the same.
inline void check_error(const protocol::error& e, std::string_view input,
                        std::initializer_list<std::string_view> codes) {
  FUZZ_CHECK(e.status == 400);
  bool known = false;
  for (auto code : codes)
    known = known || e.code == code;
  FUZZ_CHECK(known);
  FUZZ_CHECK(!is_blank(e.message));
  FUZZ_CHECK(is_utf8(e.message));
  FUZZ_CHECK(is_utf8(e.field));
  if (e.code != "invalid_json" && opens_object(input) && e.field.empty()) {
    // Only a member named "" at the top has the empty path.
    rapidjson::Document doc;
    FUZZ_CHECK(parse_strict(doc, input) && doc.IsObject() && doc.HasMember(""));
  }

  rapidjson::Document body;
  FUZZ_CHECK(parse_strict(body, protocol::render_error(e)));
  FUZZ_CHECK(body.IsObject() && body.HasMember("error") && body["error"].IsObject());
  const rapidjson::Value& error = body["error"];
  FUZZ_CHECK(string_at(error, "code") == e.code);
  FUZZ_CHECK(string_at(error, "message") == e.message);
  if (e.field.empty())
    FUZZ_CHECK(!error.HasMember("field"));
  else
    FUZZ_CHECK(string_at(error, "field") == e.field);
}

inline bool is_duration(double seconds) {
  return std::isfinite(seconds) && seconds >= 0 &&
         seconds <= protocol::max_duration_seconds;
}

// Names are stored in text columns: valid UTF-8, no NUL.
inline void check_name(std::string_view name) {
  FUZZ_CHECK(!is_blank(name));
  FUZZ_CHECK(is_utf8(name));
  FUZZ_CHECK(characters(name) <= 255);
  FUZZ_CHECK(!has_nul(name));
}

// A policy that pages someone: at least one step, each with at least one target, and
// durations the clock can hold.
inline void check_policy(const belay::policy& p) {
  check_name(p.name);
  FUZZ_CHECK(p.repeat >= 0);
  if (p.repeat_delay_seconds)
    FUZZ_CHECK(is_duration(*p.repeat_delay_seconds));
  FUZZ_CHECK(is_duration(p.grace_seconds));
  FUZZ_CHECK(!p.steps.empty());
  for (const auto& s : p.steps) {
    FUZZ_CHECK(is_duration(s.delay_seconds));
    FUZZ_CHECK(!s.targets.empty());
    for (const auto& t : s.targets) {
      check_name(t.channel);
      FUZZ_CHECK(!is_blank(t.to) && !has_nul(t.to) && is_utf8(t.to));
    }
  }
}

// Storage keeps policies as render_policy's text and reads them back with
// parse_policy: that must give the same policy, and the same text again.
inline void check_policy_round_trip(const belay::policy& p) {
  const std::string text = protocol::render_policy(p);
  auto again = protocol::parse_policy(text);
  FUZZ_CHECK(std::holds_alternative<belay::policy>(again));
  const belay::policy& q = std::get<belay::policy>(again);
  FUZZ_CHECK(q.name == p.name);
  FUZZ_CHECK(q.repeat == p.repeat);
  FUZZ_CHECK(q.repeat_delay_seconds == p.repeat_delay_seconds);
  FUZZ_CHECK(q.grace_seconds == p.grace_seconds);
  FUZZ_CHECK(q.steps.size() == p.steps.size());
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    FUZZ_CHECK(q.steps[i].delay_seconds == p.steps[i].delay_seconds);
    FUZZ_CHECK(q.steps[i].targets.size() == p.steps[i].targets.size());
    for (std::size_t j = 0; j < p.steps[i].targets.size(); ++j) {
      FUZZ_CHECK(q.steps[i].targets[j].channel == p.steps[i].targets[j].channel);
      FUZZ_CHECK(q.steps[i].targets[j].to == p.steps[i].targets[j].to);
    }
  }
  FUZZ_CHECK(protocol::render_policy(q) == text);
}

} // namespace belay::fuzz
