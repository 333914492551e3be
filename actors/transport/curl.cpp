#include "actors/transport/curl.hpp"

#include "actors/transport/channels.hpp"
#include "protocol/hash.hpp"
#include "protocol/network.hpp"
#include "protocol/text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <curl/curl.h>
#include <memory>
#include <mutex>
#include <netinet/in.h>
#include <new>
#include <sys/socket.h>

namespace belay::transport::detail {

namespace {

constexpr size_t max_response_bytes = 4096;
constexpr size_t max_snippet_bytes = 200;
// Shorter "secrets" cannot be told apart from ordinary words in an error text.
constexpr size_t min_redacted_length = 4;

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct easy_deleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
using easy_ptr = std::unique_ptr<CURL, easy_deleter>;

// One handle per sender thread, reset between transfers. libcurl keeps its connection
// cache in the handle: pages to the same host reuse a connection (and a TLS session)
// instead of paying a handshake each.
CURL* thread_handle() {
  thread_local easy_ptr handle{curl_easy_init()};
  return handle.get();
}

struct slist_deleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using slist_ptr = std::unique_ptr<curl_slist, slist_deleter>;

struct upload_source {
  std::string_view data;
  size_t offset = 0;
};

size_t read_upload(char* buffer, size_t size, size_t count, void* user) {
  auto* source = static_cast<upload_source*>(user);
  size_t n = std::min(size * count, source->data.size() - source->offset);
  std::memcpy(buffer, source->data.data() + source->offset, n);
  source->offset += n;
  return n;
}

size_t keep_response(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<std::string*>(user);
  size_t n = size * count;
  if (response->size() < max_response_bytes)
    response->append(data, std::min(n, max_response_bytes - response->size()));
  return n;
}

// libcurl hands SMTP server replies to the header callback: keep the last refusal
// (4xx/5xx; a "221 Bye" may follow it), so an error can quote the server's words.
size_t keep_last_refusal(char* data, size_t size, size_t count, void* user) {
  auto* reply = static_cast<std::string*>(user);
  size_t n = size * count;
  std::string_view line(data, std::min<size_t>(n, max_snippet_bytes));
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
    line.remove_suffix(1);
  if (!line.empty() && (line[0] == '4' || line[0] == '5'))
    reply->assign(line);
  return n;
}

long timeout_ms(double seconds) {
  if (!(seconds > 0))
    return 5000;
  return std::clamp(std::lround(seconds * 1000), 1L, 24L * 3600 * 1000);
}

// A header silently missing (Idempotency-Key!) would be worse than no request:
// out of memory throws, and send() turns that into a retry.
void append_slist(slist_ptr& list, const std::string& line) {
  curl_slist* grown = curl_slist_append(list.get(), line.c_str());
  if (grown == nullptr)
    throw std::bad_alloc();
  list.release();
  list.reset(grown);
}

std::mutex allowed_mutex;
std::shared_ptr<const std::vector<protocol::cidr>> allowed_networks =
    std::make_shared<const std::vector<protocol::cidr>>();

std::shared_ptr<const std::vector<protocol::cidr>> allowed_now() {
  std::lock_guard lock{allowed_mutex};
  return allowed_networks;
}

// The outbound target check (docs/guarantees.md#outbound-targets), on the address libcurl
// is about to connect to: after DNS, so a name that resolves to a private address (or
// changes its answer between two lookups) is refused all the same.
struct target_check {
  std::shared_ptr<const std::vector<protocol::cidr>> allowed;
  std::string refused; // the first refusal
};

curl_socket_t open_checked_socket(void* user, curlsocktype, curl_sockaddr* address) {
  auto* check = static_cast<target_check*>(user);
  protocol::ip_address a;
  if (address->family == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(&address->addr);
    std::memcpy(a.bytes.data(), &in->sin_addr, 4);
  } else if (address->family == AF_INET6) {
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(&address->addr);
    a.v6 = true;
    std::memcpy(a.bytes.data(), &in6->sin6_addr, 16);
  } else {
    if (check->refused.empty())
      check->refused = "target address is not an IP address";
    return CURL_SOCKET_BAD;
  }
  auto why = protocol::refused_target(a, *check->allowed);
  if (!why.empty()) {
    if (check->refused.empty())
      check->refused = std::move(why);
    return CURL_SOCKET_BAD;
  }
  return socket(address->family, address->socktype, address->protocol);
}

struct transfer {
  CURLcode code = CURLE_OK;
  long status = 0; // HTTP status, or the last SMTP reply code
  // Every byte of the payload went out on the socket (see run()).
  bool fully_written = false;
  std::string response;
  std::string curl_error;
  std::string refused; // the target check refused every address: no request left
};

// One transfer that uploads `payload`: the setup every transport shares, then
// `configure` for the protocol-specific options.
template <class Configure>
transfer run(const std::string& url, const char* protocols, std::string_view payload,
             double timeout_seconds, const std::string& username,
             const std::string& password, Configure&& configure) {
  global_init_once();
  transfer t;
  CURL* h = thread_handle();
  if (!h) {
    t.code = CURLE_FAILED_INIT;
    t.curl_error = "could not create a libcurl handle";
    return t;
  }
  char error_buffer[CURL_ERROR_SIZE] = {};
  upload_source source{payload};
  target_check check{allowed_now(), {}};
  curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_checked_socket);
  curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &check);
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, protocols);
  curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, protocols);
  // Worker threads: no signals (libcurl would otherwise use SIGALRM for DNS timeouts).
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms(timeout_seconds));
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(h, CURLOPT_READFUNCTION, read_upload);
  curl_easy_setopt(h, CURLOPT_READDATA, &source);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep_response);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t.response);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "belay");
  if (!username.empty()) {
    curl_easy_setopt(h, CURLOPT_USERNAME, username.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, password.c_str());
  }
  configure(h, static_cast<curl_off_t>(payload.size()));

  t.code = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &t.status);
  // Ambiguity: CURLINFO_SIZE_UPLOAD_T counts the payload bytes libcurl actually
  // wrote to the socket (HTTP body or SMTP DATA, not headers or commands), and
  // the read callback tells that libcurl took the whole payload. When both say
  // "all of it" and no answer came back, the peer holds a complete request and
  // may act on it, so a failure from here on is ambiguous. A connect error or a
  // timeout before the upload (e.g. during SMTP RCPT) leaves the count short.
  curl_off_t uploaded = 0;
  curl_easy_getinfo(h, CURLINFO_SIZE_UPLOAD_T, &uploaded);
  t.fully_written = source.offset == payload.size() &&
                    uploaded >= static_cast<curl_off_t>(payload.size());
  t.curl_error = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(t.code);
  if (t.code != CURLE_OK && t.status == 0)
    t.refused = std::move(check.refused);
  // Forget this transfer's options (they point into this frame); keep the connections.
  curl_easy_reset(h);
  return t;
}

