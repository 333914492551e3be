#include "tests/support/fault_proxy.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <list>
#include <mutex>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdexcept>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace belay::test {

namespace {

// Calls `f(type, body)` for each whole frontend message at the start of `bytes`; stops at
// the first thing that is not one (a startup packet, a message cut off by the read).
template <class F> void for_each_message(std::string_view bytes, F&& f) {
  while (bytes.size() >= 5 && std::isalpha(static_cast<unsigned char>(bytes[0]))) {
    auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + 1);
    std::uint32_t length = std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 |
                           std::uint32_t(p[2]) << 8 | std::uint32_t(p[3]);
    if (length < 4 || length - 4 > bytes.size() - 5)
      return;
    if (!f(bytes[0], bytes.substr(5, length - 4)))
      return;
    bytes.remove_prefix(1 + length);
  }
}

// The NUL-terminated string at the start of `body` (all of it if there is no NUL).
std::string_view cstring(std::string_view body) {
  return body.substr(0, body.find('\0'));
}

std::string_view skip_space_and_comments(std::string_view sql) {
  for (;;) {
    while (!sql.empty() && std::isspace(static_cast<unsigned char>(sql[0])))
      sql.remove_prefix(1);
    if (sql.substr(0, 2) == "--") {
      auto end = sql.find('\n');
      sql.remove_prefix(end == std::string_view::npos ? sql.size() : end);
    } else if (sql.substr(0, 2) == "/*") {
      auto end = sql.find("*/", 2);
      sql.remove_prefix(end == std::string_view::npos ? sql.size() : end + 2);
    } else {
      return sql;
    }
  }
}

bool starts_with_word(std::string_view statement, std::string_view word) {
  if (statement.size() < word.size())
    return false;
  for (size_t i = 0; i < word.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(statement[i])) != word[i])
      return false;
  return statement.size() == word.size() ||
         !(std::isalnum(static_cast<unsigned char>(statement[word.size()])) ||
           statement[word.size()] == '_');
}

// Whether any statement of `sql` is COMMIT or END. Statements are split at semicolons
// outside quotes; dollar quoting is not understood (belay does not send it).
bool commits(std::string_view sql) {
  size_t start = 0;
  char quote = 0;
  for (size_t i = 0; i <= sql.size(); ++i) {
    char ch = i < sql.size() ? sql[i] : ';';
    if (quote) {
      if (ch == quote)
        quote = 0;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
    } else if (ch == ';') {
      auto statement = skip_space_and_comments(sql.substr(start, i - start));
      if (starts_with_word(statement, "COMMIT") || starts_with_word(statement, "END"))
        return true;
      start = i + 1;
    }
  }
  return false;
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Closes with SO_LINGER 0: a TCP peer gets RST, not FIN.
void reset_close(int fd) {
  if (fd < 0)
    return;
  linger hard{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  close(fd);
}

void wake_up(int eventfd_fd) {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = write(eventfd_fd, &one, sizeof one);
}

void drain(int eventfd_fd) {
  std::uint64_t count;
  [[maybe_unused]] auto n = read(eventfd_fd, &count, sizeof count);
}

int make_eventfd() {
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0)
    throw std::runtime_error(std::string("fault_proxy: eventfd: ") +
                             std::strerror(errno));
  return fd;
}

using steady = std::chrono::steady_clock;

} // namespace

bool contains_commit(std::string_view client_bytes) {
  bool found = false;
  for_each_message(client_bytes, [&](char type, std::string_view body) {
    if (type == 'Q')
      found = commits(cstring(body));
    else if (type == 'P') // statement name, then the query
      found =
          commits(cstring(body.substr(std::min(body.size(), cstring(body).size() + 1))));
    return !found;
  });
  return found;
}

bool ends_statement(std::string_view client_bytes) {
  bool executed = false, found = false;
  for_each_message(client_bytes, [&](char type, std::string_view) {
    executed = executed || type == 'E';
    found = type == 'Q' || (type == 'S' && executed);
    return !found;
  });
  return found;
}

struct fault_proxy::impl {
  struct connection {
    int client = -1;
    int wake = make_eventfd();
    std::uint64_t generation = 0; // reset_all generation when accepted
    bool finished = false;
    bool stalled = false; // stall_open(): held for the rest of its life
    std::thread thread;
    ~connection() { close(wake); }
  };

