// The delivery sink of scripts/bench: answers every POST with 200 and counts it, so a
// scenario can ask how many pages arrived and when. Both belay's webhook channel and
// Alertmanager's webhook receiver point here.
//   GET /count     {"count":n,"distinct":n,"alerts":n,"firstUs":t,"lastUs":t,"nowUs":t}
//   GET /messages  {"messages":[{"us":t,"to":"…","body":"…"},…]}: the texts posted to a
//                  Twilio-style …/Messages.json (belay's sms channel), in arrival order
//   DELETE /count  zeroes everything (the messages too)
// Times are microseconds since the epoch (CLOCK_REALTIME), comparable with the load tools.
#include <httplib.h>

#include <dirent.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>

namespace {

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

size_t occurrences(const std::string& haystack, const char* needle) {
  size_t n = 0, len = std::strlen(needle);
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + len))
    ++n;
  return n;
}

struct tally {
  std::mutex mutex;
  int64_t count = 0;
  int64_t alerts = 0; // Alertmanager bodies carry one "fingerprint" per alert
  int64_t first_us = 0;
  int64_t last_us = 0;
  std::unordered_set<std::string> keys; // Idempotency-Key headers seen (belay's webhook)
  std::string messages;                  // JSON objects of the texts, comma-separated
};

// The JSON string of `text`, quoted (the texts are belay's own, but a title may hold
// anything).
std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Debian's libcpp-httplib listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, compiled
// into the library). Alertmanager opens a connection per notification, hundreds at once; with
// a backlog of 5 the kernel drops their SYNs and the sink, not the sender, sets the pace.
// listen() again on the bound socket raises the backlog.
void widen_backlog(int backlog) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir)
    return;
  while (auto* entry = readdir(dir)) {
    int fd = std::atoi(entry->d_name);
    int accepting = 0;
    socklen_t len = sizeof accepting;
    if (fd > 2 && getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &len) == 0 && accepting)
      ::listen(fd, backlog);
  }
  closedir(dir);
}

} // namespace

int main(int argc, char** argv) {
  int port = 18403;
  int threads = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--port")
      port = std::atoi(argv[i + 1]);
    else if (flag == "--threads")
      threads = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: sink [--port N] [--threads N]\n");
      return 2;
    }
  }
  tally t;
  httplib::Server http;
  http.set_tcp_nodelay(true);
  http.set_keep_alive_timeout(1); // an idle keep-alive connection holds a pool thread
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.Get("/count", [&t](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock{t.mutex};
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  R"({"count":%lld,"distinct":%zu,"alerts":%lld,"firstUs":%lld,"lastUs":%lld,"nowUs":%lld})",
                  static_cast<long long>(t.count), t.keys.size(),
                  static_cast<long long>(t.alerts), static_cast<long long>(t.first_us),
                  static_cast<long long>(t.last_us), static_cast<long long>(now_us()));
    res.set_content(buf, "application/json");
  });
  http.Delete("/count", [&t](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock{t.mutex};
    t.count = t.alerts = t.first_us = t.last_us = 0;
    t.keys.clear();
    t.messages.clear();
    res.set_content(R"({"count":0})", "application/json");
  });
  http.Get("/messages", [&t](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock{t.mutex};
    res.set_content("{\"messages\":[" + t.messages + "]}", "application/json");
  });
  http.Post(R"(/.*)", [&t](const httplib::Request& req, httplib::Response& res) {
    auto at = now_us();
    auto alerts = static_cast<int64_t>(occurrences(req.body, "\"fingerprint\""));
    {
      std::lock_guard<std::mutex> lock{t.mutex};
      if (t.count++ == 0)
        t.first_us = at;
      t.last_us = at;
      t.alerts += alerts;
      auto key = req.get_header_value("Idempotency-Key");
      if (!key.empty())
        t.keys.insert(key);
      if (req.path.size() >= 14 && req.path.compare(req.path.size() - 14, 14, "/Messages.json") == 0) {
        if (!t.messages.empty())
          t.messages += ',';
        httplib::Params form; // the request's form fields (httplib parses only the query)
        httplib::detail::parse_query_text(req.body, form);
        auto field = [&form](const char* name) {
          auto it = form.find(name);
          return it == form.end() ? std::string{} : it->second;
        };
        t.messages += "{\"us\":" + std::to_string(at) + ",\"to\":" + json_string(field("To")) +
                      ",\"body\":" + json_string(field("Body")) + "}";
      }
    }
    res.set_content("ok", "text/plain");
  });
  if (!http.bind_to_port("127.0.0.1", port)) {
    std::fprintf(stderr, "sink: cannot listen on 127.0.0.1:%d\n", port);
    return 1;
  }
  widen_backlog(4096);
  return http.listen_after_bind() ? 0 : 1;
}
