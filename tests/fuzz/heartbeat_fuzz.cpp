// The suffix of a heartbeat ping, /hb/<key>[/<suffix>] (docs/guarantees.md#heartbeats),
// read before the key is looked up: exactly nothing, "start", "fail" or an exit code from
// 0 to 255 is a ping (0 success, any other code a failure), and everything else is the
// one documented 400, invalid_exit_code naming exitCode.
#include "checks.hpp"
#include "protocol/heartbeat.hpp"

#include <string>
#include <utility>

using namespace belay;
using namespace belay::fuzz;

namespace {

// An exit code as a shell prints one: one to three decimal digits, at most 255.
std::optional<int> exit_code(std::string_view text) {
  if (text.empty() || text.size() > 3 ||
      text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  const int code = std::stoi(std::string{text});
  if (code > 255)
    return std::nullopt;
  return code;
}

std::optional<ping_kind> expected_kind(std::string_view suffix) {
  const std::pair<std::string_view, ping_kind> words[] = {
      {"", ping_kind::success}, {"start", ping_kind::start}, {"fail", ping_kind::fail}};
  for (const auto& [word, kind] : words)
    if (suffix == word)
      return kind;
  if (auto code = exit_code(suffix))
    return *code == 0 ? ping_kind::success : ping_kind::fail;
  return std::nullopt;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view suffix = bytes(data, size);
  const auto parsed = protocol::parse_ping_suffix(suffix);
  const auto expected = expected_kind(suffix);
  if (auto* e = std::get_if<protocol::error>(&parsed)) {
    FUZZ_CHECK(!expected);
    FUZZ_CHECK(e->code == "invalid_exit_code" && e->field == "exitCode");
    check_error(*e, suffix, {"invalid_exit_code"});
    return 0;
  }
  FUZZ_CHECK(expected && std::get<ping_kind>(parsed) == *expected);
  return 0;
}