  // One way of a connection: bytes read from `from` wait in `pending` until `due`.
  struct direction {
    direction(int from, int to, bool up) : from(from), to(to), up(up) {}
    int from, to;
    bool up; // client → upstream
    std::string pending;
    size_t written = 0;
    steady::time_point due;
    bool read_closed = false;
    bool write_closed = false;
  };

  enum class ending { none, graceful, reset };

  sockaddr_storage upstream_address{};
  socklen_t upstream_length = 0;
  bool upstream_tcp = true;
  int listener = -1;
  int listener_wake = -1;
  int port = 0;
  std::thread acceptor;

  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  bool stopping = false;
  bool stalled = false;
  bool refusing = false;
  std::chrono::milliseconds latency{0};
  std::uint64_t reset_generation = 0;
  fault_trigger armed;
  std::uint64_t fired = 0;
  proxy_connections counts;
  proxy_traffic traffic;
  std::list<std::unique_ptr<connection>> open;

  ~impl() {
    if (listener >= 0)
      close(listener);
    if (listener_wake >= 0)
      close(listener_wake);
  }

  void resolve(const std::string& upstream) {
    if (!upstream.empty() && upstream[0] == '/') {
      sockaddr_un address{};
      if (upstream.size() >= sizeof address.sun_path)
        throw std::runtime_error("fault_proxy: socket path too long: " + upstream);
      address.sun_family = AF_UNIX;
      std::memcpy(address.sun_path, upstream.c_str(), upstream.size() + 1);
      std::memcpy(&upstream_address, &address, sizeof address);
      upstream_length = sizeof address;
      upstream_tcp = false;
      return;
    }
    auto colon = upstream.rfind(':');
    if (colon == std::string::npos)
      throw std::runtime_error("fault_proxy: upstream is neither host:port nor a path: " +
                               upstream);
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    int rc = getaddrinfo(upstream.substr(0, colon).c_str(),
                         upstream.substr(colon + 1).c_str(), &hints, &found);
    if (rc != 0 || !found)
      throw std::runtime_error("fault_proxy: cannot resolve " + upstream + ": " +
                               gai_strerror(rc));
    std::memcpy(&upstream_address, found->ai_addr, found->ai_addrlen);
    upstream_length = found->ai_addrlen;
    freeaddrinfo(found);
  }

  void listen_on_loopback() {
    listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listener < 0)
      throw std::runtime_error(std::string("fault_proxy: socket: ") +
                               std::strerror(errno));
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (bind(listener, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        ::listen(listener, SOMAXCONN) != 0 ||
        getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      auto message =
          std::string("fault_proxy: cannot listen on 127.0.0.1: ") + std::strerror(errno);
      throw std::runtime_error(message);
    }
    port = ntohs(address.sin_port);
  }

  void accept_loop() {
    for (;;) {
      pollfd fds[2] = {{listener, POLLIN, 0}, {listener_wake, POLLIN, 0}};
      if (poll(fds, 2, -1) < 0 && errno != EINTR)
        return;
      if (fds[1].revents)
        drain(listener_wake);
      std::list<std::unique_ptr<connection>> done;
      {
        std::lock_guard lock{mutex};
        if (stopping)
          return;
        for (auto it = open.begin(); it != open.end();) {
          auto next = std::next(it);
          if ((*it)->finished)
            done.splice(done.end(), open, it);
          it = next;
        }
      }
      for (auto& c : done)
        c->thread.join();
      if (fds[0].revents & POLLIN)
        accept_one();
    }
  }

  void accept_one() {
    int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (client < 0)
      return;
    std::lock_guard lock{mutex};
    ++counts.accepted;
    if (refusing) {
      ++counts.refused;
      reset_close(client);
      return;
    }
    auto c = std::make_unique<connection>();
    c->client = client;
    c->generation = reset_generation;
    c->thread = std::thread([this, raw = c.get()] { serve(*raw); });
    open.push_back(std::move(c));
    ++counts.open;
  }

  // What the connection must do now because of the test's controls.
  ending told(const connection& c) const {
    if (stopping)
      return ending::graceful;
    if (reset_generation > c.generation)
      return ending::reset;
    return ending::none;
  }

