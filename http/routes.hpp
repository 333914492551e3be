// The routes of the HTTP server. GET routes go to cpp-httplib as they are; every route
// that takes a body (POST, PUT, DELETE) is dispatched by the server itself, after it read
// the body under the limits of docs/guarantees.md#bounded-input (512 KiB whether it came
// with a Content-Length, chunked or compressed; form bodies too). A route may check the
// request before its body is read (an API key in a header): a refused request's body
// is never read.
#pragma once

#include <functional>
#include <httplib.h>
#include <regex>
#include <string>
#include <vector>

namespace belay {

using route_handler = std::function<void(const httplib::Request&, httplib::Response&)>;
// Runs before the body is read: answers and returns false to refuse the request.
using route_check = std::function<bool(const httplib::Request&, httplib::Response&)>;

class routes {
public:
  struct route {
    std::regex pattern;
    route_handler handle;
    route_check before_body;
    // The pattern itself when it has no regex syntax: compared as a string, since
    // std::regex_match costs ~0.5% of an event's CPU on the ingest routes (perf).
    std::string exact;
  };
  // A route as it was added, its pattern as given: tests/http/openapi_test.cpp checks
  // that http/openapi.json describes each one and nothing else (docs/http.md#openapi).
  struct listing {
    std::string method;
    std::string pattern;
  };

  explicit routes(httplib::Server& http) : http_(http) {}

  routes& Get(const std::string& pattern, route_handler handle) {
    listed_.push_back({"GET", pattern});
    http_.Get(pattern, std::move(handle));
    return *this;
  }
  routes& Post(const std::string& pattern, route_handler handle,
               route_check before_body = {}) {
    listed_.push_back({"POST", pattern});
    post_.push_back(make(pattern, std::move(handle), std::move(before_body)));
    return *this;
  }
  routes& Put(const std::string& pattern, route_handler handle,
              route_check before_body = {}) {
    listed_.push_back({"PUT", pattern});
    put_.push_back(make(pattern, std::move(handle), std::move(before_body)));
    return *this;
  }
  routes& Delete(const std::string& pattern, route_handler handle,
                 route_check before_body = {}) {
    listed_.push_back({"DELETE", pattern});
    delete_.push_back(make(pattern, std::move(handle), std::move(before_body)));
    return *this;
  }

  const std::vector<listing>& listed() const { return listed_; }

  // The route of a POST, PUT or DELETE, with the request's matches filled in; null if
  // none.
  const route* find(httplib::Request& req) const {
    if (req.method != "POST" && req.method != "PUT" && req.method != "DELETE")
      return nullptr;
    auto& table = req.method == "POST" ? post_ : req.method == "PUT" ? put_ : delete_;
    for (auto& r : table)
      if (r.exact.empty() ? std::regex_match(req.path, req.matches, r.pattern)
                          : req.path == r.exact)
        return &r;
    return nullptr;
  }

private:
  static route make(const std::string& pattern, route_handler handle,
                    route_check before_body) {
    bool plain = pattern.find_first_of(R"(\^$.|?*+()[]{})") == std::string::npos;
    return {std::regex(pattern), std::move(handle), std::move(before_body),
            plain ? pattern : std::string{}};
  }

  httplib::Server& http_;
  std::vector<route> post_;
  std::vector<route> put_;
  std::vector<route> delete_;
  std::vector<listing> listed_;
};

} // namespace belay
