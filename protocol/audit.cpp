#include "protocol/audit.hpp"

#include "protocol/hash.hpp"
#include "protocol/json_writer.hpp"

#include <algorithm>

namespace belay::protocol {

const std::string genesis_hash(64, '0');

namespace {

void field(std::string& out, std::string_view value) {
  out += std::to_string(value.size());
  out += ':';
  out += value;
}

} // namespace

std::string audit_hash(const audit_entry& e) {
  std::string text = e.prev_hash;
  for (auto v : {std::to_string(e.id), std::to_string(e.at), std::to_string(e.org_id)})
    field(text, v);
  for (auto* v : {&e.actor, &e.via, &e.source_ip, &e.action, &e.object_kind,
                  &e.object_name, &e.changes_json})
    field(text, *v);
  return sha256_hex(text);
}

std::string render_audit_changes(const std::vector<audit_change>& changes) {
  // Verbs in the order they first appear, each a list of {kind, name}.
  std::vector<std::string> verbs;
  for (auto& c : changes)
    if (std::find(verbs.begin(), verbs.end(), c.verb) == verbs.end())
      verbs.push_back(c.verb);
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  for (auto& verb : verbs) {
    w.Key(verb.c_str(), static_cast<rapidjson::SizeType>(verb.size()));
    w.StartArray();
    for (auto& c : changes) {
      if (c.verb != verb)
        continue;
      w.StartObject();
      w.Key("kind");
      write_string(w, c.kind);
      w.Key("name");
      write_string(w, c.name);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  return to_string(out);
}

std::string render_audit_page(const std::vector<audit_entry>& entries,
                              const std::optional<std::string>& next) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("audit");
  w.StartArray();
  for (auto& e : entries) {
    w.StartObject();
    w.Key("id");
    w.Int64(e.id);
    w.Key("at");
    write_time(w, e.at);
    w.Key("actor");
    write_string(w, e.actor);
    w.Key("via");
    write_string(w, e.via);
    w.Key("sourceIp");
    write_string_or_null(w, e.source_ip);
    w.Key("action");
    write_string(w, e.action);
    w.Key("object");
    w.StartObject();
    w.Key("kind");
    write_string_or_null(w, e.object_kind);
    w.Key("name");
    write_string_or_null(w, e.object_name);
    w.EndObject();
    w.Key("changes");
    write_stored_json(w, e.changes_json);
    w.Key("hash");
    write_string(w, e.hash);
    w.EndObject();
  }
  w.EndArray();
  w.Key("next");
  if (next)
    write_string(w, *next);
  else
    w.Null();
  w.EndObject();
  return to_string(out);
}

std::optional<chain_break> check_chain(const std::vector<audit_entry>& rows,
                                       int64_t& expected_id, std::string& prev) {
  for (auto& row : rows) {
    if (row.id != expected_id)
      return chain_break{expected_id, "audit row " + std::to_string(expected_id) +
                                          " is missing (row " + std::to_string(row.id) +
                                          " follows row " +
                                          std::to_string(expected_id - 1) + ")"};
    if (row.prev_hash != prev)
      return chain_break{row.id, "audit row " + std::to_string(row.id) +
                                     " does not follow the row before it (its previous "
                                     "hash differs)"};
    if (audit_hash(row) != row.hash)
      return chain_break{row.id, "audit row " + std::to_string(row.id) +
                                     " was altered (its hash does not match its fields)"};
    prev = row.hash;
    ++expected_id;
  }
  return std::nullopt;
}

std::optional<chain_break> check_chain_end(int64_t next_id, const std::string& prev,
                                           const chain_anchor& anchor) {
  if (next_id - 1 < anchor.last_id)
    return chain_break{next_id, "audit row " + std::to_string(next_id) +
                                    " is missing (the log's head names row " +
                                    std::to_string(anchor.last_id) + " as the newest)"};
  if (next_id - 1 > anchor.last_id || prev != anchor.last_hash)
    return chain_break{next_id - 1, "audit row " + std::to_string(next_id - 1) +
                                        " does not match the log's head"};
  return std::nullopt;
}

} // namespace belay::protocol
