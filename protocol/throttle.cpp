#include "protocol/throttle.hpp"

#include "protocol/json_writer.hpp"

#include <rapidjson/document.h>

namespace belay::protocol {

throttle_windows default_page_throttle(std::string_view type) {
  if (type == "sms")
    return {{1, 60}, {5, 900}, {11, 3600}};
  if (type == "voice")
    return {{1, 60}, {3, 900}, {7, 3600}};
  if (type == "email")
    return {{1, 60}};
  return {};
}

throttle_windows default_status_throttle(std::string_view type) {
  if (type == "sms" || type == "voice")
    return {{1, 180}, {3, 1200}, {8, 7200}};
  if (type == "email")
    return {{1, 180}};
  return {};
}

bool can_bundle(std::string_view type) {
  return type == "sms" || type == "voice" || type == "email" || type == "slack";
}

std::string throttle_json(const throttle_windows& windows) {
  rapidjson::StringBuffer buffer;
  json_writer w(buffer);
  w.StartArray();
  for (auto& window : windows) {
    w.StartObject();
    w.Key("count");
    w.Int(window.count);
    w.Key("seconds");
    w.Double(window.seconds);
    w.EndObject();
  }
  w.EndArray();
  return to_string(buffer);
}

throttle_windows throttle_from_json(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  throttle_windows windows;
  if (doc.HasParseError() || !doc.IsArray())
    return windows;
  for (auto& w : doc.GetArray())
    if (w.IsObject() && w.HasMember("count") && w["count"].IsInt() &&
        w.HasMember("seconds") && w["seconds"].IsNumber())
      windows.push_back({w["count"].GetInt(), w["seconds"].GetDouble()});
  return windows;
}

} // namespace belay::protocol
