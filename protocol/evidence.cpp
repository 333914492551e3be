#include "protocol/evidence.hpp"

namespace belay::protocol {

namespace {

// Escaping at most doubles the head (every byte a quote or a backslash), and the
// object around it takes less than the margin.
constexpr std::size_t head_bytes = max_evidence_bytes / 2 - 128;

// The longest prefix of at most `n` bytes that does not split a UTF-8 character.
std::string_view utf8_head(std::string_view s, std::size_t n) {
  if (s.size() <= n)
    return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
    --n;
  return s.substr(0, n);
}

} // namespace

void write_evidence(json_writer& w, std::string_view payload_json) {
  if (payload_json.size() <= max_evidence_bytes) {
    w.RawValue(payload_json.data(), payload_json.size(), rapidjson::kObjectType);
    return;
  }
  w.StartObject();
  w.Key("truncated");
  w.Bool(true);
  w.Key("bytes");
  w.Uint64(payload_json.size());
  w.Key("head");
  write_string(w, utf8_head(payload_json, head_bytes));
  w.EndObject();
}

} // namespace belay::protocol
