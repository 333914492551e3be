#include "pages.hpp"
#include "protocol/email.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

const std::string url = "https://belay.example.com/a/TOKEN-_42";

page mail_page() {
  page p;
  p.idempotency_key = "42:0:1:oncall-mail:alice@example.com";
  p.target = "alice@example.com";
  return p;
}

} // namespace

TEST_CASE("an email page carries the link in its text and HTML parts", "[signing]") {
  const email_parts email =
      email_content(answerable(incident_in("OPEN"), "TOKEN-_42", url));
  CHECK(email.subject == "[belay] CRITICAL Disk full on db-1 (incident #42)");
  CHECK(contains(email.text, "Incident #42: Disk full on db-1\r\n"));
  CHECK(contains(email.text, "\r\n" + url + "\r\n"));
  CHECK_FALSE(contains(email.text, "\n\n")); // every line break is CRLF
  CHECK(email.html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(email.html, "<a href=\"" + url + "\""));
}

TEST_CASE("an email page escapes the title in HTML and keeps the subject on one line",
          "[signing]") {
  belay::incident_record incident = incident_in("OPEN");
  incident.title = "<b>\"x\"</b>\r\nBcc: evil@example.com";
  const email_parts email = email_content(answerable(incident, "TOKEN-_42", url));
  CHECK(email.subject.find_first_of("\r\n") == std::string::npos);
  CHECK_FALSE(contains(email.html, "<b>\"x\"</b>"));
  CHECK(contains(email.html, "&lt;b&gt;&quot;x&quot;&lt;/b&gt;"));
  CHECK_FALSE(contains(email.text, "\r\nBcc:"));
}

TEST_CASE("email: the Message-ID is the idempotency key, the same on every attempt") {
  auto p = mail_page();
  auto first = email_message_id(p);
  p.attempt = 4;

  CHECK(email_message_id(p) == first);
  p.idempotency_key = "7:1:0:mail:ops";
  CHECK(email_message_id(p) == "7.1.0.mail.ops@belay");
  // '@', spaces and '=' would break or blur the id: they are written =XX.
  p.idempotency_key = "7:1:0:mail:a b=c@d";
  CHECK(email_message_id(p) == "7.1.0.mail.a=20b=3Dc=40d@belay");
  p.idempotency_key = "7:1:0:mail:";
  CHECK(email_message_id(p) == "7.1.0.mail=2E@belay");
}

TEST_CASE("an email without the way back is one text part with the ladder's place") {
  auto p = mail_page();
  p.incident = incident_in("OPEN");
  p.incident.dedup_key = "disk-full/db-1";
  p.incident.policy = "default";
  p.step = 1;
  p.attempt = 2;
  const auto message = email_message(p, "Belay <belay@example.com>", 1767225600);
  CHECK(message == "Date: Thu, 01 Jan 2026 00:00:00 +0000\r\n"
                   "From: Belay <belay@example.com>\r\n"
                   "To: alice@example.com\r\n"
                   "Subject: [belay] CRITICAL Disk full on db-1\r\n"
                   "Message-ID: <42.0.1.oncall-mail.alice=40example.com@belay>\r\n"
                   "MIME-Version: 1.0\r\n"
                   "Content-Type: text/plain; charset=utf-8\r\n"
                   "Content-Transfer-Encoding: 8bit\r\n"
                   "Auto-Submitted: auto-generated\r\n"
                   "X-Belay-Incident: 42\r\n"
                   "\r\n"
                   "Incident 42: Disk full on db-1\r\n"
                   "\r\n"
                   "Severity:  CRITICAL\r\n"
                   "Status:    OPEN\r\n"
                   "Dedup key: disk-full/db-1\r\n"
                   "Ladder:    step 2 of policy 'default'\r\n"
                   "Attempt:   2\r\n"
                   "\r\n"
                   "Acknowledge the incident in belay to stop the escalation.\r\n");
}

TEST_CASE("an email status update leads its subject and text with what happened") {
  auto incident = incident_in("RESOLVED");
  incident.resolved_by = "dave";
  incident.resolved_via = "api";
  const auto email = email_content(update_of(incident, "resolved"));
  CHECK(email.subject == "[belay] Resolved by dave via api: #42 Disk full on db-1");
  CHECK(email.text.rfind(email.subject + "\r\n\r\nIncident 42: Disk full on db-1\r\n",
                         0) == 0);
  CHECK_FALSE(contains(email.text, "Acknowledge"));
  CHECK(email.html.empty());
}

TEST_CASE("an email whose title makes a line too long for SMTP is sent as base64") {
  auto p = mail_page();
  p.incident = incident_in("OPEN");
  p.incident.title.clear();
  for (int i = 0; i < 400; ++i)
    p.incident.title += "\xe2\x82\xac"; // 400 characters, 1,200 bytes
  const auto message = email_message(p, "belay@example.com", 0);
  CHECK(contains(message, "Content-Transfer-Encoding: base64\r\n"));
  CHECK_FALSE(contains(message, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\r\n"));
}
