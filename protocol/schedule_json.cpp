#include "protocol/schedule_json.hpp"

#include "protocol/field_reader.hpp"
#include "protocol/json_document.hpp"
#include "protocol/limits.hpp"
#include "protocol/text.hpp"

namespace belay::protocol {

namespace {

std::string quoted(const std::string& path) {
  return "'" + path + "'";
}

// A layer with nobody in it, or a restriction list that admits no time, would leave
// the schedule empty while looking configured: refuse them.
const rapidjson::Value* non_empty_array(field_reader& r, const char* name,
                                        bool required) {
  const rapidjson::Value* array =
      required ? r.required_array(name) : r.optional_array(name);
  if (array && array->Empty()) {
    r.fail("invalid_value", r.path_of(name),
           quoted(r.path_of(name)) + " must not be empty");
    return nullptr;
  }
  return array;
}

int read_time_of_day(field_reader& r, const char* name) {
  const std::string text = r.required_string(name, no_length_limit);
  if (!r.ok())
    return 0;
  const auto minutes = parse_time_of_day(text);
  if (!minutes)
    r.fail("invalid_value", r.path_of(name),
           quoted(r.path_of(name)) + " must be a time of day \"HH:MM\" from 00:00 to " +
               "23:59, not \"" + abbreviate(text) + "\"");
  return minutes.value_or(0);
}

restriction read_restriction(const rapidjson::Value& value, const std::string& path,
                             std::optional<error>& failure) {
  field_reader r(value, path, failure);
  r.refuse_unknown({"days", "start", "end"});
  restriction w;
  if (const rapidjson::Value* days = non_empty_array(r, "days", false)) {
    for (rapidjson::SizeType i = 0; i < days->Size() && r.ok(); ++i) {
      const std::string day_path = element_path(r.path_of("days"), i);
      const std::string name =
          r.string_value((*days)[i], day_path, no_length_limit, blank::refused);
      if (!r.ok())
        break;
      const auto weekday = weekday_named(name);
      if (!weekday)
        r.fail("invalid_value", day_path,
               quoted(day_path) + " must be one of mon, tue, wed, thu, fri, sat, sun, " +
                   "not \"" + abbreviate(name) + "\"");
      else if (w.days[*weekday])
        r.fail("invalid_value", day_path, quoted(day_path) + " repeats \"" + name + "\"");
      else
        w.days[*weekday] = true;
    }
  } else {
    w.days.fill(true);
  }
  w.start = read_time_of_day(r, "start");
  w.end = read_time_of_day(r, "end");
  return w;
}

rotation read_rotation(const rapidjson::Value& value, const std::string& path,
                       std::optional<error>& failure) {
  field_reader r(value, path, failure);
  r.refuse_unknown({"type", "length", "start"});
  rotation rot;
  rot.type = rotation_type_named(
                 r.required_choice("type", {"hourly", "daily", "weekly", "monthly"}))
                 .value_or(rot.type);
  rot.length = r.optional_int("length", 1).value_or(rot.length);
  if (r.ok() && rot.length > max_rotation_length)
    r.fail("invalid_value", r.path_of("length"),
           quoted(r.path_of("length")) + " must be at most " +
               std::to_string(max_rotation_length) + ", not " +
               std::to_string(rot.length));
  const std::string start = r.required_string("start", no_length_limit);
  if (!r.ok())
    return rot;
  if (auto local = parse_local_date_time(start))
    rot.start = *local;
  else
    r.fail("invalid_value", r.path_of("start"),
           quoted(r.path_of("start")) +
               " must be a local date-time \"YYYY-MM-DDTHH:MM\" without offset, in the " +
               "schedule's time zone and from 1970 on (such as \"2026-11-02T09:00\"), " +
               "not \"" + abbreviate(start) + "\"");
  return rot;
}

layer read_layer(const rapidjson::Value& value, const std::string& path,
                 std::optional<error>& failure) {
  field_reader r(value, path, failure);
  r.refuse_unknown({"name", "users", "rotation", "restrictions"});
  layer l;
  l.name = r.required_string("name", max_name_chars);
  if (const rapidjson::Value* users = non_empty_array(r, "users", true)) {
    for (rapidjson::SizeType i = 0; i < users->Size() && r.ok(); ++i)
      l.users.push_back(r.string_value((*users)[i], element_path(r.path_of("users"), i),
                                       max_name_chars, blank::refused));
  }
  if (const rapidjson::Value* rot = r.required_object("rotation"))
    l.rotation = read_rotation(*rot, r.path_of("rotation"), failure);
  if (const rapidjson::Value* restrictions = non_empty_array(r, "restrictions", false)) {
    for (rapidjson::SizeType i = 0; i < restrictions->Size() && r.ok(); ++i)
      l.restrictions.push_back(read_restriction(
          (*restrictions)[i], element_path(r.path_of("restrictions"), i), failure));
  }
  return l;
}

} // namespace

void write_schedule(json_writer& w, const schedule& s) {
  w.StartObject();
  w.Key("name");
  write_string(w, s.name);
  w.Key("timeZone");
  write_string(w, s.time_zone);
  w.Key("layers");
  w.StartArray();
  for (const layer& l : s.layers) {
    w.StartObject();
    w.Key("name");
    write_string(w, l.name);
    w.Key("users");
    w.StartArray();
    for (const std::string& u : l.users)
      write_string(w, u);
    w.EndArray();
    w.Key("rotation");
    w.StartObject();
    w.Key("type");
    w.String(rotation_type_name(l.rotation.type));
    w.Key("length");
    w.Int(l.rotation.length);
    w.Key("start");
    write_string(w, local_date_time_text(l.rotation.start));
    w.EndObject();
    // The reader refuses an empty list (it would admit no time): none is written as
    // absent.
    if (!l.restrictions.empty()) {
      w.Key("restrictions");
      w.StartArray();
      for (const restriction& r : l.restrictions) {
        w.StartObject();
        w.Key("days");
        w.StartArray();
        for (std::size_t d = 0; d < r.days.size(); ++d)
          if (r.days[d])
            write_string(w, weekday_names[d]);
        w.EndArray();
        w.Key("start");
        write_string(w, time_of_day_text(r.start));
        w.Key("end");
        write_string(w, time_of_day_text(r.end));
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

std::string render_schedule(const schedule& s) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  write_schedule(w, s);
  return to_string(out);
}

schedule read_schedule(const rapidjson::Value& value, const std::string& path,
                       std::optional<error>& first_error) {
  field_reader r(value, path, first_error);
  r.refuse_unknown({"name", "timeZone", "layers"});
  schedule s;
  s.name = r.required_string("name", max_name_chars);
  s.time_zone = r.required_string("timeZone", no_length_limit);
  if (r.ok()) {
    s.zone = find_time_zone(s.time_zone);
    if (!s.zone)
      r.fail("invalid_value", r.path_of("timeZone"),
             quoted(r.path_of("timeZone")) +
                 " must be an IANA time zone of the system tz database (such as " +
                 "\"America/New_York\"), not \"" + abbreviate(s.time_zone) + "\"");
  }
  if (const rapidjson::Value* layers = non_empty_array(r, "layers", true)) {
    const std::string layers_path = r.path_of("layers");
    for (rapidjson::SizeType i = 0; i < layers->Size() && r.ok(); ++i) {
      const std::string layer_path = element_path(layers_path, i);
      s.layers.push_back(read_layer((*layers)[i], layer_path, first_error));
      // The layer name is the shift's source ("layer:<name>"): it must say which.
      for (std::size_t j = 0; j + 1 < s.layers.size() && r.ok(); ++j)
        if (s.layers[j].name == s.layers.back().name)
          r.fail("invalid_value", member_path(layer_path, "name"),
                 quoted(member_path(layer_path, "name")) + " repeats the layer name \"" +
                     s.layers.back().name + "\" of " +
                     member_path(element_path(layers_path, j), "name"));
    }
  }
  return s;
}

parsed<schedule> parse_schedule(std::string_view json) {
  rapidjson::Document doc;
  if (auto bad = parse_json(doc, json, "schedule"))
    return *bad;
  std::optional<error> failure;
  schedule s = read_schedule(doc, "", failure);
  if (failure)
    return *failure;
  return s;
}

} // namespace belay::protocol
