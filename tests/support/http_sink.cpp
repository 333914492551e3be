#include "tests/support/http_sink.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <httplib.h>
#include <mutex>
#include <stdexcept>
#include <strings.h>
#include <thread>

namespace belay::test {

bool case_insensitive_less::operator()(const std::string& a, const std::string& b) const {
  return strcasecmp(a.c_str(), b.c_str()) < 0;
}

std::string recorded_request::header(const std::string& name) const {
  auto found = headers.find(name);
  return found == headers.end() ? std::string() : found->second;
}

bool recorded_request::has_header(const std::string& name) const {
  return headers.count(name) > 0;
}

struct http_sink::impl {
  httplib::Server server;
  std::thread listener;
  std::atomic<bool> listen_returned{false};
  int port = 0;

  mutable std::mutex mutex;
  mutable std::condition_variable changed; // a request arrived, or the sink stops
  std::vector<recorded_request> received;
  std::deque<sink_response> scripted;
  sink_response fallback;
  std::chrono::milliseconds extra_delay{0};
  bool stopping = false;
  std::function<void(const recorded_request&)> observer;

  void handle(const httplib::Request& req, httplib::Response& res) {
    recorded_request record;
    record.method = req.method;
    record.path = req.path;
    for (const auto& [name, value] : req.headers)
      record.headers.emplace(name, value);
    record.body = req.body;
    record.at = std::chrono::steady_clock::now();
    if (observer)
      observer(record);

    std::unique_lock<std::mutex> lock(mutex);
    received.push_back(std::move(record));
    sink_response answer = fallback;
    if (!scripted.empty()) {
      answer = std::move(scripted.front());
      scripted.pop_front();
    }
    changed.notify_all();
    // Waits on the condition variable, so the destructor never waits out a delay.
    auto delay = answer.delay + extra_delay;
    if (delay.count() > 0)
      changed.wait_for(lock, delay, [this] { return stopping; });
    lock.unlock();

    res.status = answer.status;
    res.set_content(answer.body, "text/plain");
  }
};

http_sink::http_sink() : impl_(std::make_unique<impl>()) {
  auto& server = impl_->server;
  server.set_tcp_nodelay(true);
  server.set_keep_alive_timeout(1);
  // Delayed answers hold a worker each: leave room for concurrent clients.
  server.new_task_queue = [] { return new httplib::ThreadPool(16); };
  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    impl_->handle(req, res);
  };
  server.Get(".*", handler);
  server.Post(".*", handler);
  server.Put(".*", handler);
  server.Patch(".*", handler);
  server.Delete(".*", handler);
  impl_->port = server.bind_to_any_port("127.0.0.1");
  if (impl_->port <= 0)
    throw std::runtime_error("http_sink: cannot bind 127.0.0.1");
  impl_->listener = std::thread([this] {
    impl_->server.listen_after_bind();
    impl_->listen_returned = true;
  });
  // stop() is a no-op until the accept loop runs: wait for it, or ~http_sink could hang.
  while (!server.is_running() && !impl_->listen_returned)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

http_sink::~http_sink() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->changed.notify_all();
  impl_->server.stop();
  if (impl_->listener.joinable())
    impl_->listener.join();
}

int http_sink::port() const {
  return impl_->port;
}

std::string http_sink::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + path;
}

void http_sink::script(std::vector<int> statuses) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  for (int status : statuses)
    impl_->scripted.push_back(sink_response{status, {}, {}});
}

void http_sink::script_response(sink_response response) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->scripted.push_back(std::move(response));
}

void http_sink::set_default(sink_response response) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->fallback = std::move(response);
}

void http_sink::set_default_status(int status) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->fallback.status = status;
}

void http_sink::set_delay(std::chrono::milliseconds delay) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->extra_delay = delay;
}

void http_sink::on_request(std::function<void(const recorded_request&)> observer) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->observer = std::move(observer);
}

std::vector<recorded_request> http_sink::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->received;
}

std::size_t http_sink::count() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->received.size();
}

bool http_sink::wait_for(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  return impl_->changed.wait_for(lock, timeout,
                                 [&] { return impl_->received.size() >= n; });
}

} // namespace belay::test
