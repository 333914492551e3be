// Every JSON answer the HTTP tests receive is checked against the schema that
// http/openapi.json gives its route and status (docs/http.md#openapi), with RapidJSON's
// own JSON Schema validator, in the test's process as the answer arrives: a route's
// answer that drifts from the document fails the test that received it.
#pragma once

#include <httplib.h>
#include <string>

namespace belay::test {

// Why the answer does not match the document, or "" when it does. Only JSON answers
// are checked (others, and HEAD, give ""); a JSON answer the document gives no JSON
// schema for is a mismatch. `path` may carry a query string.
std::string openapi_mismatch(const std::string& method, const std::string& path,
                             int status, const std::string& content_type,
                             const std::string& body);

// Checks every answer `client` receives from now on. A mismatch fails the running test
// case: at once on the thread that runs it, or, from another thread, at that thread's
// next check or when report_openapi_mismatches() runs.
void check_answers(httplib::Client& client);

// Fails the running test case with the mismatches other threads saw (Catch2 assertions
// belong to the test's thread).
void report_openapi_mismatches();

} // namespace belay::test
