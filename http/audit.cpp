// The audit log (docs/http.md#audit-log): GET /api/v1/audit, the caller's org's rows,
// newest first, a page at a time; admins only.
#include "protocol/audit.hpp"

#include "http/respond.hpp"
#include "protocol/limits.hpp"
#include "storage/audit.hpp"
#include "storage/db.hpp"

namespace belay {

namespace {

void list(api& a, const caller& who, const httplib::Request& req,
          httplib::Response& res) {
  auto params = page_params(req, res, 100, 500);
  if (!params)
    return;
  storage::audit_filter f;
  f.org_id = who.org_id;
  f.before_id = params->after;
  f.limit = params->limit;
  f.actor = req.get_param_value("actor");
  f.action = req.get_param_value("action");
  for (auto [name, value] :
       {std::pair{"actor", &f.actor}, std::pair{"action", &f.action}})
    if (value->size() > protocol::max_name_chars)
      return reply_error(res, 400, "too_long",
                         std::string{name} + " may have at most 255 characters", name);
  auto conn = a.db.acquire();
  auto page = storage::list_audit(*conn, f);
  std::optional<std::string> next;
  if (page.next_before)
    next = std::to_string(*page.next_before);
  reply_json(res, 200, protocol::render_audit_page(page.entries, next));
}

} // namespace

void add_audit_routes(routes& http, api& a) {
  http.Get("/api/v1/audit", access::admin,
           [&a](const caller& c, const httplib::Request& req, httplib::Response& res) {
             list(a, c, req, res);
           });
}

} // namespace belay
