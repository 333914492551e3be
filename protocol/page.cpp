#include "protocol/page.hpp"

#include "protocol/answer_token.hpp"

namespace belay::protocol {

namespace {

std::string without_trailing_slashes(std::string_view url) {
  while (!url.empty() && url.back() == '/')
    url.remove_suffix(1);
  return std::string{url};
}

} // namespace

page_kind kind_of(const page& p) {
  if (!p.update.empty())
    return page_kind::status_update;
  return p.answer_token.empty() ? page_kind::plain : page_kind::answerable;
}

void with_answer(page& p, const answer_links& links, const delivery_record& delivery,
                 micros now) {
  p.delivery_id = delivery.id;
  p.update = delivery.update_of;
  if (links.signing_secret.empty() || !p.update.empty())
    return;
  p.answer_token =
      make_answer_token(links.signing_secret, delivery.id, now + answer_token_validity);
  p.answer_url = answer_url(links.public_url, p.answer_token);
  p.voice_url = twilio_voice_url(links.public_url, p.answer_token);
}

std::string answer_url(std::string_view public_url, std::string_view token) {
  return without_trailing_slashes(public_url) + "/a/" + std::string{token};
}

std::string twilio_voice_url(std::string_view public_url, std::string_view token) {
  return without_trailing_slashes(public_url) +
         "/api/v1/integrations/twilio/voice?t=" + std::string{token};
}

} // namespace belay::protocol
