#include "http/inspect_cli.hpp"

#include "protocol/json_document.hpp"
#include "protocol/text.hpp"
#include "protocol/time.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <httplib.h>
#include <iostream>
#include <optional>
#include <rapidjson/document.h>
#include <stdexcept>

namespace belay {

namespace {

using rapidjson::Value;

const char* const default_url = "http://127.0.0.1:8080";

// A long cell ends in "…": a terminal shows it as one column, where a page keeps "...".
std::string clip(std::string_view s, std::size_t max_chars) {
  return protocol::clip(s, max_chars, "…");
}

const Value* member(const Value& v, const char* name) {
  if (!v.IsObject())
    return nullptr;
  auto it = v.FindMember(name);
  return it == v.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
}

// Any scalar as shown text; "-" when absent or null. Titles and reasons come from
// alerts: printable, so that a terminal obeys no escape sequence in them.
std::string text(const Value& v, const char* name) {
  const Value* m = member(v, name);
  if (!m)
    return "-";
  if (m->IsString())
    return protocol::printable(protocol::string_view_of(*m));
  if (m->IsBool())
    return m->GetBool() ? "true" : "false";
  if (m->IsInt64())
    return std::to_string(m->GetInt64());
  if (m->IsUint64())
    return std::to_string(m->GetUint64());
  if (m->IsNumber())
    return protocol::decimal_text(m->GetDouble());
  return protocol::printable(protocol::compact_json(*m));
}

double number(const Value& v, const char* name) {
  const Value* m = member(v, name);
  return m && m->IsNumber() ? m->GetDouble() : 0;
}

const Value& object(const Value& v, const char* name) {
  static const Value empty{rapidjson::kObjectType};
  const Value* m = member(v, name);
  return m && m->IsObject() ? *m : empty;
}

std::vector<const Value*> elements(const Value& v, const char* name) {
  std::vector<const Value*> out;
  if (const Value* m = member(v, name); m && m->IsArray())
    for (const auto& e : m->GetArray())
      out.push_back(&e);
  return out;
}

// "2026-11-29T18:20:15.123Z" as milliseconds since the epoch (the wire's UTC form).
std::optional<int64_t> millis_of(const Value& v, const char* name) {
  const Value* m = member(v, name);
  if (!m || !m->IsString())
    return std::nullopt;
  const auto at = protocol::parse_rfc3339(protocol::string_view_of(*m));
  if (!at)
    return std::nullopt;
  return *at / 1000;
}

// 42s, 4m 05s, 3h 04m, 2d 3h: the same shapes as the console page.
std::string duration(int64_t ms) {
  const int64_t s = std::llabs(ms) / 1000;
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%lldm %02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  else if (s < 86400)
    std::snprintf(buf, sizeof buf, "%lldh %02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  else
    std::snprintf(buf, sizeof buf, "%lldd %lldh", static_cast<long long>(s / 86400),
                  static_cast<long long>(s / 3600 % 24));
  return buf;
}

std::string until(std::optional<int64_t> due, std::optional<int64_t> now) {
  if (!due || !now)
    return "-";
  return *due >= *now ? "in " + duration(*due - *now)
                      : "overdue " + duration(*now - *due);
}

std::string since(std::optional<int64_t> then, std::optional<int64_t> now) {
  if (!then || !now)
    return "-";
  return duration(*now - *then) + " ago";
}

// Columns padded to their widest cell; numbers right-aligned; the last column unpadded.
class table {
public:
  explicit table(std::vector<std::pair<std::string, bool>> columns)
      : columns_(std::move(columns)) {}

  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  std::string render() const {
    std::vector<std::size_t> width(columns_.size());
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      width[c] = protocol::utf8_length(columns_[c].first);
      for (const auto& row : rows_)
        width[c] = std::max(width[c], protocol::utf8_length(row[c]));
    }
    std::string out;
    auto line = [&](const std::vector<std::string>& cells) {
      std::string l;
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const bool last = c + 1 == cells.size();
        const std::string pad(width[c] - protocol::utf8_length(cells[c]), ' ');
        const bool right = columns_[c].second;
        l += right ? pad + cells[c] : cells[c] + (last ? "" : pad);
        if (!last)
          l += "  ";
      }
      l.erase(l.find_last_not_of(' ') + 1);
      out += l + "\n";
    };
    std::vector<std::string> headers;
    for (const auto& [name, right] : columns_)
      headers.push_back(name);
    line(headers);
    for (const auto& row : rows_)
      line(row);
    return out;
  }

private:
  std::vector<std::pair<std::string, bool>> columns_;
  std::vector<std::vector<std::string>> rows_;
};

constexpr bool left = false;
constexpr bool right = true;

std::string heading(const char* title, std::size_t count, const char* when_empty) {
  return std::string{"\n"} + title + " (" + std::to_string(count) + ")" +
         (count == 0 ? std::string{": "} + when_empty : std::string{}) + "\n";
}

std::string incidents_section(const Value& root, std::optional<int64_t> now) {
  struct row {
    const Value* entry;
    const Value* incident;
    std::optional<int64_t> due;
    std::string due_text;
  };
  // The actor's own timer when it has one, else the persisted next fire time.
  std::vector<row> rows;
  for (const Value* entry : elements(root, "incidents")) {
    const Value& incident = object(*entry, "incident");
    if (auto timer = millis_of(*entry, "nextTimerDue"))
      rows.push_back({entry, &incident, timer, text(*entry, "nextTimerDue")});
    else
      rows.push_back({entry, &incident, millis_of(incident, "nextFireAt"),
                      text(incident, "nextFireAt")});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const row& a, const row& b) {
    if (a.due.has_value() != b.due.has_value())
      return a.due.has_value();
    if (a.due != b.due)
      return *a.due < *b.due;
    return number(*a.incident, "id") < number(*b.incident, "id");
  });

