// A fault_proxy between belay and the test cluster (the one scripts/test started), and a
// test database's connection string through it: what the fault-injection tests of
// docs/guarantees.md#hostile-conditions put between a node and PostgreSQL.
#pragma once

#include "support/fault_proxy.hpp"
#include "support/test_database.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace belay::test {

// The cluster's unix socket, from BELAY_TEST_PG_DIR and BELAY_TEST_PG_PORT.
inline std::string cluster_socket() {
  auto* dir = std::getenv("BELAY_TEST_PG_DIR");
  auto* port = std::getenv("BELAY_TEST_PG_PORT");
  if (!dir || !*dir || !port || !*port)
    throw std::runtime_error("BELAY_TEST_PG_DIR and BELAY_TEST_PG_PORT are not set: run "
                             "the tests with scripts/test, which starts a private "
                             "PostgreSQL");
  return fault_proxy::postgres_socket(dir, std::atoi(port));
}

struct postgres_proxy {
  fault_proxy proxy{cluster_socket()};
  // `db`'s connection string, over TCP through the proxy (libpq: the last host and port
  // given win).
  std::string url(const test_database& db) const {
    return db.url() + " host=127.0.0.1 port=" + std::to_string(proxy.port());
  }
};

// Whether the bytes end a statement that names `marker` (a dedup key in a trigger
// batch's parameters): the one-shot fault for that statement's reply.
inline fault_trigger statement_naming(std::string marker) {
  return [marker = std::move(marker)](std::string_view bytes) {
    return bytes.find(marker) != std::string_view::npos && ends_statement(bytes);
  };
}

} // namespace belay::test
