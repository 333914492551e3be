// Token buckets for the rate limits of docs/guarantees.md#rate-limits: pure arithmetic,
// the time passed in, so that the limiter's behaviour is unit-tested in microseconds.
#pragma once

#include "protocol/model.hpp"

#include <cstdint>

namespace belay::protocol {

// Holds one minute's worth of requests and refills continuously at `per_minute` / 60
// a second: a client may burst up to its limit, then goes at the limit's pace.
struct token_bucket {
  double tokens = 0;
  micros updated = 0;
  bool started = false; // a bucket is full before its first request
};

struct take_result {
  bool allowed = true;
  micros retry_after = 0; // when refused: until one token is back
};

// Takes one token at `now`. A limit of 0 or less refuses everything; a clock that went
// backwards refills nothing.
take_result take_token(token_bucket& b, double per_minute, micros now);
// Takes `n` tokens at once (an Alertmanager post costs one per alert), or none.
take_result take_tokens(token_bucket& b, double per_minute, micros now, double n);

// The Retry-After header's value: whole seconds, rounded up, at least 1.
int64_t retry_after_seconds(micros wait);

} // namespace belay::protocol
