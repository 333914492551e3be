// The one libcurl helper every network transport goes through: easy-handle setup,
// timeouts, scheme checks, ambiguity detection, outcome classification, redaction.
#pragma once

#include "actors/transport/channels.hpp"
#include "actors/transport/transport.hpp"

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace belay::transport::detail {

// A finished outcome if `url`'s scheme is not one of `allowed` (lower case), so the
// transport refuses it before any I/O. `what` names the peer in the error; the URL
// itself never appears there (a Slack webhook URL is a credential).
std::optional<send_result> refuse_scheme(std::string_view url,
                                         std::initializer_list<std::string_view> allowed,
                                         std::string_view what);

struct http_post {
  std::string what; // names the peer in errors: "webhook", "slack webhook", "twilio sms"
  std::string url;
  std::string body;
  std::vector<std::string> headers; // "Name: value", Content-Type included
  std::string username;             // HTTP basic auth when not empty
  std::string password;
  double timeout_seconds = 5;
  std::vector<std::string> secrets; // scrubbed from errors, besides password and URL
};

// 2xx sent; 408, 429, 5xx retry; other 4xx and 3xx permanent; no answer retry.
send_result post(const http_post& request);

// The message's JSON body POSTed to the channel's http(s) URL with its idempotency key,
// signed with the channel's secret (X-Belay-Signature) when `sign` and there is one.
// `what` names the peer in errors; the URL never appears there.
send_result post_json(const channel_config& channel, const rendered& message,
                      const std::string& what, bool sign);

struct smtp_mail {
  std::string url; // smtp://host:port or smtps://host:port
  std::string mail_from;
  std::string rcpt_to;
  std::string message;  // RFC 5322, CRLF line endings
  std::string username; // SMTP AUTH when not empty
  std::string password;
  double timeout_seconds = 5;
};

// 2xx sent; SMTP 5xx permanent; 4xx, connection errors and timeouts retry.
send_result mail(const smtp_mail& request);

// Replaces every occurrence of each secret (and of `url` and its path) by "[redacted]".
std::string redact(std::string text, std::string_view url,
                   const std::vector<std::string>& secrets);

// A header value that cannot break the header block: bytes outside printable
// ASCII, and '%', become %XX. Deterministic, so a key stays identical on retries.
std::string header_safe(std::string_view value);

} // namespace belay::transport::detail
