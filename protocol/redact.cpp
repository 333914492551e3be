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
  std::string folded;
  folded.reserve(name.size());
  for (char c : name)
    if (c != '-' && c != '_')
      folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (auto word : secret_words)
    if (folded.find(word) != std::string::npos)
      return true;
  return false;
}

std::string compact_json_without_secrets(const rapidjson::Value& v) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  without_secrets filter(w);
  v.Accept(filter);
  return to_string(out);
}

} // namespace belay::protocol
