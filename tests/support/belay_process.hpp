// Runs the real `belay` binary as a child process, for end-to-end tests.
#pragma once

#include <httplib.h>
#include <map>
#include <string>
#include <vector>

namespace belay::test {

// A TCP port on 127.0.0.1 that was free a moment ago.
int free_port();

// Runs a shell command with scripts/lib.sh sourced (pg_start, pg_stop, …).
int run_lib(const std::string& command);

// The data encryption key file every belay_process is given unless its environment
// says otherwise: $BELAY_DATA_ENCRYPTION_KEY_FILE (scripts/test makes one), else a
// random key in a file of this test process's own.
std::string test_key_file();

class belay_process {
public:
  // Starts `belay <args…>` with the given extra environment (an empty
  // BELAY_DATA_ENCRYPTION_KEY_FILE: no key); output goes to a log file.
  belay_process(std::vector<std::string> args,
                std::map<std::string, std::string> env = {});
  ~belay_process();

  // Starts `belay serve` on a free port against `database_url` and waits for /healthz.
  static belay_process serve(const std::string& database_url,
                             std::vector<std::string> extra = {});

  belay_process(belay_process&& other) noexcept;

  bool wait_ready(int timeout_ms = 20000);
  // Sends SIGTERM and returns the exit status (-1 on a signal or timeout).
  int stop(int timeout_ms = 20000);
  // kill -9: the process ends at once, without a word to anyone.
  void kill();
  // Waits for the process to exit on its own.
  int wait_exit(int timeout_ms = 20000);
  std::string log() const;
  httplib::Client client() const;
  int port() const { return port_; }
  int pid() const { return pid_; }

private:
  int pid_ = -1;
  int port_ = 0;
  std::string log_path_;
};

} // namespace belay::test
