#include "protocol/policy_json.hpp"

#include "protocol/field_reader.hpp"
#include "protocol/json_document.hpp"
#include "protocol/limits.hpp"
#include "protocol/text.hpp"

namespace belay::protocol {

namespace {

// An escalation step with nobody to page, or a policy with no step, would page no one
// while looking configured: refuse them.
const rapidjson::Value* required_non_empty_array(field_reader& r, const char* name) {
  const rapidjson::Value* array = r.required_array(name);
  if (array && array->Empty()) {
    r.fail("invalid_value", r.path_of(name),
           "'" + r.path_of(name) + "' must not be empty");
    return nullptr;
  }
  return array;
}

belay::target read_target(const rapidjson::Value& value, const std::string& path,
                          std::optional<error>& failure) {
  field_reader r(value, path, failure);
  r.refuse_unknown({"channel", "to", "user", "schedule"});
  belay::target t;
  // Exactly one kind: {"channel","to"}, {"user"} or {"schedule"}. Mixing them would
  // leave it to the reader to guess which one pages; the later kind is the one named.
  const bool address = r.has("channel") || r.has("to");
  const char* second_kind = nullptr;
  if (r.has("schedule") && (address || r.has("user")))
    second_kind = "schedule";
  else if (r.has("user") && address)
    second_kind = "user";
  if (r.ok() && second_kind) {
    r.fail("invalid_value", r.path_of(second_kind),
           "'" + path + "' must be exactly one kind of target: {\"channel\",\"to\"}, " +
               "{\"user\"} or {\"schedule\"}");
    return t;
  }
  if (r.has("user")) {
    t.user = r.required_string("user", max_name_chars);
  } else if (r.has("schedule")) {
    t.schedule = r.required_string("schedule", max_name_chars);
  } else {
    t.channel = r.required_string("channel", max_name_chars);
    t.to = r.required_string("to", no_length_limit);
  }
  return t;
}

belay::step read_step(const rapidjson::Value& value, const std::string& path,
                      std::optional<error>& failure) {
  field_reader r(value, path, failure);
  r.refuse_unknown({"delaySeconds", "targets"});
  belay::step s;
  s.delay_seconds = r.optional_seconds("delaySeconds", lowest_seconds::zero).value_or(0);
  if (const rapidjson::Value* targets = required_non_empty_array(r, "targets")) {
    const std::string targets_path = r.path_of("targets");
    for (rapidjson::SizeType i = 0; i < targets->Size() && !failure; ++i)
      s.targets.push_back(
          read_target((*targets)[i], element_path(targets_path, i), failure));
  }
  return s;
}

} // namespace

void write_policy(json_writer& w, const belay::policy& p) {
  w.StartObject();
  w.Key("name");
  write_string(w, p.name);
  w.Key("repeat");
  w.Int(p.repeat);
  w.Key("repeatDelaySeconds");
  if (p.repeat_delay_seconds)
    w.Double(*p.repeat_delay_seconds);
  else
    w.Null();
  w.Key("graceSeconds");
  w.Double(p.grace_seconds);
  if (p.reopen_seconds > 0) { // absent when off: the stored ladders of before stay alike
    w.Key("reopenSeconds");
    w.Double(p.reopen_seconds);
  }
  w.Key("steps");
  w.StartArray();
  for (const auto& s : p.steps) {
    w.StartObject();
    w.Key("delaySeconds");
    w.Double(s.delay_seconds);
    w.Key("targets");
    write_targets(w, s.targets);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void write_targets(json_writer& w, const std::vector<target>& targets) {
  w.StartArray();
  for (const auto& t : targets) {
    w.StartObject();
    if (t.is_user()) {
      w.Key("user");
      write_string(w, t.user);
    } else if (t.is_schedule()) {
      w.Key("schedule");
      write_string(w, t.schedule);
    } else {
      w.Key("channel");
      write_string(w, t.channel);
      w.Key("to");
      write_string(w, t.to);
    }
    w.EndObject();
  }
  w.EndArray();
}

std::string render_policy(const belay::policy& p) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  write_policy(w, p);
  return to_string(out);
}

belay::policy read_policy(const rapidjson::Value& value, const std::string& path,
                          std::optional<error>& first_error) {
  field_reader r(value, path, first_error);
  r.refuse_unknown(
      {"name", "repeat", "repeatDelaySeconds", "graceSeconds", "reopenSeconds", "steps"});
  belay::policy p;
  p.name = r.required_string("name", max_name_chars);
  p.repeat = r.optional_int("repeat", 0).value_or(p.repeat);
  p.repeat_delay_seconds = r.optional_seconds("repeatDelaySeconds", lowest_seconds::zero);
  p.grace_seconds =
      r.optional_seconds("graceSeconds", lowest_seconds::zero).value_or(p.grace_seconds);
  p.reopen_seconds = r.optional_seconds("reopenSeconds", lowest_seconds::zero)
                         .value_or(p.reopen_seconds);
  if (const rapidjson::Value* steps = required_non_empty_array(r, "steps")) {
    const std::string steps_path = r.path_of("steps");
    for (rapidjson::SizeType i = 0; i < steps->Size() && !first_error; ++i)
      p.steps.push_back(read_step((*steps)[i], element_path(steps_path, i), first_error));
  }
  return p;
}

parsed<belay::policy> parse_policy(std::string_view json) {
  rapidjson::Document doc;
  if (auto bad = parse_json(doc, json, "policy"))
    return *bad;
  std::optional<error> failure;
  belay::policy p = read_policy(doc, "", failure);
  if (failure)
    return *failure;
  return p;
}

} // namespace belay::protocol
