#include "protocol/json_writer.hpp"

#include "protocol/time.hpp"

#include <rapidjson/document.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace belay::protocol {

namespace {

// Passes a reader's events on to a writer, numbers as their text (RapidJSON 1.1.0's
// Writer::RawNumber would quote them).
struct verbatim_numbers {
  json_writer& w;
  bool Null() { return w.Null(); }
  bool Bool(bool b) { return w.Bool(b); }
  bool Int(int i) { return w.Int(i); }
  bool Uint(unsigned u) { return w.Uint(u); }
  bool Int64(int64_t i) { return w.Int64(i); }
  bool Uint64(uint64_t u) { return w.Uint64(u); }
  bool Double(double d) { return w.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    return w.RawValue(s, n, rapidjson::kNumberType);
  }
  bool String(const char* s, rapidjson::SizeType n, bool) { return w.String(s, n); }
  bool StartObject() { return w.StartObject(); }
  bool Key(const char* s, rapidjson::SizeType n, bool) { return w.Key(s, n); }
  bool EndObject(rapidjson::SizeType n) { return w.EndObject(n); }
  bool StartArray() { return w.StartArray(); }
  bool EndArray(rapidjson::SizeType n) { return w.EndArray(n); }
};

} // namespace

void write_string(json_writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void write_string_or_null(json_writer& w, std::string_view s) {
  if (s.empty())
    w.Null();
  else
    write_string(w, s);
}

void write_time(json_writer& w, micros t) {
  write_string(w, rfc3339(t));
}

void write_time_or_null(json_writer& w, const std::optional<micros>& t) {
  if (t)
    write_time(w, *t);
  else
    w.Null();
}

void write_stored_json(json_writer& w, std::string_view json) {
  // Straight from the reader into the writer, numbers as their text: RapidJSON 1.1.0
  // converts some numbers wrongly (0.000000000000000000000 into about -2e-193, see
  // protocol/json_document.cpp), and stored JSON needs no conversion at all. Checked
  // whole first, so a bad row cannot leave half a value in the response.
  constexpr unsigned flags = rapidjson::kParseNumbersAsStringsFlag;
  rapidjson::BaseReaderHandler<> check;
  rapidjson::MemoryStream bytes(json.data(), json.size());
  rapidjson::Reader reader;
  if (!reader.Parse<flags>(bytes, check).IsError()) {
    rapidjson::MemoryStream again(json.data(), json.size());
    verbatim_numbers out{w};
    reader.Parse<flags>(again, out);
    return;
  }
  w.StartObject();
  w.Key("unparsed");
  write_string(w, json);
  w.EndObject();
}

std::string to_string(const rapidjson::StringBuffer& buffer) {
  return {buffer.GetString(), buffer.GetSize()};
}

} // namespace belay::protocol
