#include "http/connections.hpp"

#include "actors/metrics.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <dirent.h>
#include <map>
#include <memory>
#include <mutex>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace belay {

namespace {

using steady = std::chrono::steady_clock;

enum class phase { between, request, streaming };

// One per HTTP thread: the request it serves, by its peer.
struct slot {
  std::mutex mutex;
  std::string peer; // "address port"
  phase state = phase::between;
  steady::time_point since;
};

std::string peer_of(const std::string& address, int port) {
  return address + " " + std::to_string(port);
}

// The peer of an accepted TCP socket on `port`, or empty for every other descriptor.
std::string accepted_peer(int fd, int port) {
  sockaddr_storage local{}, remote{};
  socklen_t len = sizeof local;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0)
    return {};
  int local_port = local.ss_family == AF_INET
                       ? ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port)
                   : local.ss_family == AF_INET6
                       ? ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port)
                       : -1;
  if (local_port != port)
    return {};
  int listening = 0;
  len = sizeof listening;
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening)
    return {};
  len = sizeof remote;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&remote), &len) != 0)
    return {};
  char host[NI_MAXHOST] = {};
  int remote_port = 0;
  if (remote.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&remote);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    remote_port = ntohs(in->sin_port);
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&remote);
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    remote_port = ntohs(in6->sin6_port);
  }
  return peer_of(host, remote_port);
}

// Calls `visit(fd, inode, peer)` for each socket of this process accepted on `port`,
// until it returns false.
template <class Visit> void for_each_accepted(int port, const Visit& visit) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir)
    return;
  while (auto* entry = readdir(dir)) {
    char* end = nullptr;
    long fd = std::strtol(entry->d_name, &end, 10);
    if (*end != '\0' || fd == dirfd(dir))
      continue;
    struct stat st {};
    if (fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode))
      continue;
    auto peer = accepted_peer(static_cast<int>(fd), port);
    if (!peer.empty() && !visit(static_cast<int>(fd), st.st_ino, peer))
      break;
  }
  closedir(dir);
}

} // namespace

struct connection_guard::impl {
  // Threads find their slot by the guard's id: a guard at a dead one's address is new.
  const uint64_t id = [] {
    static std::atomic<uint64_t> guards{0};
    return ++guards;
  }();
  std::chrono::milliseconds header, request;
  std::mutex mutex; // slots, stop
  std::vector<std::unique_ptr<slot>> slots;
  std::condition_variable wake;
  bool stop = false;
  std::thread watchdog;
  std::atomic<size_t> closed{0};
  std::map<ino_t, steady::time_point> first_seen; // the watchdog's own

  slot& mine() {
    thread_local std::map<uint64_t, slot*> by_guard;
    auto& s = by_guard[id];
    if (!s) {
      std::lock_guard lock{mutex};
      slots.push_back(std::make_unique<slot>());
      s = slots.back().get();
    }
    return *s;
  }

  void watch(int port) {
    auto period = std::min<std::chrono::milliseconds>(std::chrono::milliseconds{1000},
                                                      std::min(header, request) / 2);
    watchdog = std::thread{[this, port, period] {
      std::unique_lock lock{mutex};
      while (!wake.wait_for(lock, period, [this] { return stop; })) {
        lock.unlock();
        scan(port);
        lock.lock();
      }
    }};
  }

  // What the HTTP threads say of their requests, by peer.
  std::map<std::string, std::pair<phase, steady::time_point>> requests() {
    std::map<std::string, std::pair<phase, steady::time_point>> out;
    std::lock_guard lock{mutex};
    for (auto& s : slots) {
      std::lock_guard one{s->mutex};
      if (!s->peer.empty())
        out[s->peer] = {s->state, s->since};
    }
    return out;
  }