  // A non-blocking connect that gives up when the connection is told to end.
  int connect_upstream(connection& c) {
    int fd =
        socket(upstream_address.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
      return -1;
    if (connect(fd, reinterpret_cast<const sockaddr*>(&upstream_address),
                upstream_length) == 0)
      return fd;
    if (errno != EINPROGRESS && errno != EAGAIN) {
      close(fd);
      return -1;
    }
    for (;;) {
      pollfd fds[2] = {{fd, POLLOUT, 0}, {c.wake, POLLIN, 0}};
      if (poll(fds, 2, -1) < 0 && errno != EINTR)
        break;
      if (fds[1].revents) {
        drain(c.wake);
        std::lock_guard lock{mutex};
        if (told(c) != ending::none)
          break;
      }
      if (fds[0].revents) {
        int error = 0;
        socklen_t length = sizeof error;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error == 0)
          return fd;
        break;
      }
    }
    close(fd);
    return -1;
  }

  struct chunk_rules {
    bool fires = false; // the armed fault fires on these bytes (and is now disarmed)
    std::chrono::milliseconds latency{0};
  };

  // Decided when a chunk is read, so that a control set while a connection waits in
  // poll applies to the bytes that wake it.
  chunk_rules rules_for(std::string_view bytes, bool up) {
    std::lock_guard lock{mutex};
    chunk_rules rules{false, latency};
    if (up && armed && armed(bytes)) {
      armed = nullptr;
      ++fired;
      rules.fires = true;
      changed.notify_all();
    }
    return rules;
  }

  void count_forwarded(const direction& d) {
    std::lock_guard lock{mutex};
    (d.up ? traffic.bytes_up : traffic.bytes_down) += d.pending.size();
    ++(d.up ? traffic.chunks_up : traffic.chunks_down);
    changed.notify_all();
  }

  void count_dropped(size_t bytes) {
    std::lock_guard lock{mutex};
    traffic.bytes_dropped += bytes;
    changed.notify_all();
  }

  void serve(connection& c) {
    int upstream = connect_upstream(c);
    auto end = upstream < 0 ? ending::reset : pump(c, upstream);
    if (end == ending::reset) {
      reset_close(c.client);
      reset_close(upstream);
    } else {
      close(c.client);
      if (upstream >= 0)
        close(upstream);
    }
    std::lock_guard lock{mutex};
    c.finished = true;
    --counts.open;
    changed.notify_all();
    wake_up(listener_wake); // to join this thread
  }

  // Forwards both ways until either side closes or the test ends the connection.
  ending pump(connection& c, int upstream) {
    set_nodelay(c.client);
    if (upstream_tcp)
      set_nodelay(upstream);
    direction up{c.client, upstream, true};
    direction down{upstream, c.client, false};
    bool dropping = false; // the fault fired: swallow the reply, then reset
    char buffer[64 * 1024];
    for (;;) {
      bool hold;
      {
        std::lock_guard lock{mutex};
        if (auto end = told(c); end != ending::none)
          return end;
        hold = stalled || c.stalled;
      }
      pollfd fds[3] = {{c.wake, POLLIN, 0}};
      nfds_t count = 1;
      int reading[2] = {-1, -1}, writing[2] = {-1, -1};
      int timeout = -1;
      direction* ways[2] = {&up, &down};
      auto now = steady::now();
      for (int i = 0; i < 2 && !hold; ++i) {
        auto& d = *ways[i];
        // Once the fault fired, the client is not read again, and the upstream only once
        // the matching bytes are all written: what it sends then is their reply.
        bool held = dropping && (d.up || !up.pending.empty());
        if (d.pending.empty()) {
          if (!d.read_closed && !held) {
            reading[i] = count;
            fds[count++] = {d.from, POLLIN, 0};
          }
        } else if (now >= d.due) {
          writing[i] = count;
          fds[count++] = {d.to, POLLOUT, 0};
        } else {
          auto wait = std::chrono::ceil<std::chrono::milliseconds>(d.due - now).count();
          timeout = timeout < 0 ? int(wait) : std::min(timeout, int(wait));
        }
      }
      if (poll(fds, count, timeout) < 0 && errno != EINTR)
        return ending::reset;
      if (fds[0].revents)
        drain(c.wake);
      for (int i = 0; i < 2; ++i) {
        auto& d = *ways[i];
        if (reading[i] >= 0 && fds[reading[i]].revents) {
          auto n = recv(d.from, buffer, sizeof buffer, 0);
          if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
          if (n < 0)
            return ending::reset;
          if (!d.up && dropping) {
            count_dropped(size_t(n));
            return ending::reset;
          }
          if (n == 0) {
            d.read_closed = true;
            continue;
          }
          std::string_view bytes{buffer, size_t(n)};
          auto rules = rules_for(bytes, d.up);
          dropping = dropping || rules.fires;
          d.pending.assign(bytes);
          d.written = 0;
          d.due = steady::now() + rules.latency;
        }
        if (writing[i] >= 0 && fds[writing[i]].revents) {
          auto n = send(d.to, d.pending.data() + d.written, d.pending.size() - d.written,
                        MSG_NOSIGNAL);
          if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
          if (n < 0)
            return ending::reset;
          d.written += size_t(n);
          if (d.written == d.pending.size()) {
            count_forwarded(d);
            d.pending.clear();
          }
        }
      }
      for (auto* d : ways)
        if (d->read_closed && d->pending.empty() && !d->write_closed) {
          shutdown(d->to, SHUT_WR);
          d->write_closed = true;
        }
      if (dropping && down.read_closed)
        return ending::reset; // the upstream closed without a reply
      if (up.write_closed && down.write_closed)
        return ending::graceful;
    }
  }
};

