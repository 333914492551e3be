#include "support/belay_process.hpp"

#include "support/metrics_token.hpp"
#include "support/openapi_check.hpp"

#include <arpa/inet.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace belay::test {

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

int run_lib(const std::string& command) {
  std::string script = "bash -c 'source " BELAY_SOURCE_DIR "/scripts/lib.sh && " +
                       command + "' >/dev/null 2>&1";
  return std::system(script.c_str());
}

std::string test_key_file() {
  if (auto* given = std::getenv("BELAY_DATA_ENCRYPTION_KEY_FILE"); given && *given)
    return given;
  static const std::string path = [] {
    auto p = "/tmp/belay-test-" + std::to_string(getpid()) + ".key";
    std::ifstream random{"/dev/urandom", std::ios::binary};
    std::string hex;
    for (int i = 0; i < 32; ++i) {
      char digits[3];
      std::snprintf(digits, sizeof digits, "%02x",
                    static_cast<unsigned char>(random.get()));
      hex += digits;
    }
    std::ofstream{p} << hex << "\n";
    chmod(p.c_str(), 0600);
    return p;
  }();
  return path;
}

belay_process::belay_process(std::vector<std::string> args,
                             std::map<std::string, std::string> env) {
  env.emplace("BELAY_DATA_ENCRYPTION_KEY_FILE", test_key_file());
  static int counter = 0;
  log_path_ = "/tmp/belay-test-" + std::to_string(getpid()) + "-" +
              std::to_string(counter++) + ".log";
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--port")
      port_ = std::stoi(args[i + 1]);
  pid_ = fork();
  if (pid_ == 0) {
    int fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    for (auto& [k, v] : env)
      setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv;
    std::string binary = BELAY_BINARY;
    argv.push_back(binary.data());
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
}

belay_process::belay_process(belay_process&& other) noexcept
    : pid_(other.pid_), port_(other.port_), log_path_(std::move(other.log_path_)) {
  other.pid_ = -1;
}

belay_process::~belay_process() {
  report_openapi_mismatches();
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

belay_process belay_process::serve(const std::string& database_url,
                                   std::vector<std::string> extra) {
  std::vector<std::string> args{
      "serve",          "--port",     std::to_string(free_port()),
      "--database-url", database_url, "--log-level",
      "debug"};
  args.insert(args.end(), extra.begin(), extra.end());
  // The tests' sinks listen on loopback, which outbound targets may not be otherwise
  // (docs/guarantees.md#outbound-targets); a flag in `extra` wins over the
  // environment. So does the metrics token.
  belay_process p{args,
                  {{"BELAY_ALLOWED_TARGET_NETWORKS", "127.0.0.0/8,::1"},
                   {"BELAY_METRICS_TOKEN", metrics_token}}};
  if (!p.wait_ready())
    throw std::runtime_error("belay did not become healthy:\n" + p.log());
  return p;
}

bool belay_process::wait_ready(int timeout_ms) {
  auto c = client();
  for (int waited = 0; waited < timeout_ms; waited += 50) {
    if (auto r = c.Get("/healthz"); r && r->status == 200)
      return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  return false;
}

int belay_process::wait_exit(int timeout_ms) {
  for (int waited = 0; waited < timeout_ms; waited += 20) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  return -1;
}

void belay_process::kill() {
  if (pid_ <= 0)
    return;
  ::kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

int belay_process::stop(int timeout_ms) {
  if (pid_ <= 0)
    return -1;
  ::kill(pid_, SIGTERM);
  return wait_exit(timeout_ms);
}

std::string belay_process::log() const {
  std::ifstream in{log_path_};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

httplib::Client belay_process::client() const {
  httplib::Client c{"127.0.0.1", port_};
  c.set_connection_timeout(5);
  c.set_read_timeout(30);
  check_answers(c);
  return c;
}

} // namespace belay::test
