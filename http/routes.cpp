#include "http/routes.hpp"

#include "protocol/error.hpp"
#include "protocol/hash.hpp"

#include <stdexcept>

namespace belay {

namespace {

// A POST's caller, from its admission before the body was read to its handler after:
// cpp-httplib runs both on the thread that serves the request.
thread_local std::optional<admitted> admitted_here;

void refuse_csrf(httplib::Response& res) {
  res.status = 403;
  res.set_content(
      protocol::render_error({403, "csrf_failed",
                              "a write through a session needs its CSRF token "
                              "(the X-CSRF-Token header or the form field "
                              "'csrf'; GET /api/v1/me gives it)",
                              "csrf"}),
      "application/json");
}

} // namespace

routes& routes::Get(const std::string& pattern, access need, caller_handler handle) {
  if (!admit_)
    throw std::logic_error("routes: " + pattern + " needs a caller, and no admission");
  listed_.push_back({"GET", pattern, need});
  http_.Get(pattern, [admit = admit_, need, handle = std::move(handle)](
                         const httplib::Request& req, httplib::Response& res) {
    if (auto in = admit(req, res, need, false))
      handle(in->who, req, res);
  });
  return *this;
}

routes& routes::add_admitted(std::vector<route>& table, const char* method,
                             const std::string& pattern, access need,
                             caller_handler handle) {
  if (!admit_)
    throw std::logic_error("routes: " + pattern + " needs a caller, and no admission");
  auto check = [admit = admit_, need](const httplib::Request& req,
                                      httplib::Response& res) {
    admitted_here = admit(req, res, need, true);
    return admitted_here.has_value();
  };
  auto run = [handle = std::move(handle)](const httplib::Request& req,
                                          httplib::Response& res) {
    auto in = std::move(admitted_here);
    admitted_here.reset();
    if (!in)
      return; // not admitted (cannot happen: the check ran first)
    if (!in->form_csrf.empty() &&
        !constant_time_equal(req.get_param_value("csrf"), in->form_csrf))
      return refuse_csrf(res);
    handle(in->who, req, res);
  };
  return add(table, method, pattern, need, std::move(run), std::move(check));
}

} // namespace belay
