// The inspector: a live view of this node's actors as JSON, as server-sent events,
// and as the console page (assets compiled into the binary).
#include "actors/actors.hpp"
#include "http/respond.hpp"
#include "protocol/inspector_json.hpp"
#include "storage/db.hpp"
#include "storage/deliveries.hpp"

#include <algorithm>
#include <thread>

namespace belay::embedded {
extern const std::vector<std::pair<std::string_view, std::string_view>> console_assets;
}

namespace belay {

namespace {

micros system_now() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

// Asks the actors (not the database) what they hold; only the dead-letter list is
// read from storage.
std::optional<inspector_snapshot> snapshot(api& a, int64_t org, httplib::Response& res) {
  inspector_snapshot s;
  s.node = a.node;
  s.node.now = system_now();
  auto stats = ask<registry_stats>(a, a.registry, res, atom::stats_v);
  auto incidents =
      ask<std::vector<incident_view>>(a, a.registry, res, atom::views_v, org);
  auto channels =
      ask<std::vector<channel_view>>(a, a.dispatcher, res, atom::views_v, org);
  if (!stats || !incidents || !channels)
    return std::nullopt;
  s.registry = *stats;
  s.incidents = std::move(*incidents);
  std::sort(s.incidents.begin(), s.incidents.end(), [](auto& x, auto& y) {
    auto due = [](const incident_view& v) {
      return v.incident.status == status_open && v.incident.next_fire_at
                 ? *v.incident.next_fire_at
                 : std::numeric_limits<micros>::max();
    };
    return std::make_pair(due(x), x.incident.id) < std::make_pair(due(y), y.incident.id);
  });
  s.channels = std::move(*channels);
  std::sort(s.channels.begin(), s.channels.end(),
            [](auto& x, auto& y) { return x.config.name < y.config.name; });
  {
    auto conn = a.db.acquire();
    s.dead_letters = storage::list_dead_letters(*conn, org, 100);
  }
  s.storage = {a.storage_workers, a.db.size(), a.db.busy()};
  return s;
}

void inspect(api& a, const httplib::Request& req, httplib::Response& res) {
  auto org = authenticate(a, req, res);
  if (!org)
    return;
  if (auto s = snapshot(a, *org, res))
    reply_json(res, 200, protocol::render_inspector(*s));
}

// One snapshot a second, as server-sent events, until the client goes or we stop.
void stream(api& a, const httplib::Request& req, httplib::Response& res) {
  auto org = authenticate(a, req, res);
  if (!org)
    return;
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream", [&a, org = *org](size_t, httplib::DataSink& sink) {
        httplib::Response scratch;
        auto s = snapshot(a, org, scratch);
        std::string event =
            s ? "event: snapshot\ndata: " + protocol::render_inspector(*s) + "\n\n"
              : "event: error\ndata: " + scratch.body + "\n\n";
        if (!sink.write(event.data(), event.size()))
          return false;
        for (int i = 0; i < 10 && !a.stopping && sink.is_writable(); ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds{100});
        if (a.stopping || !sink.is_writable()) {
          sink.done();
          return false;
        }
        return true;
      });
}

std::string content_type(std::string_view file) {
  auto ends = [&](std::string_view ext) {
    return file.size() >= ext.size() && file.substr(file.size() - ext.size()) == ext;
  };
  if (ends(".html"))
    return "text/html; charset=utf-8";
  if (ends(".js"))
    return "text/javascript; charset=utf-8";
  if (ends(".css"))
    return "text/css; charset=utf-8";
  if (ends(".svg"))
    return "image/svg+xml";
  return "application/octet-stream";
}

void asset(const std::string& name, httplib::Response& res) {
  for (auto& [file, contents] : embedded::console_assets) {
    if (file == name) {
      res.set_content(std::string{contents}, content_type(file).c_str());
      return;
    }
  }
  reply_error(res, 404, "not_found", "no such console file");
}

} // namespace

void add_inspector_routes(httplib::Server& http, api& a) {
  http.Get("/api/v1/inspector", [&a](const httplib::Request& req,
                                     httplib::Response& res) { inspect(a, req, res); });
  http.Get(
      "/api/v1/inspector/stream",
      [&a](const httplib::Request& req, httplib::Response& res) { stream(a, req, res); });
  http.Get("/console", [](const httplib::Request&, httplib::Response& res) {
    asset("index.html", res);
  });
  http.Get(R"(/console/([A-Za-z0-9_.-]+))",
           [](const httplib::Request& req, httplib::Response& res) {
             asset(req.matches[1].str(), res);
           });
}

} // namespace belay
