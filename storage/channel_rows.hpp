// The channel row as every statement that reads channels returns it: the dispatcher's
// load (storage/deliveries.cpp) and the answers' look-ups (storage/answers.cpp).
#pragma once

#include "protocol/model.hpp"
#include "storage/columns.hpp"

#include <vector>

// Every column of a channel (storage/columns.hpp).
// clang-format off
#define BELAY_CHANNEL_COLUMN_LIST(first, next)                                           \
  first(org_id, "org_id")                                                                \
  next(name, "name")                                                                     \
  next(type, "type")                                                                     \
  next(url, "url")                                                                       \
  next(secret, "secret")                                                                 \
  next(account, "account")                                                               \
  next(from, "sender")                                                                   \
  next(max_attempts, "max_attempts")                                                     \
  next(retry_base_seconds, "retry_base_seconds")                                         \
  next(retry_cap_seconds, "retry_cap_seconds")                                           \
  next(timeout_seconds, "timeout_seconds")                                               \
  next(failover_to, "failover_to")                                                       \
  next(signing_secret, "signing_secret")
// clang-format on
#define BELAY_CHANNEL_COLUMNS BELAY_SELECT_LIST(BELAY_CHANNEL_COLUMN_LIST)

namespace belay::storage {

// Every row of a statement that selects BELAY_CHANNEL_COLUMNS.
std::vector<channel_config> read_channels(const result& r);

} // namespace belay::storage
