#include "protocol/text.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;

TEST_CASE("clip keeps whole characters and marks a cut") {
  CHECK(clip("Disk full", 9) == "Disk full");
  CHECK(clip("Disk full", 4) == "Disk...");
  CHECK(clip("Disk full", 4, "…") == "Disk…");
  // Characters, not bytes: "é" is two bytes, "€" three.
  CHECK(clip("\xc3\xa9\xc3\xa9\xc3\xa9", 3) == "\xc3\xa9\xc3\xa9\xc3\xa9");
  CHECK(clip("\xc3\xa9\xe2\x82\xac\xc3\xa9", 2) == "\xc3\xa9\xe2\x82\xac...");
  CHECK(clip("", 0) == "");
  CHECK(clip("x", 0) == "...");
  CHECK(abbreviate(std::string(70, 'a')) == std::string(64, 'a') + "…");
}

TEST_CASE("one_line turns every control character into a space") {
  CHECK(one_line("two\r\nlines\tand\x01"
                 "del\x7f") == "two  lines and del ");
  CHECK(one_line("caf\xc3\xa9 \xc2\x85") == "caf\xc3\xa9 \xc2\x85"); // UTF-8 untouched
}

TEST_CASE("printable shows C0, DEL and C1 controls as '?' for a terminal") {
  CHECK(printable("evil\x1b[2Jtitle\xc2\x85!") == "evil?[2Jtitle?!");
  CHECK(printable("a\x7f"
                  "b\tc") == "a?b?c");
  CHECK(printable("caf\xc3\xa9 \xc2\xa0") == "caf\xc3\xa9 \xc2\xa0"); // U+00A0 is text
  CHECK(printable("\xc2") == "\xc2");
}
