// The answer page behind every page's link, /a/<token> (docs/http.md#answering): small,
// complete HTML5 documents that read well on a phone, with no script and nothing
// fetched from elsewhere. Every interpolated string is escaped.
#pragma once

#include "protocol/model.hpp"
#include "protocol/reply_command.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace belay::protocol {

// GET /a/<token>: the incident (title, severity, status, who was paged) and a form
// posting action=ack or action=resolve back to the same URL, with only the buttons
// that make sense for the status. `paged` is the delivery's person (their user name,
// else the address the page went to).
std::string render_answer_page(const incident_record& incident, std::string_view paged);

// POST /a/<token>: what came of the answer ("Acknowledged by alice") above the
// incident as it is now, with the answers still open to it.
std::string render_answer_confirmation(const incident_record& incident,
                                       std::string_view paged, answer_outcome outcome,
                                       std::string_view by);

// GET /a/<bundle token> (docs/architecture.md#storms): the bundle's incidents, the
// first `max_listed` with their status and buttons acting on that one (action plus
// incident=<id>), and buttons acting on every one still open. POST: `notice` says what
// came of the answer (empty on GET).
inline constexpr std::size_t max_listed_in_bundle = 100;
std::string render_bundle_page(const std::vector<incident_record>& incidents,
                               std::string_view paged, std::string_view notice,
                               bool problem = false);

// Any invalid, altered or expired token: the same page, which names no incident and
// does not say which it was.
std::string render_answer_not_found();

} // namespace belay::protocol
