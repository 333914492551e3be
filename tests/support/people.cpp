#include "support/people.hpp"

#include "support/belay_process.hpp"

namespace belay::test {

namespace {

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string{"'\\''"} : std::string(1, c);
  return out + "'";
}

} // namespace

std::string people_org(const std::string& name, const std::string& auth) {
  auto org = R"({"name":")" + name + R"(",
    "apiKeys":[")" +
             name + R"(-key",{"name":"reader","key":")" + name +
             R"(-reader","scope":"read"},
               {"name":"pager","key":")" +
             name + R"(-pager","scope":"responder"},
               {"name":"ops","key":")" +
             name + R"(-ops","scope":"admin"}],
    "auth":)" +
             auth + R"(,
    "users":[{"name":"ada","role":"admin","login":"ada@example.com",
              "contacts":[{"name":"log","channel":"log","to":"ada"}],
              "rules":[{"contact":"log","delaySeconds":0}]},
             {"name":"rita","login":"rita@example.com",
              "contacts":[{"name":"log","channel":"log","to":"rita"}],
              "rules":[{"contact":"log","delaySeconds":0}]},
             {"name":"vera","role":"viewer","login":"vera@example.com",
              "contacts":[{"name":"log","channel":"log","to":"vera"}],
              "rules":[{"contact":"log","delaySeconds":0}]}],
    "channels":[{"name":"log","type":"log"}],
    "policies":[{"name":"default","steps":[
      {"delaySeconds":0,"targets":[{"channel":"log","to":"#ops"}]},
      {"delaySeconds":86400,"targets":[{"channel":"log","to":"lead"}]}]}],
    "integrations":[{"name":"pd","type":"events","key":")" +
             name + R"(-routing","policy":"default"}]})";
  return org;
}

std::string people_orgs() {
  auto all = two_orgs();
  // two_orgs() is {"orgs":[<alpha>,<beta>]}: keep its beta.
  auto beta = all.substr(all.find(R"({"name":"beta")"));
  return R"({"orgs":[)" + people_org("alpha") + "," + beta;
}

command_result set_password(const test_database& db, const std::string& org,
                            const std::string& login, const std::string& password) {
  return run_command(
      "printf '%s\\n' " + shell_quoted(password) +
      " | BELAY_DATA_ENCRYPTION_KEY_FILE=" + shell_quoted(test_key_file()) + " " +
      BELAY_BINARY + " user set-password " + shell_quoted(org) + " " +
      shell_quoted(login) + " --database-url " + shell_quoted(db.url()) + " 2>&1");
}

session sign_in(httplib::Client& http, const std::string& org, const std::string& login,
                const std::string& password) {
  session s;
  auto body = R"({"org":")" + org + R"(","login":")" + login + R"(","password":")" +
              password + R"("})";
  auto r = http.Post("/auth/password", body, "application/json");
  if (!r)
    return s;
  s.status = r->status;
  auto set = r->get_header_value("Set-Cookie");
  s.cookie = set.substr(0, set.find(';'));
  auto reply = to_reply(r);
  if (reply.json.IsObject() && reply.json.HasMember("csrfToken") &&
      reply.json["csrfToken"].IsString())
    s.csrf = reply.json["csrfToken"].GetString();
  return s;
}

httplib::Headers session_headers(const session& s, bool write) {
  httplib::Headers h{{"Cookie", s.cookie}};
  if (write)
    h.emplace("X-CSRF-Token", s.csrf);
  return h;
}

} // namespace belay::test
