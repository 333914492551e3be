// The org's configuration as a provisioning document (docs/http.md#configuration-api):
// GET reads it, PUT replaces it. A PUT writes straight to storage, as `belay provision`
// does: no actor holds configuration; every node reads it again within 10 s
// (docs/operations.md#change-without-restart).
#include "http/respond.hpp"
#include "protocol/provisioning_json.hpp"
#include "storage/db.hpp"
#include "storage/org_config.hpp"
#include "storage/provision.hpp"

namespace belay {

namespace {

constexpr const char* org_path = "orgs[0]";

void get_config(api& a, const caller& who, const httplib::Request&,
                httplib::Response& res) {
  auto conn = a.db.acquire();
  reply_json(res, 200,
             protocol::render_provisioning(storage::load_org_config(*conn, who.org_id)));
}

// ?dryRun=true|false, or a 400 naming it.
std::optional<bool> dry_run_param(const httplib::Request& req, httplib::Response& res) {
  if (!req.has_param("dryRun"))
    return false;
  auto value = req.get_param_value("dryRun");
  if (value == "true" || value == "false")
    return value == "true";
  reply_error(res, 400, "invalid_value", "'dryRun' must be true or false", "dryRun");
  return std::nullopt;
}

// The one org of the document, if it may replace the caller's org (`current`);
// otherwise the answer is sent and nullopt returned.
std::optional<protocol::provisioned_org> own_org(protocol::provisioning& doc,
                                                 const protocol::provisioned_org& current,
                                                 httplib::Response& res) {
  if (doc.orgs.size() != 1) {
    reply_error(res, 400, "invalid_provisioning",
                "'orgs' must hold exactly one org: the API key's own", "orgs");
    return std::nullopt;
  }
  auto& o = doc.orgs[0];
  const std::string name_path = std::string{org_path} + ".name";
  // 403 rather than 404: the key is valid, it just cannot reach another org; the other
  // org's existence is not told either way.
  if (o.name != current.name) {
    reply_error(res, 403, "forbidden",
                "this API key reaches only its own org, \"" + current.name +
                    "\"; the document must name it",
                name_path);
    return std::nullopt;
  }
  // Disabling removes the org's keys: the caller would lock itself out.
  if (o.disabled) {
    reply_error(res, 400, "invalid_provisioning",
                "'orgs[0].disabled' cannot be true here: an org is disabled by its "
                "operator with `belay provision`",
                std::string{org_path} + ".disabled");
    return std::nullopt;
  }
  if (!o.api_keys_given)
    o.keep_api_keys = true;
  if (auto e = protocol::check_kept_secrets(o, current, org_path)) {
    reply_error(res, *e);
    return std::nullopt;
  }
  return std::move(o);
}

void put_config(api& a, const caller& who, const httplib::Request& req,
                httplib::Response& res) {
  auto dry_run = dry_run_param(req, res);
  if (!dry_run)
    return;
  auto parsed = protocol::parse_provisioning(req.body);
  if (auto* e = std::get_if<protocol::error>(&parsed))
    return reply_error(res, *e);
  auto conn = a.db.acquire();
  auto o = own_org(std::get<protocol::provisioning>(parsed),
                   storage::load_org_config(*conn, who.org_id), res);
  if (!o)
    return;
  try {
    storage::provision_audit audit{protocol::actor_of(who),
                                   protocol::via_of(who),
                                   who.source_ip,
                                   "config.replace",
                                   "",
                                   now(a)};
    auto report = storage::apply_org_provisioning(*conn, *o, *dry_run, audit);
    reply_json(res, 200,
               protocol::render_provision_changes(*dry_run, report.changed_rows,
                                                  report.changes));
  } catch (const storage::db_error& e) {
    // A named key's "<set>" with no key of that name stored (checked before, unless
    // another request removed it meanwhile).
    if (e.sqlstate == "22023")
      return reply_error(res, 400, "invalid_provisioning", e.what());
    // A key that another org already uses; which org is not told.
    if (e.sqlstate != "23505")
      throw;
    reply_error(res, 409, "key_in_use",
                "a key in the document is already in use; choose another");
  }
}

} // namespace

void add_config_routes(routes& http, api& a) {
  using R = const httplib::Request&;
  using W = httplib::Response&;
  http.Get("/api/v1/config", access::admin,
           [&a](const caller& c, R req, W res) { get_config(a, c, req, res); });
  http.Put("/api/v1/config", access::admin,
           [&a](const caller& c, R req, W res) { put_config(a, c, req, res); });
}

} // namespace belay
