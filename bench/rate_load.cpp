// The fixed-rate and fixed-count load generator of scripts/bench (wrk2 is not in Debian).
//
// Open loop: request i is *scheduled* at start + i/rate, whatever happened to earlier
// requests, and its latency is measured from that scheduled time, not from when a
// connection became free to send it. A server that stalls for a second is charged the whole
// second for every request that should have gone out meanwhile (no coordinated omission).
// With --rate 0 it is a closed loop instead: each connection sends as soon as its previous
// answer arrived (used with --count for "N alerts at once").
//
// Sending stops when --duration is over, even when the server has fallen behind the schedule:
// the requests still waiting to go out then are "missed", and each counts in the percentiles
// with the time it had waited so far, a lower bound of its real latency ("lowerBound":true).
//
// Prints one JSON object: sent, ok, errors, missed, statuses, elapsed, throughput, latency
// percentiles (ms) and the wall-clock times (µs since the epoch) of the first send and the
// last 2xx.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using steady = std::chrono::steady_clock;

int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

struct options {
  int port = 18401;
  std::string path = "/api/v1/incidents";
  std::string key = "bench-key";
  std::string prefix = "load";
  std::string policy = "bench-far";
  std::string format = "native"; // native | am (Alertmanager's POST /api/v2/alerts) |
                                 // amhook (Alertmanager's webhook to belay, one alert) |
                                 // hb (heartbeat pings: GET /hb/<prefix>-<i mod monitors>)
  long monitors = 1;             // hb: how many ping keys the requests go round;
                                 // amhook: how many alertnames the alerts go round
  double rate = 0;               // requests/s; 0 = closed loop
  double duration = 10;          // seconds of sending
  long count = 0;                // stop after this many requests (0 = no limit)
  int connections = 16;
  int retries = 0;  // resend after a transport error (no HTTP answer at all); dedup keys make
                    // this safe, as it is for any monitor that retries
  double cap = 120; // hard limit on the whole run, seconds
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: rate_load [--port N] [--path P] [--key K] [--prefix S] [--policy NAME]\n"
               "                 [--format native|am|amhook|hb] [--monitors N] [--rate R] [--duration S]\n"
               "                 [--count N] [--connections C] [--retries N] [--cap S]\n");
  std::exit(2);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc)
      usage();
    std::string f = argv[i], v = argv[i + 1];
    if (f == "--port")
      o.port = std::atoi(v.c_str());
    else if (f == "--path")
      o.path = v;
    else if (f == "--key")
      o.key = v;
    else if (f == "--prefix")
      o.prefix = v;
    else if (f == "--policy")
      o.policy = v;
    else if (f == "--format")
      o.format = v;
    else if (f == "--monitors")
      o.monitors = std::max(1L, std::atol(v.c_str()));
    else if (f == "--rate")
      o.rate = std::atof(v.c_str());
    else if (f == "--duration")
      o.duration = std::atof(v.c_str());
    else if (f == "--count")
      o.count = std::atol(v.c_str());
    else if (f == "--connections")
      o.connections = std::max(1, std::atoi(v.c_str()));
    else if (f == "--retries")
      o.retries = std::max(0, std::atoi(v.c_str()));
    else if (f == "--cap")
      o.cap = std::atof(v.c_str());
    else
      usage();
  }
  if (o.format != "native" && o.format != "am" && o.format != "amhook" && o.format != "hb")
    usage();
  return o;
}

std::string body(const options& o, long i) {
  auto k = o.prefix + "-" + std::to_string(i);
  if (o.format == "am")
    return R"([{"labels":{"alertname":"BenchAlert","instance":")" + k +
           R"(","job":"bench"},"annotations":{"summary":"bench )" + k + R"("}}])";
  if (o.format == "amhook")
    return R"({"version":"4","status":"firing","alerts":[{"status":"firing","fingerprint":")" +
           k + R"(","labels":{"alertname":"BenchAlert)" + std::to_string(i % o.monitors) +
           R"(","instance":")" + k + R"("},"annotations":{"summary":"bench )" + k + R"("}}]})";
  return R"({"dedupKey":")" + k + R"(","title":"bench )" + k + R"(","policy":")" + o.policy +
         R"(","severity":"critical"})";
}

struct worker_result {
  std::vector<double> latencies_ms;
  long ok = 0, errors = 0, retried = 0;
  std::map<int, long> statuses;
  std::map<std::string, long> transport_errors;
  int64_t last_ok_us = 0;
  steady::time_point last_done{};
};

} // namespace

