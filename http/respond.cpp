#include "http/respond.hpp"

#include "actors/metrics.hpp"
#include "http/keys.hpp"
#include "protocol/pagerduty.hpp"
#include "protocol/text.hpp"

#include <cctype>
#include <memory>

namespace belay {

void close_after_reply(httplib::Response& res) {
  auto body = std::make_shared<std::string>(std::move(res.body));
  res.body.clear();
  auto type = res.get_header_value("Content-Type");
  res.set_header("Connection", "close");
  // cpp-httplib ends a connection whose content provider gives up: this one writes the
  // whole reply first.
  res.set_content_provider(body->size(), type.empty() ? "text/plain" : type.c_str(),
                           [body](size_t offset, size_t length, httplib::DataSink& sink) {
                             sink.write(body->data() + offset, length);
                             return false;
                           });
}

void reply_rate_limited(httplib::Response& res, int64_t retry_after_seconds,
                        const std::string& what) {
  auto kind = what.find("API") != std::string::npos           ? "api"
              : what.find("integration") != std::string::npos ? "integration"
                                                              : "route";
  metrics::count(metrics::name::rate_limited_total, {{"key", kind}});
  res.set_header("Retry-After", std::to_string(retry_after_seconds));
  reply_error(res, 429, "rate_limited",
              what + " is over its rate limit; retry after " +
                  std::to_string(retry_after_seconds) + " s");
}

std::optional<storage::integration_row> admit_routing_key(api& a, const std::string& key,
                                                          httplib::Response& res) {
  auto admitted = a.keys.admit_integration(key);
  if (!admitted.found || admitted.value.type != "events") {
    reply_json(res, 400, protocol::render_pd_invalid({"Invalid routing key"}));
    return std::nullopt;
  }
  if (admitted.retry_after_seconds > 0) {
    metrics::count(metrics::name::rate_limited_total, {{"key", "integration"}});
    res.set_header("Retry-After", std::to_string(admitted.retry_after_seconds));
    reply_json(res, 429,
               protocol::render_pd_throttled(
                   "Requests for this routing key are over its rate limit; retry after " +
                   std::to_string(admitted.retry_after_seconds) + " s"));
    return std::nullopt;
  }
  return std::move(admitted.value);
}

std::string bearer_key(const httplib::Request& req) {
  // The scheme is case-insensitive (RFC 7235): "bearer", "BEARER" and "Bearer" are one.
  const std::string value = req.get_header_value("Authorization");
  const std::string_view header = value;
  constexpr std::string_view scheme = "bearer";
  if (header.size() <= scheme.size() || header[scheme.size()] != ' ')
    return {};
  for (size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != scheme[i])
      return {};
  auto key = header.substr(scheme.size());
  auto first = key.find_first_not_of(' ');
  auto last = key.find_last_not_of(' ');
  if (first == std::string_view::npos)
    return {};
  return std::string{key.substr(first, last - first + 1)};
}

std::optional<int64_t> parse_id(const std::string& text) {
  if (text.empty() || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoll(text);
}

std::optional<page_request> page_params(const httplib::Request& req,
                                        httplib::Response& res, int default_limit,
                                        int max_limit) {
  const auto number = parse_id;
  page_request page{default_limit, 0};
  if (req.has_param("limit")) {
    auto n = number(req.get_param_value("limit"));
    if (!n || *n < 1 || *n > max_limit) {
      reply_error(res, 400, "invalid_value",
                  "limit must be between 1 and " + std::to_string(max_limit), "limit");
      return std::nullopt;
    }
    page.limit = static_cast<int>(*n);
  }
  if (req.has_param("after")) {
    auto n = number(req.get_param_value("after"));
    if (!n) {
      reply_error(res, 400, "invalid_value", "after must be a cursor from 'next'",
                  "after");
      return std::nullopt;
    }
    page.after = *n;
  }
  return page;
}

} // namespace belay
