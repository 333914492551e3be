// A page as every renderer takes it: the incident, where it is in its ladder, whom it
// goes to, and (docs/guarantees.md#answering-the-page) the way back. Plain data: the
// channel actor fills it from a claimed delivery, a renderer of protocol/ turns it into a
// channel's text, and a transport only sends those bytes.
//
// A bundle (docs/architecture.md#storms) is one message for several incidents to one
// contact: the incidents with their own links, and one link answering all of them.
#pragma once

#include "protocol/model.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace belay::protocol {

// One incident of a bundle, with its own answer link when the bundle carries a page of
// it (empty for an incident carried over from the contact's previous message).
struct bundled_incident {
  incident_record incident;
  std::string answer_url{};
};

struct page {
  std::string idempotency_key; // "<incident id>:<loop>:<step>:<channel>:<target>",
                               // identical on every attempt
  std::string target; // recipient: slack channel name / email address / phone number /
                      // free text for webhook
  incident_record incident;
  int loop = 0;
  int step = 0;
  int attempt = 1;
  // Set by with_answer(): the delivery, its answer token, <public url>/a/<token>, and
  // where a call's <Gather> posts. The link is empty when the node has no signing
  // secret: the page then carries no way back.
  int64_t delivery_id = 0;
  // A status update rather than a page: "acknowledged" or "resolved", or
  // "status_update", a person's words to the incident's subscribers, in `message`.
  std::string update{};
  // A status update's words, or what a page to a requested responder asks
  // (docs/guarantees.md#working-an-incident); else empty.
  std::string message{};
  std::string answer_token{};
  std::string answer_url{};
  std::string voice_url{};
  // A bundle: every incident the message speaks of (`incident` is the first of them),
  // its id, and its token in answer_token (the bundle id negated, so that no delivery's
  // token ever names it).
  int64_t bundle_id = 0;
  std::vector<bundled_incident> bundle{};
};

// What a renderer writes: a status update; a page with its way back (link, buttons,
// reply line, <Gather>); a page without one; or a bundle (of pages, or of status updates
// when `update` is set).
enum class page_kind { status_update, answerable, plain, bundle };
page_kind kind_of(const page& p);

// What a node needs to put the way back into its pages.
struct answer_links {
  std::string public_url;     // the base of every link (--public-url)
  std::string signing_secret; // signs the tokens; never logged
};

// Gives `p` what its delivery adds to the page: its id, whether it is a status update,
// and (pages only) the delivery's token, valid for 7 days from `now` (the actor system's
// clock), with the links made from it.
void with_answer(page& p, const answer_links& links, const delivery_record& delivery,
                 micros now);

// Makes `p` the bundle `bundle_id` of `incidents` (in the order they are listed): for
// pages, its token (valid for 7 days from `now`) and links answer all of them.
void with_bundle(page& p, const answer_links& links, int64_t bundle_id,
                 std::vector<bundled_incident> incidents, micros now);

// <public url>/a/<token>, a trailing '/' of the public URL not doubled.
std::string answer_url(std::string_view public_url, std::string_view token);
// <public url>/api/v1/integrations/twilio/voice?t=<token>: where the call's <Gather>
// posts, and the URL its X-Twilio-Signature covers.
std::string twilio_voice_url(std::string_view public_url, std::string_view token);

} // namespace belay::protocol
