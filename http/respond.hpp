// Small helpers shared by the route files: JSON replies, bearer keys, and blocking
// requests to actors from HTTP threads.
#pragma once

#include "http/api.hpp"
#include "protocol/error.hpp"

#include <httplib.h>
#include <optional>
#include <spdlog/spdlog.h>
#include <string>
#include <string_view>

namespace belay {

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

// Text a request body may carry that PostgreSQL cannot store: a NUL character, or an
// unpaired UTF-16 surrogate ("\udc00", which RapidJSON decodes into invalid UTF-8).
// Found before anything is written, it is a 400 naming the field; found by the
// database, it would be a 503 after part of a batch was written (G10).
struct unstorable_text {
  std::string field; // JSON path of the string or member name
  bool nul = false;  // else an unpaired surrogate
};

// The first unstorable string in `body` (already accepted by a protocol/ parser), within
// the member `within` of the top-level object when given.
std::optional<unstorable_text> find_unstorable(std::string_view body,
                                               const char* within = nullptr);

// 400 invalid_value in the error shape of section 5.
protocol::error unstorable_error(const unstorable_text& t);

// The key of "Authorization: Bearer <key>", or empty.
std::string bearer_key(const httplib::Request& req);

// Resolves the caller's org from its API key, or answers 401 and returns nullopt.
std::optional<int64_t> authenticate(api& a, const httplib::Request& req,
                                    httplib::Response& res);

// Asks an actor and waits (bounded by api::actor_timeout). On failure answers 503
// and returns nullopt: the caller's write may or may not have happened, which is
// exactly what 503 tells a client that retries.
template <class Reply, class... Ts>
std::optional<Reply> ask(api& a, const caf::actor& whom, httplib::Response& res,
                         Ts&&... xs) {
  std::optional<Reply> out;
  auto unavailable = [&](const std::string& why) {
    // The cause (a database error, say) goes to the log, not to the caller.
    spdlog::warn("request failed: {}", why);
    reply_error(res, 503, "unavailable", "belay could not complete the request; retry");
  };
  auto self = a.callers.take(a.sys);
  auto handle = (*self)->request(whom, caf::infinite, std::forward<Ts>(xs)...);
  // The deadline is this thread's own wait for the answer. A timeout given to request()
  // would be scheduled on CAF's clock thread instead, and wake it twice per request.
  // response_handle::receive takes no `after`, so this is what it does, plus the
  // deadline (varargs_receive is public in CAF 0.17; tests/http/respond_test.cpp pins
  // the behaviour).
  caf::blocking_actor::accept_one_cond once;
  bool answered = true;
  (*self)->varargs_receive(
      once, handle.id(), [&](Reply& r) { out = std::move(r); },
      [&](caf::error& e) { unavailable(to_string(e)); },
      caf::after(a.actor_timeout) >>
          [&] {
            answered = false;
            unavailable("no answer in time");
          });
  if (answered)
    a.callers.give_back(std::move(self));
  return out;
}

// Writes a trigger through the storage worker of its shard (actors/storage.hpp), and
// waits for it as ask() does.
inline std::optional<trigger_reply> ask_trigger(api& a, httplib::Response& res,
                                                trigger_command cmd) {
  auto& worker = a.triggers.worker_for(cmd.org_id, cmd.dedup_key);
  return ask<trigger_reply>(a, worker, res, atom::trigger_v, std::move(cmd));
}

} // namespace belay
