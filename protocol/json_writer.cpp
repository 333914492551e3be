#include "protocol/json_writer.hpp"

#include "protocol/time.hpp"

#include <rapidjson/document.h>

namespace belay::protocol {

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
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseFullPrecisionFlag>(json.data(), json.size());
  if (!doc.HasParseError()) {
    doc.Accept(w);
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
