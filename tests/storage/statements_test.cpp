// The statements storage/ assembles from fragments, each checked into
// tests/storage/golden/<name>.sql: there a reader sees each whole, and a change to one
// shows in review as a change to its file. After changing a statement on purpose,
// write the files again and review their diff:
//   BELAY_UPDATE_GOLDEN=1 build/debug/tests/belay_tests '[golden]'
#include "storage/statements.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace belay;

namespace {

const std::filesystem::path golden_dir =
    std::filesystem::path{BELAY_SOURCE_DIR} / "tests" / "storage" / "golden";

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in{p, std::ios::binary};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first line where `a` and `b` differ, numbered from 1.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream as{a}, bs{b};
  std::string al, bl;
  for (int n = 1;; ++n) {
    bool more_a = static_cast<bool>(std::getline(as, al));
    bool more_b = static_cast<bool>(std::getline(bs, bl));
    if (!more_a && !more_b)
      return "none";
    if (al != bl || more_a != more_b)
      return "line " + std::to_string(n) + ":\n  golden:    " + (more_b ? bl : "(end)") +
             "\n  assembled: " + (more_a ? al : "(end)");
  }
}

} // namespace

TEST_CASE("each statement storage assembles is as its golden file shows it", "[golden]") {
  bool update = std::getenv("BELAY_UPDATE_GOLDEN") != nullptr;
  std::set<std::string> expected;
  for (auto& s : storage::assembled_statements()) {
    auto file = golden_dir / (s.name + ".sql");
    REQUIRE(expected.insert(file.filename().string()).second); // one name, one statement
    // A statement ends without a newline; its file ends with one.
    auto text = s.sql + "\n";
    if (update) {
      std::filesystem::create_directories(golden_dir);
      std::ofstream{file, std::ios::binary} << text;
      continue;
    }
    INFO(file.string() << " differs from the statement assembled at "
                       << first_difference(text, read_file(file))
                       << "\n(BELAY_UPDATE_GOLDEN=1 writes it anew: see this test)");
    CHECK(std::filesystem::exists(file));
    CHECK(read_file(file) == text);
  }
  for (auto& entry : std::filesystem::directory_iterator{golden_dir}) {
    auto name = entry.path().filename().string();
    if (entry.path().extension() != ".sql" || expected.count(name))
      continue;
    if (update) {
      std::filesystem::remove(entry.path());
      continue;
    }
    INFO(entry.path().string() << " is the golden file of no statement");
    CHECK(false);
  }
}
