#include "actors/transport/transport.hpp"
#include "tests/actors/transport/fixtures.hpp"
#include "tests/support/smtp_sink.hpp"

#include <catch2/catch.hpp>
#include <regex>

using namespace std::chrono_literals;
using namespace belay;
using namespace belay::transport;
using namespace belay::transport::testing;

namespace {

channel_config email(const std::string& url) {
  auto c = make_channel("oncall-mail", "email", url);
  c.from = "Belay <belay@example.com>";
  return c;
}

page mail_page() {
  return sample_page("oncall-mail", "alice@example.com");
}

} // namespace

TEST_CASE("email: the message arrives with subject, Message-ID and envelope") {
  test::smtp_sink sink;

  auto r = send(email(sink.url()), mail_page());

  CHECK(r.result == outcome::sent);
  CHECK(r.http_status == 250);
  CHECK(r.error.empty());
  REQUIRE(sink.wait_for(1, 5s));
  auto mail = sink.messages().at(0);
  CHECK(mail.mail_from == "belay@example.com");
  CHECK(mail.rcpt_to == std::vector<std::string>{"alice@example.com"});
  CHECK(mail.header("Subject") == "[belay] CRITICAL Disk full on db-1");
  CHECK(mail.header("Message-ID") == "<42.0.1.oncall-mail.alice=40example.com@belay>");
  CHECK(mail.header("From") == "Belay <belay@example.com>");
  CHECK(mail.header("To") == "alice@example.com");
  CHECK(std::regex_match(mail.header("Date"),
                         std::regex(R"([A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} )"
                                    R"(\d{2}:\d{2}:\d{2} \+0000)")));
  CHECK(mail.body().find("Incident 42: Disk full on db-1") != std::string::npos);
  CHECK(mail.body().find("step 2") != std::string::npos);
}

TEST_CASE("email: a non-ASCII title is sent as an RFC 2047 encoded subject") {
  test::smtp_sink sink;
  auto p = mail_page();
  p.incident.title = "D\xc3\xa9"
                     "bit satur\xc3\xa9";

  REQUIRE(send(email(sink.url()), p).result == outcome::sent);

  REQUIRE(sink.wait_for(1, 5s));
  CHECK(sink.messages()[0].header("Subject") ==
        "[belay] CRITICAL =?UTF-8?B?RMOpYml0IHNhdHVyw6k=?=");
}

TEST_CASE("email: a newline in the title cannot inject a header") {
  test::smtp_sink sink;
  auto p = mail_page();
  p.incident.title = "disk full\r\nBcc: mallory@example.com";

  REQUIRE(send(email(sink.url()), p).result == outcome::sent);

  REQUIRE(sink.wait_for(1, 5s));
  auto mail = sink.messages()[0];
  CHECK(mail.header("Bcc").empty());
  CHECK(mail.header("Subject") == "[belay] CRITICAL disk full  Bcc: mallory@example.com");
}

TEST_CASE("email: an SMTP 5xx answer is permanent") {
  test::smtp_options options;
  options.rcpt_reply = "550 5.1.1 no such user";
  test::smtp_sink sink(options);

  auto r = send(email(sink.url()), mail_page());

  CHECK(r.result == outcome::permanent);
  CHECK(r.http_status == 550);
  CHECK(r.error == "SMTP 550 from mail server: 550 5.1.1 no such user");
  CHECK(sink.messages().empty());
}

TEST_CASE("email: an SMTP 4xx answer is retried") {
  test::smtp_options options;
  options.data_reply = "451 4.3.0 try again later";
  test::smtp_sink sink(options);

  auto r = send(email(sink.url()), mail_page());

  CHECK(r.result == outcome::retry);
  CHECK(r.http_status == 451);
  CHECK_FALSE(r.ambiguous);
}

TEST_CASE("email: a timeout before DATA is retried and not ambiguous") {
  test::smtp_options options;
  options.rcpt_delay = 3s;
  test::smtp_sink sink(options);
  auto c = email(sink.url());
  c.timeout_seconds = 0.5;

  auto r = send(c, mail_page());

  CHECK(r.result == outcome::retry);
  CHECK_FALSE(r.ambiguous);
  CHECK(sink.messages().empty());
}

TEST_CASE("email: a timeout after the message was sent is retried and ambiguous") {
  test::smtp_options options;
  options.data_delay = 3s;
  test::smtp_sink sink(options);
  auto c = email(sink.url());
  c.timeout_seconds = 0.5;

  auto r = send(c, mail_page());

  CHECK(r.result == outcome::retry);
  CHECK(r.ambiguous);
  // The server holds the message although the client never heard "250".
  CHECK(sink.messages().size() == 1);
}

TEST_CASE("email: connection refused is retried and not ambiguous") {
  auto r = send(email("smtp://127.0.0.1:" + std::to_string(closed_port())), mail_page());

  CHECK(r.result == outcome::retry);
  CHECK_FALSE(r.ambiguous);
}

TEST_CASE("email: only smtp and smtps URLs are accepted") {
  auto r = send(email("http://127.0.0.1:25"), mail_page());

  CHECK(r.result == outcome::permanent);
  CHECK(r.error == "mail server: refusing 'http' URL, only smtp or smtps allowed");
}

TEST_CASE("email: a malformed recipient or sender is permanent") {
  auto p = mail_page();
  p.target = "alice@example.com\r\nRCPT TO:<mallory@example.com>";
  CHECK(send(email("smtp://127.0.0.1:1"), p).result == outcome::permanent);
  auto no_sender = email("smtp://127.0.0.1:1");
  no_sender.from.clear();
  CHECK(send(no_sender, mail_page()).result == outcome::permanent);
}

TEST_CASE("email: credentials are never sent over a connection without TLS") {
  test::smtp_sink sink; // offers neither STARTTLS nor AUTH
  auto c = email(sink.url());
  c.account = "belay";
  c.secret = "smtp-password-1234";

  auto r = send(c, mail_page());

  CHECK(r.result == outcome::permanent);
  CHECK(r.error.find("STARTTLS") != std::string::npos);
  CHECK(r.error.find(c.secret) == std::string::npos);
  CHECK(sink.messages().empty());
}
