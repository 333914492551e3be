// Escalation policies as JSON (the provisioning file's shape, and how storage keeps a
// policy and each incident's ladder): a parsed policy pages somebody and survives
// storage's render and parse unchanged.
#include "checks.hpp"
#include "protocol/policy_json.hpp"

using namespace belay;
using namespace belay::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json = bytes(data, size);
  auto result = protocol::parse_policy(json);
  if (auto* e = std::get_if<protocol::error>(&result)) {
    check_error(*e, json,
                {"invalid_json", "missing_field", "wrong_type", "invalid_value",
                 "too_long", "unknown_field"});
    return 0;
  }
  const auto& p = std::get<belay::policy>(result);
  check_policy(p);
  check_policy_round_trip(p);
  return 0;
}
