// Small helpers shared by the route files: JSON replies, bearer keys, attribution, and
// blocking requests to actors from HTTP threads.
#pragma once

#include "http/api.hpp"
#include "http/routes.hpp"
#include "protocol/commands.hpp"
#include "protocol/error.hpp"
#include "storage/keys.hpp"

#include <algorithm>
#include <caf/response_type.hpp>
#include <chrono>
#include <httplib.h>
#include <optional>
#include <spdlog/spdlog.h>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace belay {

// Now by the actor system's clock (docs/architecture.md#time: time in logic never from
// the wall clock).
inline micros now(const api& a) {
  return a.clock.at(a.sys.clock().now());
}

inline void reply_json(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json");
}

inline void reply_error(httplib::Response& res, const protocol::error& e) {
  reply_json(res, e.status, protocol::render_error(e));
}

inline void reply_error(httplib::Response& res, int status, std::string code,
                        std::string message, std::string field = {}) {
  reply_error(res, protocol::error{status, std::move(code), std::move(message),
                                   std::move(field)});
}

// Ends the connection once this reply is written: for a reply sent before the request's
// body was read (cpp-httplib would otherwise read the body as the next request).
void close_after_reply(httplib::Response& res);

// 429 with Retry-After.
void reply_rate_limited(httplib::Response& res, int64_t retry_after_seconds,
                        const std::string& what);

// The events integration a PagerDuty-style routing key names, one request taken from
// its rate limit; else answers PagerDuty's 400 "Invalid routing key" or its 429
// throttle body and returns nullopt.
std::optional<storage::integration_row> admit_routing_key(api& a, const std::string& key,
                                                          httplib::Response& res);

// The key of "Authorization: Bearer <key>", or empty.
std::string bearer_key(const httplib::Request& req);

// Who a write is recorded as (docs/security.md#attribution): the credential's own
// identity; only an admin-scoped API key may name someone else (`asked`, a body's "by":
// an integration acting for a person), and say how (`asked_via`).
inline std::string attributed_by(const caller& c, const std::string& asked) {
  return protocol::speaks_for_others(c) && !asked.empty() ? asked : protocol::actor_of(c);
}
inline std::string attributed_via(const caller& c, const std::string& asked_via) {
  return protocol::speaks_for_others(c) ? asked_via : protocol::via_of(c);
}
// The caller as the audit log records a write of theirs.
inline attribution attributed(const caller& c) {
  return {protocol::actor_of(c), protocol::via_of(c), c.source_ip};
}

// A row id in a path or a parameter: 1 to 18 digits, else nullopt (answered as "no such
// thing", since no row has such an id).
std::optional<int64_t> parse_id(const std::string& text);

// ?limit= (1..max_limit, default_limit when absent) and ?after= (a cursor from a
// page's "next"; 0 when absent), or a 400 naming the parameter.
struct page_request {
  int limit = 50;
  int64_t after = 0;
};
std::optional<page_request> page_params(const httplib::Request& req,
                                        httplib::Response& res, int default_limit,
                                        int max_limit);

// One request for ask_all: whom to ask, and what. Made by to(), which checks it against
// the receiver's typed interface.
template <class Reply> struct request_to {
  caf::actor whom;
  caf::message msg;
};

template <class Reply, class Handle, class... Ts>
request_to<Reply> to(const Handle& whom, Ts&&... xs) {
  using answer = caf::response_type_t<typename Handle::signatures, std::decay_t<Ts>...>;
  static_assert(std::is_same_v<answer, caf::detail::type_list<Reply>> ||
                    std::is_same_v<answer, caf::message>, // an untyped actor
                "the receiver answers this request with another type");
  return {caf::actor_cast<caf::actor>(whom), caf::make_message(std::forward<Ts>(xs)...)};
}

// Sends every request at once (so that storage can write them in one batch), then waits
// for all the answers, in order, bounded by api::actor_timeout in all. On any failure
// answers 503 and returns nullopt: the callers' writes may or may not have happened,
// which is exactly what 503 tells a client that retries.
template <class Reply>
std::optional<std::vector<Reply>> ask_all(api& a, httplib::Response& res,
                                          std::vector<request_to<Reply>> requests) {
  auto self = a.callers.take(a.sys);
  std::vector<caf::message_id> ids;
  ids.reserve(requests.size());
  for (auto& r : requests)
    ids.push_back((*self)->request(r.whom, caf::infinite, std::move(r.msg)).id());
  // The deadline is this thread's own wait for the answers. A timeout given to
  // request() would be scheduled on CAF's clock thread instead, and wake it twice per
  // request. response_handle::receive takes no `after`, so this is what it does, plus
  // the deadline (varargs_receive is public in CAF 0.17; tests/http/respond_test.cpp
  // pins the behaviour).
  auto deadline = std::chrono::steady_clock::now() + a.actor_timeout;
  std::vector<Reply> replies;
  replies.reserve(ids.size());
  size_t answered = 0;
  std::string failure;
  for (auto id : ids) {
    caf::blocking_actor::accept_one_cond once;
    auto left = std::max(deadline - std::chrono::steady_clock::now(),
                         std::chrono::steady_clock::duration::zero());
    (*self)->varargs_receive(
        once, id,
        [&](Reply& r) {
          ++answered;
          replies.push_back(std::move(r));
        },
        [&](caf::error& e) {
          ++answered;
          failure = to_string(e);
        },
        caf::after(left) >> [&] { failure = "no answer in time"; });
    if (!failure.empty())
      break;
  }
  // Only a caller that got every answer may come back: one that stopped waiting may
  // still get the late ones.
  if (answered == ids.size())
    a.callers.give_back(std::move(self));
  if (failure.empty())
    return replies;
  // The cause (a database error, say) goes to the log, not to the caller.
  spdlog::warn("request failed: {}", failure);
  res.set_header("Retry-After", "1");
  reply_error(res, 503, "unavailable", "belay could not complete the request; retry");
  return std::nullopt;
}

// Asks and waits, as ask_all does.
template <class Reply>
std::optional<Reply> ask(api& a, httplib::Response& res, request_to<Reply> request) {
  std::vector<request_to<Reply>> one;
  one.push_back(std::move(request));
  auto replies = ask_all<Reply>(a, res, std::move(one));
  if (!replies)
    return std::nullopt;
  return std::move(replies->front());
}

template <class Reply, class Handle, class... Ts>
std::optional<Reply> ask(api& a, const Handle& whom, httplib::Response& res, Ts&&... xs) {
  return ask<Reply>(a, res, to<Reply>(whom, std::forward<Ts>(xs)...));
}

// A trigger goes to the storage worker of its shard (actors/trigger_lane.hpp).
inline request_to<trigger_reply> trigger_request(const api& a, trigger_command cmd) {
  auto worker = a.triggers.worker_for(cmd.org_id, cmd.dedup_key);
  return to<trigger_reply>(worker, atom::trigger_v, std::move(cmd));
}

// Writes a trigger and waits for it, as ask() does.
inline std::optional<trigger_reply> ask_trigger(api& a, httplib::Response& res,
                                                trigger_command cmd) {
  return ask<trigger_reply>(a, res, trigger_request(a, std::move(cmd)));
}

} // namespace belay
