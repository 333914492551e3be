#include "protocol/grouping.hpp"

#include "protocol/hash.hpp"
#include "protocol/json_document.hpp"
#include "protocol/limits.hpp"
#include "protocol/text.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace belay::protocol {

namespace {

constexpr std::string_view labels_root = "labels.";
constexpr std::string_view annotations_root = "annotations.";
constexpr std::string_view custom_details_root = "payload.custom_details.";
const std::vector<std::string_view> payload_fields = {
    "payload.source", "payload.component", "payload.group", "payload.class",
    "payload.severity"};

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// A root followed by a name.
bool named(std::string_view path, std::string_view root) {
  return starts_with(path, root) && path.size() > root.size();
}

std::string value_of(const std::vector<std::pair<std::string, std::string>>& fields,
                     std::string_view name) {
  for (auto& [key, value] : fields)
    if (key == name)
      return value;
  return {};
}

// A custom detail as text: a string as it is, anything else as compact JSON.
std::string custom_detail(const std::string& details_json, std::string_view name) {
  rapidjson::Document doc;
  doc.Parse(details_json.data(), details_json.size());
  if (doc.HasParseError() || !doc.IsObject())
    return {};
  auto it = doc.FindMember(rapidjson::Value(
      rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
  if (it == doc.MemberEnd() || it->value.IsNull())
    return {};
  if (it->value.IsString())
    return std::string{string_view_of(it->value)};
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  it->value.Accept(w);
  return {out.GetString(), out.GetSize()};
}

template <class Lookup>
std::string make_key(std::string_view integration, const std::vector<std::string>& by,
                     Lookup value_at) {
  std::string key{integration};
  key += ':';
  for (size_t i = 0; i < by.size(); ++i) {
    if (i > 0)
      key += '|';
    for (char c : value_at(by[i])) {
      if (c == '|' || c == '\\')
        key += '\\';
      key += c;
    }
  }
  if (utf8_length(key) > max_dedup_key_chars)
    return std::string{integration} + ":sha256:" + sha256_hex(key);
  return key;
}

} // namespace

std::optional<std::string> grouping_path_problem(std::string_view type,
                                                 std::string_view path) {
  if (type == "alertmanager") {
    if (named(path, labels_root) || named(path, annotations_root))
      return std::nullopt;
    return "an alertmanager integration groups by labels.<name> or annotations.<name>";
  }
  for (auto field : payload_fields)
    if (path == field)
      return std::nullopt;
  if (named(path, custom_details_root))
    return std::nullopt;
  return "an events integration groups by payload.source, payload.component, "
         "payload.group, payload.class, payload.severity or "
         "payload.custom_details.<name>";
}

std::string group_key(std::string_view integration, const std::vector<std::string>& by,
                      const am_alert& alert) {
  return make_key(integration, by, [&](std::string_view path) {
    if (starts_with(path, labels_root))
      return value_of(alert.labels, path.substr(labels_root.size()));
    return value_of(alert.annotations, path.substr(annotations_root.size()));
  });
}

std::string group_key(std::string_view integration, const std::vector<std::string>& by,
                      const pd_event& event) {
  return make_key(integration, by, [&](std::string_view path) -> std::string {
    if (path == "payload.source")
      return event.source;
    if (path == "payload.component")
      return event.component;
    if (path == "payload.group")
      return event.group;
    if (path == "payload.class")
      return event.event_class;
    if (path == "payload.severity")
      return event.severity;
    return custom_detail(event.details_json, path.substr(custom_details_root.size()));
  });
}

} // namespace belay::protocol
