#include "support/shell.hpp"

#include <array>
#include <cstdio>
#include <stdexcept>
#include <sys/wait.h>

namespace belay::test {

command_result run_command(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe)
    throw std::runtime_error("cannot run: " + command);
  command_result out{-1, {}};
  std::array<char, 65536> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe))
    out.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  if (WIFEXITED(status))
    out.exit_code = WEXITSTATUS(status);
  return out;
}

} // namespace belay::test
