// The routes of the HTTP server, each with the least access it needs
// (docs/security.md#roles): the table that the router enforces before any handler runs
// and that tests/http/access_test.cpp walks against every role and scope. GET routes go
// to cpp-httplib as they are; every route that takes a body (POST, PUT, DELETE) is
// dispatched by the server itself, after it read the body under the limits of
// docs/guarantees.md#bounded-input (512 KiB whether it came with a Content-Length,
// chunked or compressed; form bodies too). A route's caller is admitted before its body
// is read (the credential is in a header or a cookie): a refused request's body is
// never read.
#pragma once

#include "protocol/access.hpp"

#include <functional>
#include <httplib.h>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace belay {

using protocol::access;
using protocol::caller;

using route_handler = std::function<void(const httplib::Request&, httplib::Response&)>;
// A route that needs a credential: its handler receives who is calling.
using caller_handler =
    std::function<void(const caller&, const httplib::Request&, httplib::Response&)>;
// Runs before the body is read: answers and returns false to refuse the request.
using route_check = std::function<bool(const httplib::Request&, httplib::Response&)>;

// Resolves a request's caller for a route needing `need` (`write`: it changes
// something, so a session must show its CSRF token), or answers 401, 403 or 429 and
// returns nullopt (http/admission.hpp).
struct admitted {
  caller who;
  // A session's write whose CSRF token was not in a header: the form field "csrf" of
  // its body must hold this (checked once the body is read).
  std::string form_csrf{};
};
using caller_admission = std::function<std::optional<admitted>(
    const httplib::Request&, httplib::Response&, access need, bool write)>;

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
  // that http/openapi.json describes each one and nothing else (docs/http.md#openapi),
  // and tests/http/access_test.cpp that each answers every role as `need` says.
  struct listing {
    std::string method;
    std::string pattern;
    access need = access::open;
  };

  // `admit` resolves callers for the routes that need one; without it (a bare table in
  // a unit test) only open routes may be added.
  explicit routes(httplib::Server& http, caller_admission admit = {})
      : http_(http), admit_(std::move(admit)) {}

  // Routes that take no belay credential (access::open): health, ingest with its own
  // integration keys, answer links and signed callbacks, the sign-in pages. `before_body`
  // checks what they check before the body is read.
  routes& Get(const std::string& pattern, route_handler handle) {
    listed_.push_back({"GET", pattern, access::open});
    http_.Get(pattern, std::move(handle));
    return *this;
  }
  routes& Post(const std::string& pattern, route_handler handle,
               route_check before_body = {}) {
    return add(post_, "POST", pattern, access::open, std::move(handle),
               std::move(before_body));
  }
  routes& Put(const std::string& pattern, route_handler handle,
              route_check before_body = {}) {
    return add(put_, "PUT", pattern, access::open, std::move(handle),
               std::move(before_body));
  }
  routes& Delete(const std::string& pattern, route_handler handle,
                 route_check before_body = {}) {
    return add(delete_, "DELETE", pattern, access::open, std::move(handle),
               std::move(before_body));
  }

  // Routes with a caller, admitted as `need` says before the handler runs.
  routes& Get(const std::string& pattern, access need, caller_handler handle);
  routes& Post(const std::string& pattern, access need, caller_handler handle) {
    return add_admitted(post_, "POST", pattern, need, std::move(handle));
  }
  routes& Put(const std::string& pattern, access need, caller_handler handle) {
    return add_admitted(put_, "PUT", pattern, need, std::move(handle));
  }
  routes& Delete(const std::string& pattern, access need, caller_handler handle) {
    return add_admitted(delete_, "DELETE", pattern, need, std::move(handle));
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
  routes& add(std::vector<route>& table, const char* method, const std::string& pattern,
              access need, route_handler handle, route_check before_body) {
    listed_.push_back({method, pattern, need});
    table.push_back(make(pattern, std::move(handle), std::move(before_body)));
    return *this;
  }
  routes& add_admitted(std::vector<route>& table, const char* method,
                       const std::string& pattern, access need, caller_handler handle);

  httplib::Server& http_;
  caller_admission admit_;
  std::vector<route> post_;
  std::vector<route> put_;
  std::vector<route> delete_;
  std::vector<listing> listed_;
};

} // namespace belay