bool is_permanent(CURLcode code) {
  switch (code) {
  case CURLE_UNSUPPORTED_PROTOCOL:
  case CURLE_URL_MALFORMAT:
  case CURLE_NOT_BUILT_IN:
  case CURLE_LOGIN_DENIED:
  case CURLE_USE_SSL_FAILED:
    return true;
  default:
    return false;
  }
}

// A short, single-line excerpt of what the peer answered (Slack says
// "invalid_payload", Twilio explains a bad number): helps whoever reads last_error.
std::string snippet(std::string_view response) {
  std::string out;
  for (char c : response.substr(0, max_snippet_bytes)) {
    auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  if (out.empty())
    return out;
  if (response.size() > max_snippet_bytes)
    out += "...";
  return ": " + out;
}

void no_answer(send_result& result, const transfer& t, std::string_view what) {
  if (!t.refused.empty()) { // never connected: permanent, and nothing was sent
    result.result = outcome::permanent;
    result.error = std::string(what) + ": " + t.refused;
    return;
  }
  result.result = is_permanent(t.code) ? outcome::permanent : outcome::retry;
  result.ambiguous = result.result == outcome::retry && t.fully_written;
  result.error = std::string(what) + ": " + t.curl_error;
  if (result.ambiguous)
    result.error += " (after the request was sent: the peer may have acted on it)";
}

} // namespace

std::optional<send_result> refuse_scheme(std::string_view url,
                                         std::initializer_list<std::string_view> allowed,
                                         std::string_view what) {
  std::string expected;
  for (auto scheme : allowed)
    expected += (expected.empty() ? "" : " or ") + std::string(scheme);
  send_result refused;
  refused.result = outcome::permanent;
  if (url.empty()) {
    refused.error = std::string(what) + ": the channel has no URL";
    return refused;
  }
  auto end = url.find("://");
  if (end == std::string_view::npos) {
    refused.error =
        std::string(what) + ": the URL has no scheme (expected " + expected + ")";
    return refused;
  }
  std::string scheme(url.substr(0, end));
  for (auto& c : scheme)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (std::find(allowed.begin(), allowed.end(), scheme) != allowed.end())
    return std::nullopt;
  bool printable =
      scheme.size() <= 16 && std::all_of(scheme.begin(), scheme.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' ||
               c == '.';
      });
  refused.error = std::string(what) + ": refusing " +
                  (printable ? "'" + scheme + "' URL" : "URL with an invalid scheme") +
                  ", only " + expected + " allowed";
  return refused;
}

