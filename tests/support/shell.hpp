// Running a command through the shell and reading what it printed: pg_dump, the browser
// spec, the Python that signs inbound requests.
#pragma once

#include <string>

namespace belay::test {

struct command_result {
  int exit_code; // -1 when the command did not exit by itself
  std::string output;
};

// Runs `command` with /bin/sh and returns its exit code and standard output (append
// " 2>&1" for its errors too).
command_result run_command(const std::string& command);

} // namespace belay::test
