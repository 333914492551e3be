// The server's route table as http/server.cpp builds it: a server on a node on the
// simulated clock, never bound. tests/http/openapi_test.cpp checks the document against
// it, tests/http/access_test.cpp walks it against every role.
#pragma once

#include "http/routes.hpp"

#include <vector>

namespace belay::test {

std::vector<routes::listing> route_table();

} // namespace belay::test
