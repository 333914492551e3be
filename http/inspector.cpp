// The inspector: a live view of this node's actors as JSON, as server-sent events,
// and as the console page (assets compiled into the binary).
#include "actors/actors.hpp"
#include "actors/metrics.hpp"
#include "actors/org_counts.hpp"
#include "http/admission.hpp"
#include "http/connections.hpp"
#include "http/keys.hpp"
#include "http/respond.hpp"
#include "protocol/inspector_json.hpp"
#include "storage/contacts.hpp"
#include "storage/db.hpp"
#include "storage/deliveries.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
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

// The contacts a snapshot names, however many a storm holds (docs/http.md#inspector).
constexpr int throttled_shown = 200;

// Asks the actors (not the database) what they hold; only the dead-letter list and the
// throttled contacts (the org's, on every node) are read from storage.
std::optional<inspector_snapshot> snapshot(api& a, int64_t org, httplib::Response& res) {
  inspector_snapshot s;
  s.node = a.node;
  s.node.now = system_now();
  auto incidents =
      ask<std::vector<incident_view>>(a, a.registry, res, atom::views_v, org);
  auto channels =
      ask<std::vector<channel_view>>(a, a.dispatcher, res, atom::views_v, org);
  if (!incidents || !channels)
    return std::nullopt;
  // The org's own counts: another org's incidents are not even counted here.
  s.registry = org_counts::of(a.registry.id(), org);
  s.registry.held = incidents->size();
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
    s.throttled = storage::throttled_contacts(*conn, org, throttled_shown);
  }
  s.storage = {a.storage_workers, a.db.size(), a.db.busy()};
  return s;
}

void inspect(api& a, const caller& who, const httplib::Request&, httplib::Response& res) {
  if (auto s = snapshot(a, who.org_id, res))
    reply_json(res, 200, protocol::render_inspector(*s));
}

// The live streams of one node share their snapshots: one per org a tick, however many
// consoles watch it, taken by whichever stream finds the last one a tick old (the
// others of that org wait for it and send the same bytes).
class stream_hub {
public:
  using event = std::shared_ptr<const std::string>;

  event latest(api& a, int64_t org) {
    std::shared_ptr<entry> e;
    {
      std::lock_guard lock{mutex_};
      auto& slot = entries_[{&a, org}];
      if (!slot)
        slot = std::make_shared<entry>();
      e = slot;
    }
    std::lock_guard lock{e->mutex}; // one org's streams only; held while it is taken
    auto now = std::chrono::steady_clock::now();
    if (e->current && now - e->taken_at < tick - std::chrono::milliseconds{50})
      return e->current;
    httplib::Response scratch;
    auto s = snapshot(a, org, scratch);
    e->current = std::make_shared<const std::string>(
        s ? "event: snapshot\ndata: " + protocol::render_inspector(*s) + "\n\n"
          : "event: error\ndata: " + scratch.body + "\n\n");
    e->taken_at = now;
    metrics::count(metrics::name::inspector_snapshots_total);
    return e->current;
  }

  // Streams may hold at most this many HTTP threads at once (the rest serve ingest).
  bool enter(size_t limit) {
    std::lock_guard lock{mutex_};
    if (open_ >= limit)
      return false;
    ++open_;
    return true;
  }
  void leave() {
    std::lock_guard lock{mutex_};
    --open_;
  }

  static constexpr std::chrono::milliseconds tick{1000};

private:
  struct entry {
    std::mutex mutex;
    event current;
    std::chrono::steady_clock::time_point taken_at;
  };
  std::mutex mutex_;
  std::map<std::pair<const api*, int64_t>, std::shared_ptr<entry>> entries_;
  size_t open_ = 0;
};

stream_hub& hub() {
  static stream_hub h;
  return h;
}

// One snapshot a second, as server-sent events, until the client goes or we stop.
void stream(api& a, const caller& who, const httplib::Request& req,
            httplib::Response& res) {
  if (!hub().enter(a.max_streams)) {
    res.set_header("Retry-After", "5");
    return reply_error(res, 503, "too_many_streams",
                       "this node serves " + std::to_string(a.max_streams) +
                           " live streams at most; retry later or poll "
                           "/api/v1/inspector");
  }
  if (a.connections)
    a.connections->streaming();
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [&a, org = who.org_id,
       session = who.kind == protocol::credential::session
                     ? cookie_value(req, session_cookie)
                     : std::string{}](size_t, httplib::DataSink& sink) {
        // A session's stream ends with its session (a logout, on any node: within the
        // key cache's 10 s).
        if (!session.empty() && !a.keys.admit_session(session, now(a)).found) {
          sink.done();
          return false;
        }
        auto event = hub().latest(a, org);
        if (!sink.write(event->data(), event->size()))
          return false;
        for (int i = 0; i < 10 && !a.stopping && sink.is_writable(); ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds{100});
        if (a.stopping || !sink.is_writable()) {
          sink.done();
          return false;
        }
        return true;
      },
      [](bool) { hub().leave(); });
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

void add_inspector_routes(routes& http, api& a) {
  using R = const httplib::Request&;
  using W = httplib::Response&;
  http.Get("/api/v1/inspector", access::read,
           [&a](const caller& c, R req, W res) { inspect(a, c, req, res); });
  http.Get("/api/v1/inspector/stream", access::read,
           [&a](const caller& c, R req, W res) { stream(a, c, req, res); });
  http.Get("/console", [](const httplib::Request&, httplib::Response& res) {
    asset("index.html", res);
  });
  http.Get(R"(/console/([A-Za-z0-9_.-]+))",
           [](const httplib::Request& req, httplib::Response& res) {
             asset(req.matches[1].str(), res);
           });
}

} // namespace belay
