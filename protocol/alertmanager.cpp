#include "protocol/alertmanager.hpp"

#include "protocol/field_reader.hpp"
#include "protocol/hash.hpp"
#include "protocol/json_document.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/limits.hpp"
#include "protocol/redact.hpp"
#include "protocol/text.hpp"

#include <algorithm>
#include <cctype>

namespace belay::protocol {

namespace {

using label_list = std::vector<std::pair<std::string, std::string>>;

// Label values are free text; escape them so that two different label sets can never
// render the same key.
std::string escaped_label_value(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string lower_ascii(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string severity_from(const std::string& label) {
  const std::string value = lower_ascii(label);
  for (auto known : severities)
    if (value == known)
      return value;
  // Anything else (including the common "page") pages at full severity: guessing low
  // would quietly demote an alert somebody wanted to wake people up for.
  return std::string{default_severity};
}

std::optional<std::string> label(const label_list& labels, std::string_view name) {
  for (const auto& [key, value] : labels)
    if (key == name)
      return value;
  return std::nullopt;
}

label_list read_labels(const rapidjson::Value& object, const std::string& path,
                       field_reader& r) {
  label_list labels;
  for (const auto& m : object.GetObject()) {
    const std::string name{string_view_of(m.name)};
    std::string value =
        r.string_value(m.value, member_path(path, name), no_length_limit, blank::allowed);
    if (!r.ok())
      return {};
    labels.emplace_back(name, std::move(value));
  }
  return labels;
}

// The alert as kept for evidence, without secret-named members. A label with such a name
// would leave the stored labels naming another alert than the one received, so when
// the key came from the labels the stored copy carries it as its fingerprint: the
// payload sent again (Alertmanager retries) makes the same incident.
std::string stored_payload(const rapidjson::Value& value, const label_list& labels,
                           bool key_from_labels, const std::string& dedup_key) {
  const bool label_dropped = std::any_of(labels.begin(), labels.end(), [](const auto& l) {
    return is_secret_field(l.first);
  });
  if (!key_from_labels || !label_dropped)
    return compact_json_without_secrets(value);
  rapidjson::Document copy;
  copy.CopyFrom(value, copy.GetAllocator());
  rapidjson::Value key(dedup_key.data(),
                       static_cast<rapidjson::SizeType>(dedup_key.size()),
                       copy.GetAllocator());
  if (auto member = copy.FindMember("fingerprint"); member != copy.MemberEnd())
    member->value = key;
  else
    copy.AddMember("fingerprint", key, copy.GetAllocator());
  return compact_json_without_secrets(copy);
}

am_alert read_alert(const rapidjson::Value& value, const std::string& path,
                    std::optional<error>& failure) {
  field_reader r(value, path, failure);
  am_alert alert;
  alert.status = r.required_choice("status", {"firing", "resolved"});
  const rapidjson::Value* labels_object = r.required_object("labels");
  label_list labels =
      labels_object ? read_labels(*labels_object, r.path_of("labels"), r) : label_list{};
  std::optional<std::string> summary;
  if (const rapidjson::Value* annotations = r.optional_object("annotations")) {
    field_reader annotation(*annotations, r.path_of("annotations"), failure);
    summary = annotation.optional_string("summary", no_length_limit, blank::allowed);
    for (const auto& m : annotations->GetObject())
      if (m.value.IsString())
        alert.annotations.emplace_back(string_view_of(m.name), string_view_of(m.value));
  }
  const std::string fingerprint =
      r.optional_string("fingerprint", no_length_limit, blank::allowed).value_or("");
  if (!r.ok())
    return alert;

  const bool key_from_labels = is_blank(fingerprint);
  if (key_from_labels)
    alert.dedup_key = dedup_key_from_labels(labels);
  else if (utf8_length(fingerprint) > max_dedup_key_chars)
    alert.dedup_key = "fingerprint:" + sha256_hex(fingerprint);
  else
    alert.dedup_key = fingerprint;

  std::string title;
  if (summary && !is_blank(*summary))
    title = *summary;
  else if (auto name = label(labels, "alertname"); name && !is_blank(*name))
    title = *name;
  else
    title = "alert";
  // A long summary is cut rather than refused: refusing would drop the page.
  alert.title = utf8_prefix(title, max_title_chars);
  alert.severity = severity_from(label(labels, "severity").value_or(""));
  alert.alertname = label(labels, "alertname").value_or("");
  alert.payload_json = stored_payload(value, labels, key_from_labels, alert.dedup_key);
  alert.labels = std::move(labels);
  return alert;
}

} // namespace

std::string dedup_key_from_labels(const label_list& labels) {
  label_list sorted = labels;
  std::sort(sorted.begin(), sorted.end());
  std::string key = "{";
  for (const auto& [name, value] : sorted) {
    if (key.size() > 1)
      key += ',';
    key += name + "=\"" + escaped_label_value(value) + '"';
  }
  key += '}';
  if (utf8_length(key) > max_dedup_key_chars)
    return "labels:" + sha256_hex(key);
  return key;
}

parsed<am_webhook> parse_alertmanager(std::string_view body) {
  rapidjson::Document doc;
  if (auto bad = parse_json(doc, body, "request body"))
    return *bad;
  std::optional<error> failure;
  field_reader r(doc, "", failure);
  am_webhook webhook;
  webhook.version =
      r.optional_string("version", no_length_limit, blank::allowed).value_or("");
  webhook.status =
      r.optional_string("status", no_length_limit, blank::allowed).value_or("");
  if (const rapidjson::Value* alerts = r.required_array("alerts")) {
    for (rapidjson::SizeType i = 0; i < alerts->Size() && !failure; ++i) {
      am_alert alert = read_alert((*alerts)[i], element_path("alerts", i), failure);
      webhook.alerts.push_back(std::move(alert));
    }
  }
  if (failure)
    return *failure;
  return webhook;
}

std::string render_am_counts(const am_counts& counts) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("created");
  w.Int(counts.created);
  w.Key("deduplicated");
  w.Int(counts.deduplicated);
  w.Key("resolved");
  w.Int(counts.resolved);
  w.Key("ignored");
  w.Int(counts.ignored);
  if (counts.grouping) {
    w.Key("grouped");
    w.Int(counts.grouped);
  }
  w.EndObject();
  return to_string(out);
}

} // namespace belay::protocol