  void scan(int port) {
    auto now = steady::now();
    auto known = requests();
    std::map<ino_t, steady::time_point> seen;
    for_each_accepted(port, [&](int fd, ino_t inode, const std::string& peer) {
      auto first = first_seen.count(inode) ? first_seen[inode] : now;
      seen[inode] = first;
      auto deadline = first + header;
      if (auto it = known.find(peer); it != known.end()) {
        auto [state, since] = it->second;
        if (state == phase::streaming)
          return true;
        deadline = state == phase::request ? since + request
                                           : std::max(deadline, since + header);
      }
      if (now <= deadline)
        return true;
      struct stat again {};
      if (fstat(fd, &again) == 0 && again.st_ino == inode) {
        ::shutdown(fd, SHUT_RDWR);
        ++closed;
        metrics::count(metrics::name::http_deadline_closed_total);
        spdlog::info("http: closed the connection of {} (no request within the "
                     "deadline)",
                     peer);
      }
      return true;
    });
    first_seen = std::move(seen);
  }
};

int socket_of(const httplib::Request& req) {
  const auto wanted = peer_of(req.remote_addr, req.remote_port);
  int found = -1;
  for_each_accepted(req.local_port, [&](int fd, ino_t, const std::string& peer) {
    if (peer == wanted)
      found = fd;
    return found < 0;
  });
  return found;
}

void linger_after_reply(const httplib::Request& req, httplib::Response& res) {
  const int fd = socket_of(req);
  auto body = std::make_shared<std::string>(std::move(res.body));
  res.body.clear();
  auto type = res.get_header_value("Content-Type");
  res.set_header("Connection", "close");
  // The headers are on the socket by the time cpp-httplib asks for the body; the body
  // is written here, and then the connection lingers before cpp-httplib closes it.
  res.set_content_provider(
      body->size(), type.empty() ? "text/plain" : type.c_str(),
      [body, fd](size_t offset, size_t length, httplib::DataSink& sink) {
        sink.write(body->data() + offset, length);
        if (fd < 0 || ::shutdown(fd, SHUT_WR) != 0)
          return false;
        constexpr size_t most = 1 << 20;
        const auto until = steady::now() + std::chrono::seconds{2};
        char drop[16384];
        for (size_t dropped = 0; dropped < most;) {
          auto left =
              std::chrono::duration_cast<std::chrono::milliseconds>(until - steady::now())
                  .count();
          pollfd p{fd, POLLIN, 0};
          if (left <= 0 || poll(&p, 1, static_cast<int>(left)) <= 0)
            break;
          auto n = recv(fd, drop, sizeof drop, 0);
          if (n <= 0)
            break; // the client's end, or a reset: nothing more to wait for
          dropped += static_cast<size_t>(n);
        }
        return false;
      });
}

connection_guard::connection_guard(std::chrono::milliseconds header,
                                   std::chrono::milliseconds request)
    : impl_(new impl) {
  impl_->header = header;
  impl_->request = request;
}

connection_guard::~connection_guard() {
  {
    std::lock_guard lock{impl_->mutex};
    impl_->stop = true;
  }
  impl_->wake.notify_all();
  if (impl_->watchdog.joinable())
    impl_->watchdog.join();
}

void connection_guard::watch(int port) {
  impl_->watch(port);
}

void connection_guard::request_started(const httplib::Request& req) {
  auto& s = impl_->mine();
  auto peer = peer_of(req.remote_addr, req.remote_port);
  std::lock_guard lock{s.mutex};
  if (s.peer != peer)
    s.peer = std::move(peer);
  s.state = phase::request;
  s.since = steady::now();
}

void connection_guard::request_finished() {
  auto& s = impl_->mine();
  std::lock_guard lock{s.mutex};
  s.state = phase::between;
  s.since = steady::now();
}

void connection_guard::streaming() {
  auto& s = impl_->mine();
  std::lock_guard lock{s.mutex};
  s.state = phase::streaming;
}

size_t connection_guard::closed() const {
  return impl_->closed;
}

} // namespace belay
