#include "protocol/answer_all.hpp"

namespace belay::protocol {

transition_command answer_command(int64_t org_id, int64_t incident_id,
                                  answer_action action, const std::string& by,
                                  const char* via) {
  const auto kind =
      action == answer_action::acknowledge ? transition::ack : transition::resolve;
  transition_command cmd{org_id, incident_id, {}, kind, by, "native", via};
  cmd.audited = true; // a person's answer (docs/security.md#audit-log)
  return cmd;
}

answer_outcome outcome_of(answer_action action,
                          const std::optional<transition_reply>& reply) {
  if (!reply)
    return answer_outcome::unavailable;
  const bool ack = action == answer_action::acknowledge;
  switch (reply->code) {
  case reply_code::ok:
    return ack ? answer_outcome::acknowledged : answer_outcome::resolved;
  case reply_code::unchanged:
    return ack ? answer_outcome::already_acknowledged : answer_outcome::already_resolved;
  case reply_code::conflict: // acknowledging a resolved incident
    return answer_outcome::already_resolved;
  default:
    return answer_outcome::unavailable;
  }
}

answer_all_tally answer_all(int64_t org_id, const std::vector<incident_record>& incidents,
                            answer_action action, const std::string& by, const char* via,
                            std::optional<int64_t> only, const transition_sender& send) {
  answer_all_tally tally;
  for (auto& incident : incidents) {
    if (only && incident.id != *only)
      continue;
    ++tally.total;
    const bool open = action == answer_action::acknowledge
                          ? can_acknowledge(incident.status)
                          : can_resolve(incident.status);
    if (!open) {
      ++tally.already;
      continue;
    }
    switch (
        outcome_of(action, send(answer_command(org_id, incident.id, action, by, via)))) {
    case answer_outcome::acknowledged:
    case answer_outcome::resolved:
      ++tally.changed;
      break;
    case answer_outcome::unavailable:
      ++tally.unavailable;
      break;
    default:
      ++tally.already;
    }
  }
  return tally;
}

} // namespace belay::protocol