int main(int argc, char** argv) {
  auto o = parse(argc, argv);
  std::atomic<long> next{0};
  auto start = steady::now() + std::chrono::milliseconds{50};
  auto stop_sending = start + std::chrono::duration_cast<steady::duration>(
                                std::chrono::duration<double>(o.duration));
  auto hard_stop = start + std::chrono::duration_cast<steady::duration>(
                             std::chrono::duration<double>(o.cap));
  auto interval = o.rate > 0 ? std::chrono::duration<double>(1.0 / o.rate)
                             : std::chrono::duration<double>(0);
  int64_t first_send_us = 0;
  std::vector<worker_result> results(static_cast<size_t>(o.connections));
  std::vector<std::thread> workers;
  for (int w = 0; w < o.connections; ++w) {
    workers.emplace_back([&, w] {
      auto& r = results[static_cast<size_t>(w)];
      httplib::Client cli{"127.0.0.1", o.port};
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);
      cli.set_connection_timeout(5, 0);
      cli.set_read_timeout(10, 0);
      httplib::Headers headers;
      if (o.format == "native" || o.format == "amhook")
        headers.emplace("Authorization", "Bearer " + o.key);
      for (;;) {
        long i = next.fetch_add(1);
        if (o.count > 0 && i >= o.count)
          break;
        auto scheduled =
          start + std::chrono::duration_cast<steady::duration>(interval * static_cast<double>(i));
        auto now = steady::now();
        if (o.rate > 0) {
          if (scheduled >= stop_sending)
            break;
          std::this_thread::sleep_until(scheduled);
          if (steady::now() >= stop_sending) {
            next.store(o.count > 0 ? o.count : LONG_MAX / 2); // nobody sends after the end
            break;
          }
        } else {
          if (now >= stop_sending)
            break;
          scheduled = std::max(now, start);
          std::this_thread::sleep_until(scheduled);
        }
        if (steady::now() >= hard_stop)
          break;
        if (i == 0)
          first_send_us = wall_us();
        auto send = [&] {
          if (o.format == "hb")
            return cli.Get(("/hb/" + o.prefix + "-" + std::to_string(i % o.monitors)).c_str());
          return cli.Post(o.path.c_str(), headers, body(o, i), "application/json");
        };
        auto res = send();
        for (int attempt = 0; !res && attempt < o.retries && steady::now() < hard_stop; ++attempt) {
          ++r.transport_errors[httplib::to_string(res.error())];
          ++r.retried;
          res = send();
        }
        if (!res)
          ++r.transport_errors[httplib::to_string(res.error())];
        auto done = steady::now();
        r.latencies_ms.push_back(
          std::chrono::duration<double, std::milli>(done - scheduled).count());
        r.last_done = std::max(r.last_done, done);
        int status = res ? res->status : 0;
        ++r.statuses[status];
        if (status >= 200 && status < 300) {
          ++r.ok;
          r.last_ok_us = std::max(r.last_ok_us, wall_us());
        } else {
          ++r.errors;
        }
      }
    });
  }
  for (auto& t : workers)
    t.join();

  std::vector<double> all;
  long ok = 0, errors = 0, retried = 0;
  int64_t last_ok_us = 0;
  std::map<int, long> statuses;
  std::map<std::string, long> transport_errors;
  auto last_done = start;
  for (auto& r : results) {
    all.insert(all.end(), r.latencies_ms.begin(), r.latencies_ms.end());
    ok += r.ok;
    errors += r.errors;
    last_ok_us = std::max(last_ok_us, r.last_ok_us);
    last_done = std::max(last_done, r.last_done);
    for (auto& [s, n] : r.statuses)
      statuses[s] += n;
    for (auto& [e, n] : r.transport_errors)
      transport_errors[e] += n;
    retried += r.retried;
  }
  // Every request scheduled before the end that never went out waited at least until then.
  long missed = 0;
  if (o.rate > 0) {
    auto scheduled_total = static_cast<long>(o.rate * o.duration);
    if (o.count > 0)
      scheduled_total = std::min(scheduled_total, o.count);
    for (long i = static_cast<long>(all.size()); i < scheduled_total; ++i, ++missed) {
      auto scheduled =
        start + std::chrono::duration_cast<steady::duration>(interval * static_cast<double>(i));
      all.push_back(std::chrono::duration<double, std::milli>(stop_sending - scheduled).count());
    }
  }
  std::sort(all.begin(), all.end());
  auto pct = [&all](double p) {
    if (all.empty())
      return 0.0;
    auto idx = static_cast<size_t>(p / 100.0 * static_cast<double>(all.size() - 1) + 0.5);
    return all[std::min(idx, all.size() - 1)];
  };
  double elapsed = std::chrono::duration<double>(last_done - start).count();
  std::string codes;
  for (auto& [s, n] : statuses)
    codes += (codes.empty() ? "" : ",") + std::string{"\""} + std::to_string(s) +
             "\":" + std::to_string(n);
  std::string transport;
  for (auto& [e, n] : transport_errors)
    transport += (transport.empty() ? "" : ",") + std::string{"\""} + e + "\":" + std::to_string(n);
  std::printf("{\"sent\":%zu,\"ok\":%ld,\"errors\":%ld,\"missed\":%ld,\"lowerBound\":%s,"
              "\"retried\":%ld,\"transportErrors\":{%s},"
              "\"statuses\":{%s},\"offeredRate\":%.1f,"
              "\"elapsedS\":%.3f,\"throughput\":%.1f,\"p50Ms\":%.3f,\"p90Ms\":%.3f,"
              "\"p99Ms\":%.3f,\"maxMs\":%.3f,\"firstSendUs\":%lld,\"lastOkUs\":%lld}\n",
              all.size() - static_cast<size_t>(missed), ok, errors, missed,
              missed > 0 ? "true" : "false", retried, transport.c_str(), codes.c_str(), o.rate,
              elapsed,
              elapsed > 0 ? static_cast<double>(ok) / elapsed : 0.0, pct(50), pct(90), pct(99),
              all.empty() ? 0.0 : all.back(), static_cast<long long>(first_send_us),
              static_cast<long long>(last_ok_us));
  return 0;
}
