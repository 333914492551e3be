// JSON in tests: parsing what a peer or belay wrote, reading its strings, and editing a
// document by JSON pointer to make a variant of it.
#pragma once

#include <catch2/catch.hpp>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <string>

namespace belay::test {

// `text` parsed; the test fails if it is not JSON.
inline rapidjson::Document json(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

// `v` written back as compact JSON.
inline std::string text_of(const rapidjson::Value& v) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  v.Accept(w);
  return {out.GetString(), out.GetSize()};
}

// The string `v` holds; the test fails if it holds something else.
inline std::string str(const rapidjson::Value& v) {
  REQUIRE(v.IsString());
  return {v.GetString(), v.GetStringLength()};
}

// `document` with the value at `pointer` (RFC 6901) set to `value_json`.
inline std::string with_value(const std::string& document, const char* pointer,
                              const std::string& value_json) {
  auto doc = json(document);
  auto value = json(value_json);
  rapidjson::Value copy(value, doc.GetAllocator());
  rapidjson::Pointer(pointer).Set(doc, copy);
  return text_of(doc);
}

// `document` without the value at `pointer`; the test fails if there is none.
inline std::string without(const std::string& document, const char* pointer) {
  auto doc = json(document);
  REQUIRE(rapidjson::Pointer(pointer).Erase(doc));
  return text_of(doc);
}

} // namespace belay::test
