// Unwrapping parsed<T> in tests, with the unexpected side shown when it is the other.
#pragma once

#include "protocol/error.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <string>
#include <variant>

namespace belay::protocol::test {

template <class T> const T& value_of(const parsed<T>& p) {
  if (auto e = std::get_if<error>(&p))
    FAIL("expected a value, got error " << e->code << " at '" << e->field
                                        << "': " << e->message);
  return std::get<T>(p);
}

template <class T> const error& error_of(const parsed<T>& p) {
  REQUIRE(std::holds_alternative<error>(p));
  return std::get<error>(p);
}

inline rapidjson::Document json(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

inline std::string text_of(const rapidjson::Value& v) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  v.Accept(w);
  return {out.GetString(), out.GetSize()};
}

inline std::string str(const rapidjson::Value& v) {
  REQUIRE(v.IsString());
  return {v.GetString(), v.GetStringLength()};
}

} // namespace belay::protocol::test
