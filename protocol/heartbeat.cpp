#include "protocol/heartbeat.hpp"

#include "protocol/json_writer.hpp"

namespace belay::protocol {

std::string heartbeat_dedup_key(const std::string& name) {
  return "heartbeat:" + name;
}

std::string heartbeat_title(const std::string& name, std::string_view pending) {
  return "Heartbeat " + name + (pending == pending_failed ? " failed" : " missed");
}

std::string heartbeat_incident_details(const std::string& name,
                                       std::string_view pending) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("heartbeat");
  write_string(w, name);
  w.Key("reason");
  write_string(w, pending);
  w.EndObject();
  return to_string(out);
}

std::optional<heartbeat_deadline> next_deadline(const heartbeat_record& h) {
  if (h.state == heartbeat_down)
    return std::nullopt;
  bool may_go_late = h.state == heartbeat_new || h.state == heartbeat_up;
  if (may_go_late && h.late_at && (!h.down_at || *h.late_at < *h.down_at))
    return heartbeat_deadline{*h.late_at, heartbeat_late};
  if (h.down_at)
    return heartbeat_deadline{*h.down_at, heartbeat_down};
  return std::nullopt;
}

const char* due_transition(const heartbeat_record& h, micros now) {
  if (h.state == heartbeat_down)
    return nullptr;
  if (h.down_at && *h.down_at <= now)
    return heartbeat_down;
  bool may_go_late = h.state == heartbeat_new || h.state == heartbeat_up;
  if (may_go_late && h.late_at && *h.late_at <= now)
    return heartbeat_late;
  return nullptr;
}

parsed<ping_kind> parse_ping_suffix(std::string_view suffix) {
  if (suffix.empty())
    return ping_kind::success;
  if (suffix == "start")
    return ping_kind::start;
  if (suffix == "fail")
    return ping_kind::fail;
  bool digits = suffix.size() <= 3 &&
                suffix.find_first_not_of("0123456789") == std::string_view::npos;
  int code = 0;
  for (char c : digits ? suffix : std::string_view{})
    code = code * 10 + (c - '0');
  if (!digits || code > 255)
    return error{400, "invalid_exit_code",
                 "a ping ends in /start, /fail or an exit code from 0 to 255",
                 "exitCode"};
  return code == 0 ? ping_kind::success : ping_kind::fail;
}

std::string render_heartbeats(const std::vector<heartbeat_record>& heartbeats) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("heartbeats");
  w.StartArray();
  for (auto& h : heartbeats) {
    w.StartObject();
    w.Key("name");
    write_string(w, h.name);
    w.Key("state");
    write_string(w, h.state);
    w.Key("lastPingAt");
    write_time_or_null(w, h.last_ping_at);
    w.Key("nextDueAt");
    auto due = next_deadline(h);
    write_time_or_null(w, due ? std::optional<micros>{due->at} : std::nullopt);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return to_string(out);
}

} // namespace belay::protocol
