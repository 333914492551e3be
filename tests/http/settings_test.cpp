// Every setting --help lists is one belay understands, as a flag, from the environment
// and in the config file (docs/operations.md#settings): a row of the table that apply()
// does not know would refuse to start with "unknown setting" the moment someone uses it.
#include "config/settings.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

using namespace belay;

namespace {

// A value each setting accepts: its default where --help shows a usable one.
std::string usable_value(const setting_info& row) {
  if (row.flag == "public-url")
    return "https://belay.example";
  if (row.flag == "allowed-target-networks")
    return "127.0.0.0/8";
  if (row.flag == "config")
    return "";
  if (row.fallback.empty() || row.fallback.find('<') != std::string::npos ||
      row.fallback.find(' ') != std::string::npos)
    return "5";
  return row.fallback;
}

std::string failure_of(const std::vector<std::string>& args) {
  try {
    load_settings(args);
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

} // namespace

TEST_CASE("every setting --help lists is understood as a flag and from the environment") {
  for (auto& row : setting_table()) {
    if (row.flag == "config")
      continue;
    auto value = usable_value(row);
    INFO("--" << row.flag << "=" << value);
    CHECK_THAT(failure_of({"--" + row.flag + "=" + value}),
               !Catch::Matchers::Contains("unknown setting"));
    setenv(row.env.c_str(), value.c_str(), 1);
    INFO(row.env << "=" << value);
    CHECK_THAT(failure_of({}), !Catch::Matchers::Contains("unknown setting"));
    unsetenv(row.env.c_str());
  }
}