send_result post(const http_post& request) {
  slist_ptr headers;
  for (const auto& line : request.headers)
    append_slist(headers, line);
  // libcurl would otherwise wait for "100 Continue" before sending larger bodies.
  append_slist(headers, "Expect:");
  auto t = run(request.url, "http,https", request.body, request.timeout_seconds,
               request.username, request.password, [&](CURL* h, curl_off_t size) {
                 curl_easy_setopt(h, CURLOPT_POST, 1L);
                 curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, size);
                 curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
                 if (!request.username.empty())
                   curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
               });

  send_result result;
  result.http_status = static_cast<int>(t.status);
  if (t.status >= 200 && t.status < 300) {
    result.result = outcome::sent;
  } else if (t.status != 0) {
    bool transient =
        t.status == 408 || t.status == 429 || t.status >= 500 || t.status < 300;
    result.result = transient ? outcome::retry : outcome::permanent;
    result.error = "HTTP " + std::to_string(t.status) + " from " + request.what +
                   snippet(t.response);
    if (t.status >= 300 && t.status < 400)
      result.error += " (redirects are not followed)";
  } else {
    no_answer(result, t, request.what);
  }
  auto secrets = request.secrets;
  secrets.push_back(request.password);
  result.error = redact(std::move(result.error), request.url, secrets);
  return result;
}

send_result post_json(const channel_config& channel, const rendered& message,
                      const std::string& what, bool sign) {
  if (auto refused = refuse_scheme(channel.url, {"http", "https"}, what))
    return *refused;
  http_post request;
  request.what = what;
  request.url = channel.url;
  request.body = message.body;
  request.timeout_seconds = channel.timeout_seconds;
  request.headers = {"Content-Type: application/json",
                     "Idempotency-Key: " + header_safe(message.idempotency_key)};
  if (sign && !channel.secret.empty())
    request.headers.push_back("X-Belay-Signature: sha256=" +
                              hmac_sha256_hex(channel.secret, request.body));
  request.secrets = {channel.secret};
  return post(request);
}

send_result mail(const smtp_mail& request) {
  slist_ptr recipients;
  append_slist(recipients, request.rcpt_to);
  std::string last_refusal;
  auto t =
      run(request.url, "smtp,smtps", request.message, request.timeout_seconds,
          request.username, request.password, [&](CURL* h, curl_off_t size) {
            curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, keep_last_refusal);
            curl_easy_setopt(h, CURLOPT_HEADERDATA, &last_refusal);
            curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
            curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, size);
            curl_easy_setopt(h, CURLOPT_MAIL_FROM, request.mail_from.c_str());
            curl_easy_setopt(h, CURLOPT_MAIL_RCPT, recipients.get());
            // Never send a password in clear text; otherwise take TLS when offered.
            curl_easy_setopt(h, CURLOPT_USE_SSL,
                             request.username.empty() ? CURLUSESSL_TRY : CURLUSESSL_ALL);
          });

  send_result result;
  result.http_status = static_cast<int>(t.status);
  if (t.code == CURLE_OK) {
    result.result = outcome::sent;
  } else if (t.status >= 400 && t.status < 600) {
    result.result = t.status >= 500 ? outcome::permanent : outcome::retry;
    result.error =
        "SMTP " + std::to_string(t.status) + " from mail server: " +
        (last_refusal.empty() ? t.curl_error : protocol::one_line(last_refusal));
  } else {
    no_answer(result, t, "mail server");
  }
  result.error = redact(std::move(result.error), request.url, {request.password});
  return result;
}

std::string redact(std::string text, std::string_view url,
                   const std::vector<std::string>& secrets) {
  std::vector<std::string> hidden(secrets.begin(), secrets.end());
  if (!url.empty()) {
    hidden.emplace_back(url);
    auto authority = url.find("://");
    authority = authority == std::string_view::npos ? 0 : authority + 3;
    auto path = url.find('/', authority);
    if (path != std::string_view::npos && url.size() - path > 1)
      hidden.emplace_back(url.substr(path));
    auto userinfo =
        url.substr(authority, path == std::string_view::npos ? path : path - authority);
    if (auto at = userinfo.rfind('@'); at != std::string_view::npos)
      hidden.emplace_back(userinfo.substr(0, at));
  }
  // Longest first, so a URL is hidden whole rather than around its redacted path.
  std::sort(hidden.begin(), hidden.end(),
            [](const auto& a, const auto& b) { return a.size() > b.size(); });
  static constexpr std::string_view mark = "[redacted]";
  for (const auto& secret : hidden) {
    if (secret.size() < min_redacted_length)
      continue;
    for (auto at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + mark.size()))
      text.replace(at, secret.size(), mark);
  }
  return text;
}

std::string header_safe(std::string_view value) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '%') {
      out += '%';
      out += digits[u >> 4];
      out += digits[u & 0x0f];
    } else {
      out += c;
    }
  }
  return out;
}

} // namespace belay::transport::detail

namespace belay::transport {

void set_allowed_target_networks(std::vector<protocol::cidr> networks) {
  auto shared = std::make_shared<const std::vector<protocol::cidr>>(std::move(networks));
  std::lock_guard lock{detail::allowed_mutex};
  detail::allowed_networks = std::move(shared);
}

} // namespace belay::transport
