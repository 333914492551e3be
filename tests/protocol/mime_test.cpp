#include "protocol/mime.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;

TEST_CASE("a header value is encoded only where it is not ASCII") {
  CHECK(header_text("[belay] CRITICAL Disk full") == "[belay] CRITICAL Disk full");
  CHECK(header_text("[belay] CRITICAL D\xc3\xa9"
                    "bit satur\xc3\xa9") ==
        "[belay] CRITICAL =?UTF-8?B?RMOpYml0IHNhdHVyw6k=?=");
  CHECK(header_text("B\xc3\xa9lay <belay@example.com>") ==
        "=?UTF-8?B?QsOpbGF5?= <belay@example.com>");
}

TEST_CASE("a long header value folds into encoded words without splitting a character") {
  std::string title;
  for (int i = 0; i < 40; ++i)
    title += "\xc3\xa9"; // 80 bytes
  // 45 bytes would cut the 23rd "é" in two: the first word takes 44.
  CHECK(header_text(title) ==
        "=?UTF-8?B?w6nDqcOpw6nDqcOpw6nDqcOpw6nDqcOpw6nDqcOpw6nDqcOpw6nDqcOpw6k=?=\r\n"
        " =?UTF-8?B?w6nDqcOpw6nDqcOpw6nDqcOpw6nDqcOpw6nDqcOpw6nDqcOp?=");
}

TEST_CASE("a text body is 8bit unless a line is longer than SMTP allows") {
  const std::string short_lines = "one\r\ntwo\r\n";
  CHECK(text_body(short_lines).transfer_encoding == "8bit");
  CHECK(text_body(short_lines).text == short_lines);
  CHECK(text_body(std::string(998, 'x') + "\r\n").transfer_encoding == "8bit");
  const auto long_line = text_body(std::string(999, 'x') + "\r\n");
  CHECK(long_line.transfer_encoding == "base64");
  CHECK(long_line.text.rfind(
            "eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4"
            "eHh4eHh4\r\neHh4",
            0) == 0);
}

TEST_CASE("base64 bodies come in lines of 76 characters") {
  const auto body = base64_body(std::string(60, 'a'));
  CHECK(body.transfer_encoding == "base64");
  CHECK(body.text ==
        "YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFh\r\n"
        "YWFh\r\n");
}

TEST_CASE("the date is RFC 5322's, in UTC") {
  CHECK(rfc5322_date(1767225600) == "Thu, 01 Jan 2026 00:00:00 +0000");
  CHECK(rfc5322_date(951782400 + 86399) == "Tue, 29 Feb 2000 23:59:59 +0000");
}
