// /healthz (the process answers) and /readyz (it can do its work): readiness asks each
// component in turn, with a short deadline each, so that a hung component turns it 503
// instead of hanging the probe (docs/guarantees.md#nothing-waits-for-ever).
#include "http/api.hpp"
#include "http/routes.hpp"
#include "protocol/views.hpp"
#include "storage/db.hpp"

#include <caf/scoped_actor.hpp>
#include <httplib.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <utility>
#include <vector>

namespace belay {

namespace {

constexpr auto probe_timeout = std::chrono::seconds{2};

// (component, problem): an empty problem is a healthy component.
using component_state = std::pair<const char*, std::string>;

std::string status_json(const std::vector<component_state>& components) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w{buf};
  std::string reason;
  for (auto& [name, problem] : components)
    if (!problem.empty() && reason.empty())
      reason = std::string{name} + ": " + problem;
  w.StartObject();
  w.Key("status");
  w.String(reason.empty() ? "ready" : "unavailable");
  if (!reason.empty()) {
    w.Key("reason");
    w.String(reason.c_str(), static_cast<rapidjson::SizeType>(reason.size()));
  }
  w.Key("components");
  w.StartObject();
  for (auto& [name, problem] : components) {
    w.Key(name);
    auto text = problem.empty() ? std::string{"ok"} : problem;
    w.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
  }
  w.EndObject();
  w.EndObject();
  return buf.GetString();
}

std::string database_problem(api& a) {
  try {
    auto conn = a.db.acquire();
    try {
      conn->exec_within(probe_timeout, "SELECT 1");
    } catch (const storage::db_error&) {
      // A connection that went stale while the server restarted gets one retry.
      if (!conn->reset())
        throw;
      conn->exec_within(probe_timeout, "SELECT 1");
    }
    return {};
  } catch (const storage::db_error& e) {
    return e.what();
  }
}

// Whether the actor answers `xs` (with a Reply) within the probe's deadline.
template <class Reply, class Handle, class... Ts>
std::string actor_problem(api& a, const Handle& whom, Ts&&... xs) {
  caf::scoped_actor self{a.sys};
  std::string problem;
  self->request(whom, probe_timeout, std::forward<Ts>(xs)...)
      .receive([](Reply&) {},
               [&](caf::error& e) {
                 problem = e == caf::sec::request_timeout ? "no answer within 2 s"
                                                          : "down (" + to_string(e) + ")";
               });
  return problem;
}

} // namespace

void add_health_routes(routes& http, api& a) {
  http.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"status":"ok"})", "application/json");
  });
  http.Get("/readyz", [&a](const httplib::Request&, httplib::Response& res) {
    std::vector<component_state> components;
    components.emplace_back("database", database_problem(a));
    if (a.storage)
      components.emplace_back("storage", actor_problem<std::vector<storage_worker_actor>>(
                                             a, a.storage, atom::children_v));
    if (a.registry)
      components.emplace_back(
          "registry", actor_problem<registry_stats>(a, a.registry, atom::stats_v));
    if (a.dispatcher)
      components.emplace_back("dispatcher", actor_problem<std::vector<channel_actor>>(
                                                a, a.dispatcher, atom::children_v));
    if (a.listening)
      components.emplace_back("listener",
                              a.listening() ? "" : "not listening; reconnecting");
    bool ready = true;
    for (auto& c : components)
      ready &= c.second.empty();
    res.status = ready ? 200 : 503;
    // A failover leaves no primary for a few seconds (docs/operations.md#failover).
    if (!ready)
      res.set_header("Retry-After", "1");
    res.set_content(status_json(components), "application/json");
  });
}

} // namespace belay
