// The route table of POST and DELETE: plain paths are compared as strings, patterns as
// regexes, in the order they were added.
#include "http/routes.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

std::string routed(const routes& table, const std::string& method,
                   const std::string& path) {
  httplib::Request req;
  req.method = method;
  req.path = path;
  auto* r = table.find(req);
  if (!r)
    return "none";
  httplib::Response res;
  r->handle(req, res);
  return res.body;
}

} // namespace

TEST_CASE("a plain route matches its path exactly, a pattern with its captures") {
  httplib::Server http;
  routes table{http};
  auto answer = [](std::string name) {
    return [name](const httplib::Request& req, httplib::Response& res) {
      res.body = name;
      for (size_t i = 1; i < req.matches.size(); ++i)
        res.body += " " + req.matches[i].str();
    };
  };
  table.Post("/api/v1/incidents", answer("create"))
      .Post(R"(/api/v1/incidents/([^/]+)/ack)", answer("ack"))
      .Post("/v2/enqueue", answer("pagerduty"))
      .Delete(R"(/api/v1/maintenance/([^/]+))", answer("end"));

  CHECK(routed(table, "POST", "/api/v1/incidents") == "create");
  CHECK(routed(table, "POST", "/api/v1/incidents/42/ack") == "ack 42");
  CHECK(routed(table, "POST", "/v2/enqueue") == "pagerduty");
  CHECK(routed(table, "DELETE", "/api/v1/maintenance/w1") == "end w1");
  // Nothing but the whole path: no prefix, no suffix, no other method.
  CHECK(routed(table, "POST", "/api/v1/incidents/") == "none");
  CHECK(routed(table, "POST", "/api/v1/incidentsX") == "none");
  CHECK(routed(table, "POST", "/api/v1") == "none");
  CHECK(routed(table, "DELETE", "/api/v1/incidents") == "none");
  CHECK(routed(table, "PUT", "/api/v1/incidents") == "none");
}
