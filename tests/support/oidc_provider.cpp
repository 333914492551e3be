#include "support/oidc_provider.hpp"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <rapidjson/document.h>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace belay::test {

namespace {

void post_json(const std::string& origin, const std::string& path,
               const std::string& body) {
  httplib::Client c{origin};
  auto r = c.Post(path.c_str(), body, "application/json");
  if (!r || r->status != 200)
    throw std::runtime_error("the test OpenID provider refused " + path);
}

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

} // namespace

oidc_provider::oidc_provider(const std::string& client_secret) {
  static int counter = 0;
  auto out = "/tmp/belay-oidc-" + std::to_string(getpid()) + "-" +
             std::to_string(counter++) + ".log";
  std::string dir = std::string{BELAY_SOURCE_DIR} + "/tests/oidc";
  pid_ = fork();
  if (pid_ == 0) {
    int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    if (chdir(dir.c_str()) != 0)
      _exit(126);
    execlp("node", "node", "provider.mjs", "--client-secret", client_secret.c_str(),
           static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int waited = 0; waited < 20000; waited += 50) {
    std::ifstream in{out};
    for (std::string line; std::getline(in, line);) {
      rapidjson::Document d;
      d.Parse(line.c_str());
      if (!d.HasParseError() && d.IsObject() && d.HasMember("issuer")) {
        issuer_ = d["issuer"].GetString();
        rogue_ = d["rogue"].GetString();
        std::remove(out.c_str());
        return;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  std::stringstream log;
  log << std::ifstream{out}.rdbuf();
  throw std::runtime_error(
      "tests/oidc/provider.mjs did not start (npm ci in tests/oidc?):\n" + log.str());
}

oidc_provider::~oidc_provider() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void oidc_provider::configure(const std::string& redirect_uri) {
  post_json(issuer_, "/configure", R"({"redirectUris":[)" + quoted(redirect_uri) + "]}");
}

void oidc_provider::next_login(const std::string& sub, const std::string& email,
                               bool email_verified) {
  auto body = R"({"sub":)" + quoted(sub) + R"(,"email":)" + quoted(email) +
              R"(,"email_verified":)" + (email_verified ? "true" : "false") + "}";
  post_json(issuer_, "/next-login", body);
}

void oidc_provider::next_defect(const std::string& defect) {
  post_json(rogue_, "/defect", R"({"defect":)" + quoted(defect) + "}");
}

httplib::Result test_browser::get(const std::string& start) {
  static const std::regex url{R"((https?://[^/]+)(/.*)?)"};
  visited.clear();
  std::string at = start;
  for (int hop = 0; hop < 20; ++hop) {
    std::smatch m;
    if (!std::regex_match(at, m, url))
      throw std::runtime_error("not an absolute URL: " + at);
    std::string origin = m[1];
    std::string path = m[2].matched ? m[2].str() : "/";
    visited.push_back(origin + path);
    auto host = origin.substr(origin.find("://") + 3);
    httplib::Headers headers;
    std::string cookies;
    for (auto& [name, value] : jar_[host])
      cookies += (cookies.empty() ? "" : "; ") + name + "=" + value;
    if (!cookies.empty())
      headers.emplace("Cookie", cookies);
    httplib::Client c{origin};
    auto r = c.Get(path.c_str(), headers);
    if (!r)
      return r;
    auto range = r->headers.equal_range("Set-Cookie");
    for (auto it = range.first; it != range.second; ++it) {
      auto& set = it->second;
      auto eq = set.find('='), end = set.find(';');
      auto name = set.substr(0, eq);
      auto value = set.substr(eq + 1, end == std::string::npos ? end : end - eq - 1);
      bool expired = value.empty() || set.find("Max-Age=0") != std::string::npos ||
                     set.find("expires=Thu, 01 Jan 1970") != std::string::npos;
      if (expired)
        jar_[host].erase(name);
      else
        jar_[host][name] = value;
    }
    if (r->status < 300 || r->status > 399 || !r->has_header("Location"))
      return r;
    auto location = r->get_header_value("Location");
    at = location.rfind("http", 0) == 0 ? location : origin + location;
  }
  throw std::runtime_error("more than 20 redirects from " + start);
}

std::string test_browser::cookie(const std::string& host, const std::string& name) const {
  auto h = jar_.find(host);
  if (h == jar_.end())
    return "";
  auto c = h->second.find(name);
  return c == h->second.end() ? "" : c->second;
}

} // namespace belay::test
