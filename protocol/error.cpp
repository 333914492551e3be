#include "protocol/error.hpp"

#include "protocol/json_writer.hpp"

namespace belay::protocol {

std::string render_error(const error& e) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("error");
  w.StartObject();
  w.Key("code");
  write_string(w, e.code);
  w.Key("message");
  write_string(w, e.message);
  if (!e.field.empty()) {
    w.Key("field");
    write_string(w, e.field);
  }
  w.EndObject();
  w.EndObject();
  return to_string(out);
}

} // namespace belay::protocol
