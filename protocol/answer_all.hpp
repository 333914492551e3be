// Answering the page, whichever way the answer came
// (docs/guarantees.md#answering-the-page): the acknowledge or resolve an answer asks for,
// what came of it, and an answer to every incident of a bundle (DESIGN.md §14). The
// transition itself is the caller's to send — through the registry, as the API's — so
// that the simulation answers a bundle through this same code
// (tests/actors/simulation_test.cpp).
#pragma once

#include "protocol/commands.hpp"
#include "protocol/reply_command.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace belay::protocol {

// The transition an answer asks for, with who answered and how (`via`: link, sms, voice,
// slack) recorded on the incident.
transition_command answer_command(int64_t org_id, int64_t incident_id,
                                  answer_action action, const std::string& by,
                                  const char* via);

// What an acknowledge or resolve came to; no reply, or an incident not found, is
// `unavailable` (belay could not record it: try again).
answer_outcome outcome_of(answer_action action,
                          const std::optional<transition_reply>& reply);

// Sends one transition and returns its reply, or nullopt when none came.
using transition_sender =
    std::function<std::optional<transition_reply>(const transition_command&)>;

// Answers every incident of `incidents` (a bundle's, as they stood when it was loaded)
// still open to `action` — or only `only` — one transition each through `send`, as `by`
// via `via`; those already answered are counted, not sent.
answer_all_tally answer_all(int64_t org_id, const std::vector<incident_record>& incidents,
                            answer_action action, const std::string& by, const char* via,
                            std::optional<int64_t> only, const transition_sender& send);

} // namespace belay::protocol