fault_proxy::fault_proxy(std::string upstream) : impl_(std::make_unique<impl>()) {
  impl_->resolve(upstream);
  impl_->listen_on_loopback();
  impl_->listener_wake = make_eventfd();
  impl_->acceptor = std::thread([this] { impl_->accept_loop(); });
}

fault_proxy::~fault_proxy() {
  {
    std::lock_guard lock{impl_->mutex};
    impl_->stopping = true;
    wake_up(impl_->listener_wake);
    for (auto& c : impl_->open)
      wake_up(c->wake);
  }
  impl_->acceptor.join();
  // The acceptor is gone: nobody else touches the list now.
  for (auto& c : impl_->open)
    c->thread.join();
  impl_->open.clear();
}

std::string fault_proxy::postgres_socket(const std::string& dir, int port) {
  return dir + "/.s.PGSQL." + std::to_string(port);
}

int fault_proxy::port() const {
  return impl_->port;
}

proxy_connections fault_proxy::connections() const {
  std::lock_guard lock{impl_->mutex};
  return impl_->counts;
}

proxy_traffic fault_proxy::traffic() const {
  std::lock_guard lock{impl_->mutex};
  return impl_->traffic;
}

void fault_proxy::drop_reply_after(fault_trigger trigger) {
  std::lock_guard lock{impl_->mutex};
  impl_->armed = std::move(trigger);
}

std::uint64_t fault_proxy::drops() const {
  std::lock_guard lock{impl_->mutex};
  return impl_->fired;
}

bool fault_proxy::wait_for_drops(std::uint64_t n,
                                 std::chrono::milliseconds timeout) const {
  std::unique_lock lock{impl_->mutex};
  return impl_->changed.wait_for(lock, timeout, [&] { return impl_->fired >= n; });
}

void fault_proxy::reset_all() {
  std::unique_lock lock{impl_->mutex};
  auto generation = ++impl_->reset_generation;
  for (auto& c : impl_->open)
    wake_up(c->wake);
  impl_->changed.wait(lock, [&] {
    return std::all_of(impl_->open.begin(), impl_->open.end(), [&](auto& c) {
      return c->finished || c->generation >= generation;
    });
  });
}

void fault_proxy::stall(bool on) {
  std::lock_guard lock{impl_->mutex};
  impl_->stalled = on;
  for (auto& c : impl_->open)
    wake_up(c->wake);
}

void fault_proxy::stall_open() {
  std::lock_guard lock{impl_->mutex};
  for (auto& c : impl_->open) {
    c->stalled = true;
    wake_up(c->wake);
  }
}

void fault_proxy::refuse(bool on) {
  std::lock_guard lock{impl_->mutex};
  impl_->refusing = on;
}

void fault_proxy::delay(std::chrono::milliseconds d) {
  std::lock_guard lock{impl_->mutex};
  impl_->latency = d;
}

bool fault_proxy::wait_for_open(std::uint64_t n,
                                std::chrono::milliseconds timeout) const {
  std::unique_lock lock{impl_->mutex};
  return impl_->changed.wait_for(lock, timeout, [&] { return impl_->counts.open <= n; });
}

bool fault_proxy::wait_for_traffic(const std::function<bool(const proxy_traffic&)>& done,
                                   std::chrono::milliseconds timeout) const {
  std::unique_lock lock{impl_->mutex};
  return impl_->changed.wait_for(lock, timeout, [&] { return done(impl_->traffic); });
}

} // namespace belay::test
