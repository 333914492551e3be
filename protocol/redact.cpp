#include "protocol/redact.hpp"

#include "protocol/json_writer.hpp"

#include <array>
#include <cctype>

namespace belay::protocol {

namespace {

constexpr std::array<std::string_view, 15> secret_words = {
    "authorization", "authentication", "password",   "passwd",     "passphrase",
    "secret",        "token",          "apikey",     "routingkey", "integrationkey",
    "accesskey",     "privatekey",     "credential", "cookie",     "bearer"};

// Forwards a document's events to a writer, dropping each secret-named member's name
// and value (however deeply nested the value).
class without_secrets {
public:
  explicit without_secrets(json_writer& w) : w_(w) {}

  bool Null() {
    return scalar([&] { return w_.Null(); });
  }
  bool Bool(bool b) {
    return scalar([&] { return w_.Bool(b); });
  }
  bool Int(int i) {
    return scalar([&] { return w_.Int(i); });
  }
  bool Uint(unsigned u) {
    return scalar([&] { return w_.Uint(u); });
  }
  bool Int64(int64_t i) {
    return scalar([&] { return w_.Int64(i); });
  }
  bool Uint64(uint64_t u) {
    return scalar([&] { return w_.Uint64(u); });
  }
  bool Double(double d) {
    return scalar([&] { return w_.Double(d); });
  }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return scalar([&] { return w_.RawNumber(s, n, copy); });
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return scalar([&] { return w_.String(s, n, copy); });
  }
  bool StartObject() {
    return open([&] { return w_.StartObject(); });
  }
  bool EndObject(rapidjson::SizeType) {
    return close([&] { return w_.EndObject(); });
  }
  bool StartArray() {
    return open([&] { return w_.StartArray(); });
  }
  bool EndArray(rapidjson::SizeType) {
    return close([&] { return w_.EndArray(); });
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    if (skipping_ > 0)
      return true;
    if (is_secret_field({s, n})) {
      skip_next_ = true;
      return true;
    }
    return w_.Key(s, n, copy);
  }

private:
  template <class F> bool scalar(F write) {
    if (skipping_ > 0)
      return true;
    if (skip_next_) {
      skip_next_ = false;
      return true;
    }
    return write();
  }
  template <class F> bool open(F write) {
    if (skipping_ > 0 || skip_next_) {
      skip_next_ = false;
      ++skipping_;
      return true;
    }
    return write();
  }
  template <class F> bool close(F write) {
    if (skipping_ > 0) {
      --skipping_;
      return true;
    }
    return write();
  }

  json_writer& w_;
  bool skip_next_ = false;
  int skipping_ = 0; // depth inside a dropped value
};

} // namespace

bool is_secret_field(std::string_view name) {
  // Every member name of every stored payload comes here: folded on the stack and
  // matched only where a word could start, not with a find per word over a heap copy
  // (those were 4,500 instructions of an event's 196,000, callgrind).
  char buffer[64];
  std::string long_name;
  char* folded = buffer;
  if (name.size() > sizeof buffer) {
    long_name.resize(name.size());
    folded = long_name.data();
  }
  std::size_t n = 0;
  for (char c : name)
    if (c != '-' && c != '_')
      folded[n++] = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string_view text{folded, n};
  static const auto starts_a_word = [] {
    std::array<bool, 256> starts{};
    for (auto word : secret_words)
      starts[static_cast<unsigned char>(word[0])] = true;
    return starts;
  }();
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (!starts_a_word[static_cast<unsigned char>(text[at])])
      continue;
    auto rest = text.substr(at);
    for (auto word : secret_words)
      if (rest.substr(0, word.size()) == word)
        return true;
  }
  return false;
}

std::string compact_json_without_secrets(const rapidjson::Value& v) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  without_secrets filter(w);
  v.Accept(filter);
  return to_string(out);
}

std::string loggable_path(std::string_view path) {
  for (std::string_view prefix : {"/hb/", "/a/"}) {
    if (path.substr(0, prefix.size()) != prefix)
      continue;
    auto rest = path.substr(prefix.size());
    auto end = rest.find('/');
    auto after = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
    return std::string(prefix) + "…" + std::string(after);
  }
  return std::string(path);
}

} // namespace belay::protocol