  std::string out =
      heading("INCIDENTS", rows.size(), "no incident actor, nothing is paging");
  if (rows.empty())
    return out;
  table t{{{"ID", right},
           {"STATUS", left},
           {"STEP", right},
           {"LOOP", right},
           {"NEXT TIMER", left},
           {"DUE AT", left},
           {"VERSION", right},
           {"MAILBOX", right},
           {"EVENTS", right},
           {"ACTOR", right},
           {"TITLE", left}}};
  for (const auto& r : rows) {
    const Value& inc = *r.incident;
    std::string status = text(inc, "status");
    if (auto by = text(inc, "ackedBy"); status == "ACKNOWLEDGED" && by != "-")
      status += " by " + clip(by, 24);
    t.add({text(inc, "id"), status, text(inc, "currentStep"), text(inc, "loop"),
           until(r.due, now), r.due_text, text(inc, "version"), text(*r.entry, "mailbox"),
           text(inc, "eventCount"), text(*r.entry, "actorId"),
           clip(text(inc, "title"), 72)});
  }
  return out + t.render();
}

std::string channels_section(const Value& root, std::optional<int64_t> now) {
  auto channels = elements(root, "channels");
  std::string out = heading("CHANNELS", channels.size(), "no channel actor on this node");
  if (channels.empty())
    return out;
  table t{{{"NAME", left},
           {"TYPE", left},
           {"HEALTH", left},
           {"QUEUED", right},
           {"IN FLIGHT", right},
           {"RETRIES", right},
           {"SENT", right},
           {"FAILED", right},
           {"DEAD", right}}};
  struct retry {
    std::string channel;
    const Value* r;
    std::optional<int64_t> due;
  };
  std::vector<retry> retries;
  for (const Value* ch : channels) {
    auto scheduled = elements(*ch, "retriesScheduled");
    for (const Value* r : scheduled)
      retries.push_back({text(*ch, "name"), r, millis_of(*r, "dueAt")});
    const char* health = number(*ch, "deadLetters") > 0 || !scheduled.empty() ? "FAILING"
                         : number(*ch, "failed") > 0                          ? "degraded"
                                                                              : "ok";
    t.add({text(*ch, "name"), text(*ch, "type"), health, text(*ch, "queued"),
           text(*ch, "inFlight"), std::to_string(scheduled.size()), text(*ch, "sent"),
           text(*ch, "failed"), text(*ch, "deadLetters")});
  }
  out += t.render();
  if (retries.empty())
    return out;

  std::stable_sort(retries.begin(), retries.end(),
                   [](const retry& a, const retry& b) { return a.due < b.due; });
  table rt{{{"CHANNEL", left},
            {"DELIVERY", right},
            {"INCIDENT", right},
            {"TARGET", left},
            {"ATTEMPT", right},
            {"DUE", left},
            {"DUE AT", left}}};
  for (const auto& r : retries)
    rt.add({r.channel, text(*r.r, "deliveryId"), text(*r.r, "incidentId"),
            clip(text(*r.r, "target"), 40), text(*r.r, "attempt"), until(r.due, now),
            text(*r.r, "dueAt")});
  return out + heading("RETRIES SCHEDULED", retries.size(), "") + rt.render();
}

std::string dead_letters_section(const Value& root, std::optional<int64_t> now) {
  auto letters = elements(root, "deadLetters");
  std::string out = heading("DEAD LETTERS", letters.size(), "none");
  if (letters.empty())
    return out;
  table t{{{"ID", right},
           {"DELIVERY", right},
           {"INCIDENT", right},
           {"CHANNEL", left},
           {"TARGET", left},
           {"FAILED", left},
           {"FAILED AT", left},
           {"REASON", left}}};
  for (const Value* d : letters)
    t.add({text(*d, "id"), text(*d, "deliveryId"), text(*d, "incidentId"),
           text(*d, "channel"), clip(text(*d, "target"), 40),
           since(millis_of(*d, "failedAt"), now), text(*d, "failedAt"),
           clip(text(*d, "reason"), 80)});
  return out + t.render();
}

