// Heartbeat monitors (docs/http.md#heartbeats-api): the ping endpoints,
// Healthchecks-style, and the org's list. A ping is cheap: no JSON, its key found in the
// key cache, one message to the node's heartbeat holder, which answers after the group
// commit that recorded it.
#include "storage/heartbeats.hpp"

#include "actors/actors.hpp"
#include "http/keys.hpp"
#include "http/respond.hpp"
#include "protocol/heartbeat.hpp"
#include "storage/db.hpp"

#include <optional>
#include <utility>

namespace belay {

namespace {

// The monitor a ping names, or nullopt after answering 400 (a bad suffix) or 404.
std::optional<std::pair<storage::heartbeat_key, ping_kind>>
pinged(api& a, const httplib::Request& req, httplib::Response& res) {
  auto kind =
      protocol::parse_ping_suffix(req.matches.size() > 2 ? req.matches[2].str() : "");
  if (auto* err = std::get_if<protocol::error>(&kind)) {
    reply_error(res, *err);
    return std::nullopt;
  }
  auto monitor = a.keys.heartbeat_for(req.matches[1].str());
  if (!monitor) {
    reply_error(res, 404, "unknown_heartbeat", "no heartbeat has this ping key");
    return std::nullopt;
  }
  return std::make_pair(*monitor, std::get<ping_kind>(kind));
}

void ping(api& a, const httplib::Request& req, httplib::Response& res) {
  auto p = pinged(a, req, res);
  if (!p)
    return;
  auto code = ask<reply_code>(a, a.heartbeats, res, atom::ping_v, p->first.org_id,
                              p->first.id, p->second);
  if (!code)
    return;
  if (*code != reply_code::ok)
    return reply_error(res, 404, "unknown_heartbeat", "no heartbeat has this ping key");
  res.status = 200;
  res.set_content("OK", "text/plain");
}

void list(api& a, const caller& who, const httplib::Request&, httplib::Response& res) {
  auto conn = a.db.acquire();
  reply_json(res, 200,
             protocol::render_heartbeats(storage::list_heartbeats(*conn, who.org_id)));
}

} // namespace

void add_heartbeat_routes(routes& http, api& a) {
  // GET and HEAD (cpp-httplib answers HEAD with the GET route, without the body), and
  // POST, whose body (a job's output, say) is read under the limit and not kept.
  const std::string pattern = R"(/hb/([^/]+)(?:/([^/]+))?)";
  auto handle = [&a](const httplib::Request& req, httplib::Response& res) {
    ping(a, req, res);
  };
  http.Get(pattern, handle);
  // A POST's key and suffix are checked before its body is read (the key cache answers
  // the handler's second look).
  http.Post(pattern, handle, [&a](const httplib::Request& req, httplib::Response& res) {
    return pinged(a, req, res).has_value();
  });
  http.Get("/api/v1/heartbeats", access::read,
           [&a](const caller& c, const httplib::Request& req, httplib::Response& res) {
             list(a, c, req, res);
           });
}

} // namespace belay
