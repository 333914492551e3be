#include "protocol/change_event.hpp"

#include "protocol/json_document.hpp"
#include "protocol/limits.hpp"
#include "protocol/redact.hpp"
#include "protocol/text.hpp"
#include "protocol/time.hpp"

namespace belay::protocol {

namespace {

constexpr std::size_t max_source_chars = 255;
constexpr rapidjson::SizeType max_links = 50;

// PagerDuty reports every problem at once; so does this reader.
struct problems {
  std::vector<std::string>& errors;

  std::optional<std::string> string(const rapidjson::Value& object, const char* name,
                                    const std::string& label) {
    auto it = object.FindMember(name);
    if (it == object.MemberEnd() || it->value.IsNull())
      return std::nullopt;
    if (!it->value.IsString()) {
      errors.push_back("'" + label + "' must be a string");
      return std::nullopt;
    }
    auto text = string_view_of(it->value);
    if (text.find('\0') != std::string_view::npos) {
      errors.push_back("'" + label + "' must not contain NUL characters");
      return std::nullopt;
    }
    return std::string{text};
  }

  std::string required(const rapidjson::Value& object, const char* name,
                       const std::string& label) {
    auto text = string(object, name, label);
    auto it = object.FindMember(name);
    bool wrong_type =
        it != object.MemberEnd() && !it->value.IsNull() && !it->value.IsString();
    if (!wrong_type && (!text || is_blank(*text))) {
      errors.push_back("'" + label + "' is missing or blank");
      return {};
    }
    return text.value_or("");
  }

  void at_most(const std::string& text, std::size_t max_chars, const std::string& label) {
    if (utf8_length(text) > max_chars)
      errors.push_back("'" + label + "' is too long (maximum is " +
                       std::to_string(max_chars) + " characters)");
  }
};

// PagerDuty's examples write offsets without a colon ("…58.315+0000"); RFC 3339 wants
// one.
std::optional<micros> read_timestamp(const std::string& text) {
  if (auto at = parse_rfc3339(text))
    return at;
  auto n = text.size();
  if (n > 5 && (text[n - 5] == '+' || text[n - 5] == '-') &&
      text.find_first_not_of("0123456789", n - 4) == std::string::npos)
    return parse_rfc3339(text.substr(0, n - 2) + ":" + text.substr(n - 2));
  return std::nullopt;
}

void read_links(const rapidjson::Value& doc, change_event& out, problems& p) {
  auto it = doc.FindMember("links");
  if (it == doc.MemberEnd() || it->value.IsNull())
    return;
  if (!it->value.IsArray()) {
    p.errors.push_back("'links' must be an array");
    return;
  }
  auto& links = it->value;
  if (links.Size() > max_links) {
    p.errors.push_back("'links' has more than " + std::to_string(max_links) + " links");
    return;
  }
  for (rapidjson::SizeType i = 0; i < links.Size(); ++i) {
    auto label = "links[" + std::to_string(i) + "]";
    if (!links[i].IsObject()) {
      p.errors.push_back("'" + label + "' must be an object");
      continue;
    }
    p.required(links[i], "href", label + ".href");
    p.string(links[i], "text", label + ".text");
  }
  out.links_json = compact_json_without_secrets(links);
}

} // namespace

std::variant<change_event, std::vector<std::string>>
parse_change_event(std::string_view body) {
  rapidjson::Document doc;
  if (auto bad = parse_json(doc, body, "Event object"))
    return std::vector<std::string>{bad->message};
  if (!doc.IsObject())
    return std::vector<std::string>{
        std::string{"Event object must be a JSON object, not "} + json_type_name(doc)};
  std::vector<std::string> errors;
  problems p{errors};
  change_event event;
  event.routing_key = p.required(doc, "routing_key", "routing_key");
  auto payload = doc.FindMember("payload");
  if (payload == doc.MemberEnd() || !payload->value.IsObject()) {
    errors.push_back("'payload' is missing or not an object");
  } else {
    auto& pl = payload->value;
    event.summary = p.required(pl, "summary", "payload.summary");
    p.at_most(event.summary, max_title_chars, "payload.summary");
    event.source = p.string(pl, "source", "payload.source").value_or("");
    p.at_most(event.source, max_source_chars, "payload.source");
    if (auto ts = p.string(pl, "timestamp", "payload.timestamp")) {
      event.timestamp = read_timestamp(*ts);
      if (!event.timestamp)
        errors.push_back("'payload.timestamp' is not a valid ISO 8601 time");
    }
    auto details = pl.FindMember("custom_details");
    if (details != pl.MemberEnd() && !details->value.IsNull()) {
      if (details->value.IsObject()) {
        event.details_json = compact_json_without_secrets(details->value);
      } else {
        rapidjson::Document wrapped(rapidjson::kObjectType);
        rapidjson::Value copy(details->value, wrapped.GetAllocator());
        wrapped.AddMember("custom_details", copy, wrapped.GetAllocator());
        event.details_json = compact_json_without_secrets(wrapped);
      }
    }
  }
  read_links(doc, event, p);
  if (!errors.empty())
    return errors;
  return event;
}

std::string render_change_accepted() {
  return R"({"status":"success","message":"Change event processed"})";
}

void write_change(json_writer& w, const change_record& c) {
  w.StartObject();
  w.Key("id");
  w.Int64(c.id);
  w.Key("summary");
  write_string(w, c.summary);
  w.Key("source");
  write_string_or_null(w, c.source);
  w.Key("timestamp");
  write_time(w, c.timestamp);
  w.Key("integration");
  write_string(w, c.integration);
  w.Key("details");
  write_stored_json(w, c.details_json);
  w.Key("links");
  write_stored_json(w, c.links_json);
  w.EndObject();
}

std::string render_change_list(const std::vector<change_record>& changes,
                               const std::optional<std::string>& next) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("changes");
  w.StartArray();
  for (auto& c : changes)
    write_change(w, c);
  w.EndArray();
  w.Key("next");
  if (next)
    write_string(w, *next);
  else
    w.Null();
  w.EndObject();
  return to_string(out);
}

} // namespace belay::protocol