std::optional<std::string> error_message(const std::string& body) {
  rapidjson::Document doc;
  if (protocol::parse_json(doc, body, "answer"))
    return std::nullopt;
  const Value& error = object(doc, "error");
  if (const Value* m = member(error, "message"); m && m->IsString())
    return protocol::printable(protocol::string_view_of(*m));
  return std::nullopt;
}

std::string describe(httplib::Error e) {
  switch (e) {
  case httplib::Error::Connection:
    return "connection refused or host unreachable (is belay running there?)";
  case httplib::Error::ConnectionTimeout:
    return "connecting timed out";
  case httplib::Error::Read:
    return "no complete answer (the read failed or timed out)";
  case httplib::Error::Write:
    return "the request could not be sent";
  case httplib::Error::SSLConnection:
  case httplib::Error::SSLServerVerification:
    return "the TLS handshake failed";
  default:
    return httplib::to_string(e);
  }
}

const char* const inspect_usage =
    "usage: belay inspect [--url URL] [--key KEY]\n"
    "  --url URL   the node to ask (default http://127.0.0.1:8080)\n"
    "  --key KEY   an org API key (default: $BELAY_API_KEY, which keeps it out of "
    "`ps`)\n";

} // namespace

std::string render_inspector_table(std::string_view json) {
  rapidjson::Document doc;
  if (auto err = protocol::parse_json(doc, json, "inspector snapshot"))
    throw std::invalid_argument(err->message);
  if (!doc.IsObject())
    throw std::invalid_argument("the inspector snapshot must be a JSON object, not " +
                                std::string{protocol::json_type_name(doc)});
  const Value& node = object(doc, "node");
  const Value& registry = object(doc, "registry");
  const Value& storage = object(doc, "storage");
  const auto now = millis_of(node, "now");

  std::string out =
      "node " + text(node, "id") + " · belay " + text(node, "version") + " · up " +
      duration(static_cast<int64_t>(number(node, "uptimeSeconds") * 1000)) +
      " · started " + text(node, "startedAt") + " · now " + text(node, "now") + "\n";
  out += "registry: " + text(registry, "held") + " held · " + text(registry, "created") +
         " created · " + text(registry, "deduplicated") + " deduplicated · " +
         text(registry, "respawned") + " respawned\n";
  out += "storage: " + text(storage, "workers") + " workers · pool " +
         text(storage, "poolBusy") + "/" + text(storage, "poolSize") + " busy\n";
  out += incidents_section(doc, now);
  out += channels_section(doc, now);
  out += dead_letters_section(doc, now);
  return out;
}

int run_inspect(const std::vector<std::string>& args) {
  std::string url = default_url;
  std::string key;
  if (const char* env = std::getenv("BELAY_API_KEY"))
    key = env;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << inspect_usage;
      return 0;
    }
    std::string* target = nullptr;
    std::string value;
    for (auto [flag, into] : {std::pair{"--url", &url}, std::pair{"--key", &key}}) {
      const std::string f = flag;
      if (a == f && i + 1 < args.size()) {
        target = into;
        value = args[++i];
      } else if (a.rfind(f + "=", 0) == 0) {
        target = into;
        value = a.substr(f.size() + 1);
      }
    }
    if (!target) {
      std::cerr << "belay inspect: unknown or incomplete argument '"
                << protocol::printable(a) << "'\n"
                << inspect_usage;
      return 2;
    }
    *target = value;
  }
  while (!url.empty() && url.back() == '/')
    url.pop_back();
  if (key.empty()) {
    std::cerr << "belay inspect: no API key: set BELAY_API_KEY or pass --key\n";
    return 2;
  }
  // Scheme, host and port only: every path is the API's own.
  const auto scheme_end = url.find("://");
  const bool base_url = (url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0) &&
                        url.size() > scheme_end + 3 &&
                        url.find('/', scheme_end + 3) == std::string::npos;
  httplib::Client client{url};
  if (!base_url || !client.is_valid()) {
    std::cerr << "belay inspect: '" << protocol::printable(url)
              << "' is not a base URL such as http://127.0.0.1:8080\n";
    return 2;
  }
  client.set_connection_timeout(5);
  client.set_read_timeout(15);
  auto res = client.Get("/api/v1/inspector", {{"Authorization", "Bearer " + key},
                                              {"Accept", "application/json"}});
  if (!res) {
    std::cerr << "belay inspect: cannot reach " << url << ": " << describe(res.error())
              << "\n";
    return 1;
  }
  if (res->status == 401) {
    std::cerr << "belay inspect: " << url
              << " refused the API key (401): check --key or BELAY_API_KEY\n";
    return 1;
  }
  if (res->status != 200) {
    std::cerr << "belay inspect: GET " << url << "/api/v1/inspector answered "
              << res->status;
    if (auto message = error_message(res->body))
      std::cerr << ": " << *message;
    std::cerr << "\n";
    return 1;
  }
  try {
    std::cout << render_inspector_table(res->body);
  } catch (const std::invalid_argument& e) {
    std::cerr << "belay inspect: " << url
              << "/api/v1/inspector did not answer an inspector snapshot: " << e.what()
              << "\n";
    return 1;
  }
  return 0;
}

} // namespace belay
