// The pipeline floor of scripts/bench: the least any server that group-commits can do for
// an event over HTTP, on this machine. cpp-httplib with belay's server settings (as
// bench/http_floor.cpp) parses each POST as belay does (protocol::parse_trigger_request)
// and hands the event to the incident lane's writer threads (as many as belay has for
// --db-connections); a writer takes everything handed to it so far, writes it with
// belay's own trigger statement in one durable commit (storage::upsert_triggers, as
// bench/storage_floor.cpp) and wakes each request's thread, which answers 201. Two thread
// hand-offs an event and nothing else: no actors, no registry, no timers. Whatever belay
// spends above this is its shape and its features.
//
//   belay_pipeline_floor --database-url URL [--port 18405] [--threads 64]
//                        [--db-connections 4] [--org bench]

#include "actors/trigger_lane.hpp"
#include "bench/belay_like_server.hpp"
#include "bench/floor.hpp"
#include "protocol/incident_request.hpp"
#include "storage/db.hpp"
#include "storage/incidents.hpp"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <httplib.h>
#include <mutex>
#include <string>
#include <vector>

namespace {

using namespace belay;

struct handed_event {
  storage::trigger_event event;
  std::promise<bool> written;
};

// What the request threads hand to the writers.
struct writer_queue {
  std::mutex m;
  std::condition_variable wake;
  std::vector<handed_event*> waiting;
};

void write_forever(const std::string& url, writer_queue& l) try {
  storage::connection c{url};
  storage::trigger_hints hints;
  bench::mark_sequence marks;
  for (;;) {
    std::vector<handed_event*> taken;
    {
      std::unique_lock<std::mutex> lock(l.m);
      l.wake.wait(lock, [&] { return !l.waiting.empty(); });
      taken.swap(l.waiting);
    }
    std::vector<storage::trigger_event> batch;
    for (auto* h : taken)
      batch.push_back(h->event);
    auto mark = marks.next(batch.front().at);
    bool ok = true;
    try {
      for (auto& r : storage::upsert_triggers(c, batch, mark, hints))
        ok = ok && r.code == reply_code::ok;
      marks.committed(mark);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "belay_pipeline_floor: %s\n", e.what());
      ok = false;
    }
    for (auto* h : taken)
      h->written.set_value(ok);
  }
} catch (const std::exception& e) { // the connection: no floor without it
  std::fprintf(stderr, "belay_pipeline_floor: %s\n", e.what());
  std::exit(1);
}

// The event of a POST body, parsed as belay's handler parses it; false when belay would
// refuse it.
bool parse_event(const std::string& body, int64_t org_id, storage::trigger_event& e) {
  auto parsed = protocol::parse_trigger_request(body);
  auto* t = std::get_if<0>(&parsed);
  if (!t)
    return false;
  e = bench::stamped({org_id, t->dedup_key, t->title, t->severity, t->policy,
                      t->details_json, t->payload_json, false},
                     "pipeline-floor");
  return true;
}

} // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: belay_pipeline_floor --database-url URL [--port N] "
                      "[--threads N] [--db-connections N] [--org NAME]\n";
  auto flags = bench::flags_or_exit(argc, argv, usage, {"--database-url"});
  auto url = flags["--database-url"];
  int port = flags.count("--port") ? std::atoi(flags["--port"].c_str()) : 18405;
  int threads = flags.count("--threads") ? std::atoi(flags["--threads"].c_str()) : 64;
  int connections =
      flags.count("--db-connections") ? std::atoi(flags["--db-connections"].c_str()) : 4;
  auto org = flags.count("--org") ? flags["--org"] : std::string{"bench"};
  if (port <= 0 || threads < 1 || connections < 1) {
    std::fprintf(stderr, "%s", usage);
    return 2;
  }
  int64_t org_id = 0;
  try {
    org_id = bench::org_id(url, org);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "belay_pipeline_floor: %s\n", e.what());
    return 1;
  }

  writer_queue l;
  auto writers = incident_lane_size(static_cast<size_t>(connections));
  for (size_t i = 0; i < writers; ++i)
    std::thread([&url, &l] { write_forever(url, l); }).detach();

  httplib::Server http;
  belay_bench::configure_like_belay(http, threads);
  http.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"status":"ok"})", "application/json");
  });
  http.Post(R"(/.*)", [&](const httplib::Request& req, httplib::Response& res) {
    handed_event h;
    if (!parse_event(req.body, org_id, h.event)) {
      res.status = 400;
      return;
    }
    auto written = h.written.get_future();
    {
      std::lock_guard<std::mutex> lock(l.m);
      l.waiting.push_back(&h);
    }
    l.wake.notify_one();
    bool ok = written.get();
    res.status = ok ? 201 : 503;
    res.set_content(ok ? R"({"status":"open"})" : R"({"error":"not written"})",
                    "application/json");
  });
  return belay_bench::listen_like_belay(http, port, "belay_pipeline_floor");
}
