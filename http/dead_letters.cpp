// Dead letters: list them, and replay one as a fresh delivery to its recipient.
#include "actors/actors.hpp"
#include "http/respond.hpp"
#include "protocol/incident_json.hpp"
#include "storage/db.hpp"
#include "storage/deliveries.hpp"

namespace belay {

namespace {

void list(api& a, const caller& who, const httplib::Request& req,
          httplib::Response& res) {
  // Newest first, 500 a page (as before cursors); ?after= takes the older ones.
  auto params = page_params(req, res, 500, 500);
  if (!params)
    return;
  auto conn = a.db.acquire();
  auto page = storage::list_dead_letters(*conn, who.org_id, params->after, params->limit);
  std::optional<std::string> next;
  if (page.next_before)
    next = std::to_string(*page.next_before);
  reply_json(res, 200, protocol::render_dead_letters(page.dead_letters, next));
}

void replay(api& a, const caller& who, const httplib::Request& req,
            httplib::Response& res) {
  auto id = parse_id(req.matches[1].str());
  if (!id)
    return reply_error(res, 404, "not_found", "no such dead letter");
  auto r = ask<storage::replay_result>(a, a.dispatcher, res, atom::replay_v, who.org_id,
                                       *id, attributed(who));
  if (!r)
    return;
  switch (r->code) {
  case reply_code::ok:
    return reply_json(res, 202,
                      "{\"deliveryId\":" + std::to_string(r->delivery_id) + "}");
  case reply_code::conflict:
    return reply_error(res, 409, "already_replayed",
                       "this dead letter was replayed already");
  default:
    return reply_error(res, 404, "not_found", "no such dead letter");
  }
}

} // namespace

void add_dead_letter_routes(routes& http, api& a) {
  http.Get("/api/v1/dead-letters", access::read,
           [&a](const caller& c, const httplib::Request& req, httplib::Response& res) {
             list(a, c, req, res);
           });
  http.Post(R"(/api/v1/dead-letters/([^/]+)/replay)", access::respond,
            [&a](const caller& c, const httplib::Request& req, httplib::Response& res) {
              replay(a, c, req, res);
            });
}

} // namespace belay
