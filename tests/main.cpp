#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <csignal>

namespace {

// A server may answer and close before a test has written its whole request (belay
// answers 413 before reading an oversized body): the rest of the write must fail with
// EPIPE, not kill the test with SIGPIPE (6 Dec, "multipart/form-data bodies are held to
// 512 KiB" beside other tests). belay itself ignores it through cpp-httplib's server; a
// test process that only has clients did not.
const bool sigpipe_ignored = [] {
  std::signal(SIGPIPE, SIG_IGN);
  return true;
}();

} // namespace
