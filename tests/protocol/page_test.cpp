#include "pages.hpp"
#include "protocol/answer_token.hpp"
#include "protocol/page.hpp"
#include "protocol/webhook.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace belay::protocol;

namespace {

const answer_links links{"https://belay.example/", "links-test-secret"};
constexpr micros paged_at = 1'767'225'600'000'000; // 2026-01-01T00:00:00Z

page linked_page() {
  page p;
  delivery_record d;
  d.id = 9001;
  with_answer(p, links, d, paged_at);
  return p;
}

} // namespace

TEST_CASE("links are the public URL with /a/<token> or the voice callback", "[signing]") {
  CHECK(answer_url("https://belay.example.com", "T") == "https://belay.example.com/a/T");
  CHECK(answer_url("https://belay.example.com/", "T") == "https://belay.example.com/a/T");
  CHECK(answer_url("http://127.0.0.1:8080/belay//", "T") ==
        "http://127.0.0.1:8080/belay/a/T");
  CHECK(twilio_voice_url("https://belay.example.com/", "T") ==
        "https://belay.example.com/api/v1/integrations/twilio/voice?t=T");
}

TEST_CASE("with_answer: one token per delivery, valid for 7 days from the given now") {
  auto p = linked_page();
  CHECK(p.delivery_id == 9001);
  CHECK(p.answer_url == "https://belay.example/a/" + p.answer_token);
  CHECK(p.voice_url ==
        "https://belay.example/api/v1/integrations/twilio/voice?t=" + p.answer_token);
  const auto week = protocol::answer_token_validity;
  CHECK(protocol::verify_answer_token(links.signing_secret, p.answer_token,
                                      paged_at + week - 1) == 9001);
  CHECK_FALSE(protocol::verify_answer_token(links.signing_secret, p.answer_token,
                                            paged_at + week));

  page unsigned_page;
  delivery_record d;
  d.id = 9001;
  with_answer(unsigned_page, {"https://belay.example", ""}, d, paged_at);
  CHECK(unsigned_page.answer_url.empty());
  CHECK(webhook_body(unsigned_page).find("ackUrl") == std::string::npos);
}

TEST_CASE("with_answer: a status update carries no link, and every renderer knows it") {
  page p;
  delivery_record d;
  d.id = 9002;
  d.update_of = "resolved";
  with_answer(p, links, d, paged_at);
  CHECK(p.delivery_id == 9002);
  CHECK(p.update == "resolved");
  CHECK(p.answer_token.empty());
  CHECK(kind_of(p) == page_kind::status_update);
  CHECK(kind_of(linked_page()) == page_kind::answerable);
  CHECK(kind_of(page{}) == page_kind::plain);
}
