// application/x-www-form-urlencoded bodies (Twilio's and Slack's callbacks, the answer
// page's POST): fields that are valid UTF-8 without NUL, or a precise 400.
#include "checks.hpp"
#include "protocol/form.hpp"

using namespace belay;
using namespace belay::fuzz;

namespace {

// Every byte but unreserved ones as %XX: what any client may send.
std::string encode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto input = bytes(data, size);
  auto result = protocol::parse_form(input);
  if (auto* e = std::get_if<protocol::error>(&result)) {
    FUZZ_CHECK(e->status == 400);
    FUZZ_CHECK(e->code == "invalid_form");
    FUZZ_CHECK(!is_blank(e->message) && is_utf8(e->message));
    return 0;
  }
  auto& fields = std::get<protocol::form_fields>(result);
  FUZZ_CHECK(fields.size() <= protocol::max_form_fields);
  std::string again;
  for (auto& [name, value] : fields) {
    FUZZ_CHECK(is_utf8(name) && !has_nul(name));
    FUZZ_CHECK(is_utf8(value) && !has_nul(value));
    if (!again.empty())
      again += '&';
    again += encode(name) + '=' + encode(value);
  }
  // Written back fully encoded, the fields read the same.
  auto round = protocol::parse_form(again);
  FUZZ_CHECK(std::holds_alternative<protocol::form_fields>(round));
  FUZZ_CHECK(std::get<protocol::form_fields>(round) == fields);
  return 0;
}
