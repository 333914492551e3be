#include "tests/support/smtp_sink.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace belay::test {

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Binds an ephemeral port itself and publishes it through a file written by
// rename, so there is no race for a "free" port between two test processes.
constexpr const char* server_script = R"PY(
import asyncio, os, sys
from aiosmtpd.smtp import SMTP

out_dir, rcpt_reply, data_reply = sys.argv[1], sys.argv[2], sys.argv[3]
rcpt_delay, data_delay = float(sys.argv[4]), float(sys.argv[5])
stored = 0

def publish(name, data, mode):
    tmp = os.path.join(out_dir, name + '.tmp')
    with open(tmp, mode) as f:
        f.write(data)
    os.rename(tmp, os.path.join(out_dir, name))

class Handler:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if rcpt_delay > 0:
            await asyncio.sleep(rcpt_delay)
        if rcpt_reply:
            return rcpt_reply
        envelope.rcpt_tos.append(address)
        return '250 OK'

    async def handle_DATA(self, server, session, envelope):
        global stored
        if data_reply:
            return data_reply
        stored += 1
        name = '%06d' % stored
        content = envelope.original_content or envelope.content
        publish(name + '.eml', content, 'wb')
        publish(name + '.env', '\n'.join([envelope.mail_from] + envelope.rcpt_tos), 'w')
        if data_delay > 0:
            await asyncio.sleep(data_delay)
        return '250 Message accepted for delivery'

async def main():
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(Handler()), '127.0.0.1', 0)
    publish('port', str(server.sockets[0].getsockname()[1]), 'w')
    async with server:
        await server.serve_forever()

asyncio.run(main())
)PY";

// Debian's interpreter first: a python3 earlier on PATH (pyenv, venv) usually
// lacks the python3-aiosmtpd package.
std::string python_interpreter() {
  if (const char* chosen = std::getenv("BELAY_TEST_PYTHON"))
    return chosen;
  if (::access("/usr/bin/python3", X_OK) == 0)
    return "/usr/bin/python3";
  return "python3";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool port_accepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return ok;
}

std::string seconds(std::chrono::milliseconds ms) {
  return std::to_string(static_cast<double>(ms.count()) / 1000.0);
}

} // namespace

std::string received_mail::header(const std::string& name) const {
  std::istringstream lines(raw);
  std::string line;
  std::string value;
  bool in_match = false;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty())
      break; // end of the header block
    if (line[0] == ' ' || line[0] == '\t') {
      if (in_match)
        value += line; // a folded continuation
      continue;
    }
    if (in_match)
      break;
    auto colon = line.find(':');
    if (colon != std::string::npos && colon == name.size() &&
        strncasecmp(line.c_str(), name.c_str(), name.size()) == 0) {
      in_match = true;
      value = line.substr(colon + 1);
    }
  }
  auto first = value.find_first_not_of(" \t");
  return first == std::string::npos ? std::string() : value.substr(first);
}

std::string received_mail::body() const {
  auto end = raw.find("\r\n\r\n");
  if (end != std::string::npos)
    return raw.substr(end + 4);
  end = raw.find("\n\n");
  return end == std::string::npos ? std::string() : raw.substr(end + 2);
}

smtp_sink::smtp_sink() : smtp_sink(smtp_options{}) {}

smtp_sink::smtp_sink(smtp_options options) {
  std::string pattern = (fs::temp_directory_path() / "belay-smtp-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("smtp_sink: cannot create a temporary folder");
  dir_ = pattern;
  auto script = (fs::path(dir_) / "server.py").string();
  std::ofstream(script) << server_script;
  auto log = (fs::path(dir_) / "server.log").string();

  auto python = python_interpreter();
  std::vector<std::string> args = {python,
                                   script,
                                   dir_,
                                   options.rcpt_reply,
                                   options.data_reply,
                                   seconds(options.rcpt_delay),
                                   seconds(options.data_delay)};
  std::vector<char*> argv;
  for (auto& arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  int spawned =
      ::posix_spawnp(&pid_, python.c_str(), &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) {
    pid_ = -1;
    stop();
    throw std::runtime_error("smtp_sink: cannot start " + python);
  }

  auto port_file = fs::path(dir_) / "port";
  auto deadline = std::chrono::steady_clock::now() + 15s;
  while (port_ == 0) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      auto output = read_file(log);
      stop();
      throw std::runtime_error(
          "smtp_sink: the SMTP server (" + python +
          " with aiosmtpd, Debian package python3-aiosmtpd) exited: " + output);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      auto output = read_file(log);
      stop();
      throw std::runtime_error("smtp_sink: the SMTP server did not start: " + output);
    }
    if (fs::exists(port_file))
      port_ = std::stoi(read_file(port_file));
    else
      std::this_thread::sleep_for(10ms);
  }
  if (!port_accepts(port_)) {
    stop();
    throw std::runtime_error("smtp_sink: port " + std::to_string(port_) +
                             " does not accept connections");
  }
}

smtp_sink::~smtp_sink() {
  stop();
}

void smtp_sink::stop() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + 3s;
    while (::waitpid(pid_, nullptr, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(5ms);
    }
    pid_ = -1;
  }
  if (!dir_.empty()) {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
}

std::string smtp_sink::url() const {
  return "smtp://127.0.0.1:" + std::to_string(port_);
}

std::vector<received_mail> smtp_sink::messages() const {
  std::vector<fs::path> envelopes;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec))
    if (entry.path().extension() == ".env")
      envelopes.push_back(entry.path());
  std::sort(envelopes.begin(), envelopes.end());

  std::vector<received_mail> out;
  for (const auto& envelope : envelopes) {
    received_mail mail;
    std::istringstream lines(read_file(envelope));
    std::getline(lines, mail.mail_from);
    for (std::string rcpt; std::getline(lines, rcpt);)
      mail.rcpt_to.push_back(rcpt);
    auto raw = envelope;
    mail.raw = read_file(raw.replace_extension(".eml"));
    out.push_back(std::move(mail));
  }
  return out;
}

bool smtp_sink::wait_for(std::size_t n, std::chrono::milliseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (messages().size() < n) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

} // namespace belay::test
