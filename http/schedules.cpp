// People and on-call schedules (docs/http.md#on-call-api): who is on call, final shifts,
// overrides and the calendar feed. Schedules and overrides are read from the database on
// each request, so every node answers alike.
#include "storage/schedules.hpp"

#include "http/respond.hpp"
#include "protocol/ical.hpp"
#include "protocol/oncall_json.hpp"
#include "protocol/time.hpp"
#include "storage/db.hpp"

#include <caf/actor_system.hpp>

namespace belay {

namespace {

constexpr micros day = 86'400'000'000LL;
constexpr micros max_shift_span = 93 * day;
constexpr micros calendar_span = 60 * day;
constexpr micros default_shift_span = 14 * day;

void schedule_not_found(httplib::Response& res, const std::string& name) {
  reply_error(res, 404, "not_found", "no schedule named '" + name + "'");
}

// Who is on call in `s` at `at`: overrides within reach of on_call_at's search.
protocol::on_call_now on_call(storage::connection& c, int64_t org,
                              const protocol::schedule& s, micros at) {
  auto overrides =
      storage::load_overrides(c, org, s.name, at - protocol::on_call_search_limit,
                              at + protocol::on_call_search_limit);
  return {s.name, s.time_zone, protocol::on_call_at(s, overrides, at)};
}

std::vector<protocol::on_call_now> everyone(api& a, int64_t org, micros at) {
  auto conn = a.db.acquire();
  std::vector<protocol::on_call_now> out;
  for (auto& s : storage::load_schedules(*conn, org))
    out.push_back(on_call(*conn, org, s, at));
  return out;
}

void oncall(api& a, const caller& who, const httplib::Request& req,
            httplib::Response& res) {
  auto at = now(a);
  if (req.has_param("at")) {
    auto parsed = protocol::parse_rfc3339(req.get_param_value("at"));
    if (!parsed)
      return reply_error(res, 400, "invalid_value",
                         "'at' must be an RFC 3339 time, e.g. 2026-12-01T09:00:00Z",
                         "at");
    at = *parsed;
  }
  reply_json(res, 200, protocol::render_oncall(everyone(a, who.org_id, at)));
}

void schedules(api& a, const caller& who, const httplib::Request&,
               httplib::Response& res) {
  reply_json(res, 200, protocol::render_schedules(everyone(a, who.org_id, now(a))));
}

void shifts(api& a, const caller& who, const httplib::Request& req,
            httplib::Response& res) {
  auto name = req.matches[1].str();
  auto t = now(a);
  auto span = protocol::parse_span(req.get_param_value("from"), req.get_param_value("to"),
                                   t, t + default_shift_span, max_shift_span);
  if (auto* e = std::get_if<protocol::error>(&span))
    return reply_error(res, *e);
  auto [from, to] = std::get<0>(span);
  auto conn = a.db.acquire();
  auto s = storage::load_schedule(*conn, who.org_id, name);
  if (!s)
    return schedule_not_found(res, name);
  auto overrides = storage::load_overrides(*conn, who.org_id, name, from, to);
  reply_json(res, 200,
             protocol::render_shifts(protocol::final_shifts(*s, overrides, from, to)));
}

void add_override(api& a, const caller& who, const httplib::Request& req,
                  httplib::Response& res) {
  auto name = req.matches[1].str();
  auto parsed = protocol::parse_override_request(req.body);
  if (auto* e = std::get_if<protocol::error>(&parsed))
    return reply_error(res, *e);
  auto& o = std::get<protocol::schedule_override>(parsed);
  auto conn = a.db.acquire();
  if (!storage::load_schedule(*conn, who.org_id, name))
    return schedule_not_found(res, name);
  auto users = storage::user_names(*conn, who.org_id);
  if (!users.count(o.user))
    return reply_error(res, 400, "unknown_user", "no user named '" + o.user + "'",
                       "user");
  if (o.replaces && !users.count(*o.replaces))
    return reply_error(res, 400, "unknown_user", "no user named '" + *o.replaces + "'",
                       "replaces");
  auto stored =
      storage::add_override(*conn, who.org_id, name, o, now(a), attributed(who));
  reply_json(res, 201, protocol::render_override(name, stored));
}

void list_overrides(api& a, const caller& who, const httplib::Request& req,
                    httplib::Response& res) {
  auto name = req.matches[1].str();
  auto t = now(a);
  // By default, every override that has not ended yet.
  auto span = protocol::parse_span(req.get_param_value("from"), req.get_param_value("to"),
                                   t, t + 100 * 365 * day, 1000 * 365 * day);
  if (auto* e = std::get_if<protocol::error>(&span))
    return reply_error(res, *e);
  auto [from, to] = std::get<0>(span);
  auto conn = a.db.acquire();
  if (!storage::load_schedule(*conn, who.org_id, name))
    return schedule_not_found(res, name);
  reply_json(res, 200,
             protocol::render_overrides(
                 name, storage::load_overrides(*conn, who.org_id, name, from, to)));
}

void delete_override(api& a, const caller& who, const httplib::Request& req,
                     httplib::Response& res) {
  auto name = req.matches[1].str();
  auto text = req.matches[2].str();
  auto conn = a.db.acquire();
  if (text.empty() || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string::npos ||
      !storage::delete_override(*conn, who.org_id, name, std::stoll(text), now(a),
                                attributed(who)))
    return reply_error(res, 404, "not_found", "no such override");
  res.status = 204;
}

void calendar(api& a, const caller& who, const httplib::Request& req,
              httplib::Response& res) {
  auto name = req.matches[1].str();
  auto conn = a.db.acquire();
  auto s = storage::load_schedule(*conn, who.org_id, name);
  if (!s)
    return schedule_not_found(res, name);
  auto t = now(a);
  // From the current shift's start, so its event keeps its UID between refreshes.
  auto current = on_call(*conn, who.org_id, *s, t).now;
  auto from = current ? current->start : t;
  auto overrides =
      storage::load_overrides(*conn, who.org_id, name, from, t + calendar_span);
  auto all = protocol::final_shifts(*s, overrides, from, t + calendar_span);
  if (req.has_param("user")) {
    auto user = req.get_param_value("user");
    std::vector<protocol::shift> mine;
    for (auto& sh : all)
      if (sh.user == user)
        mine.push_back(sh);
    all = std::move(mine);
  }
  res.status = 200;
  res.set_content(protocol::render_calendar(name, all, t),
                  protocol::calendar_content_type);
}

using handler = void (*)(api&, const caller&, const httplib::Request&,
                         httplib::Response&);

caller_handler route(api& a, handler h) {
  return [&a, h](const caller& c, const httplib::Request& req, httplib::Response& res) {
    h(a, c, req, res);
  };
}

} // namespace

void add_schedule_routes(routes& http, api& a) {
  http.Get("/api/v1/oncall", access::read, route(a, oncall));
  http.Get("/api/v1/schedules", access::read, route(a, schedules));
  http.Get(R"(/api/v1/schedules/([^/]+)/shifts)", access::read, route(a, shifts));
  http.Post(R"(/api/v1/schedules/([^/]+)/overrides)", access::respond,
            route(a, add_override));
  http.Get(R"(/api/v1/schedules/([^/]+)/overrides)", access::read,
           route(a, list_overrides));
  http.Delete(R"(/api/v1/schedules/([^/]+)/overrides/([^/]+))", access::respond,
              route(a, delete_override));
  http.Get(R"(/api/v1/schedules/([^/]+)/calendar\.ics)", access::read,
           route(a, calendar));
}

} // namespace belay
