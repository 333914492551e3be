// The HTTP thread pool (cpp-httplib 0.11 holds a connection on one thread for its whole
// life, keep-alive included: STACK.md). It runs `threads` connections at once and
// queues at most `queued` more, each for at most `queue_wait`. Past either the node is
// saturated: each further
// connection gets an overflow thread of its own, on which only the health paths
// (/healthz, /readyz, /metrics) are served and every other request is answered 503
// with Retry-After, the connection closed. A thread of its own, so that slow clients
// in the overflow (each held up to the request deadline, http/connections.hpp) never
// delay a probe behind them. At most `overflow` such threads; past them the accepting
// thread serves the connection itself, so that further connections wait in the
// kernel's listen backlog instead of in a queue without bound.
#pragma once

#include <chrono>
#include <cstddef>
#include <httplib.h>
#include <string>

namespace belay {

httplib::TaskQueue* make_bounded_pool(size_t threads, size_t queued, size_t overflow,
                                      std::chrono::milliseconds queue_wait);

// True on an overflow thread (and on the accepting thread when it serves one).
bool shedding();

// The paths an overflow thread serves instead of answering 503: the probes of an
// orchestrator and a monitor, which must learn whether the node is alive even while it
// is saturated (and which are cheap).
bool served_when_saturated(const std::string& path);

} // namespace belay
