// docs/security.md: signing in with a password, sessions shared by every node and ended
// on every node, CSRF on a session's writes, personal tokens, who a write is attributed
// to, and the audit log with its hash chain — through the real binary.
#include "support/people.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using test::session_headers;

namespace {

constexpr const char* pw_ada = "correct horse ada";
constexpr const char* pw_rita = "correct horse rita";

// alpha's people with passwords for ada and rita; `nodes` nodes on one database.
struct people {
  explicit people(int nodes = 1) : belay{test::people_orgs(), nodes} {
    REQUIRE(test::set_password(belay.db, "alpha", "ada@example.com", pw_ada).exit_code ==
            0);
    REQUIRE(
        test::set_password(belay.db, "alpha", "RITA@example.com", pw_rita).exit_code ==
        0);
  }
  test::session as(const std::string& login, const std::string& pw, int node = 0) {
    auto http = belay.client(node);
    auto s = test::sign_in(http, "alpha", login, pw);
    REQUIRE(s.status == 200);
    return s;
  }
  test::reply me(const test::session& s, int node = 0) {
    return test::to_reply(
        belay.client(node).Get("/api/v1/me", session_headers(s, false)));
  }
  test::reply post(const std::string& path, const std::string& body,
                   const httplib::Headers& h, int node = 0) {
    return test::to_reply(
        belay.client(node).Post(path.c_str(), h, body, "application/json"));
  }
  std::string audit_actions(const std::string& where = "true") {
    auto r =
        belay.db.sql().query("SELECT coalesce(string_agg(action || ' ' || actor || ' ' "
                             "|| via, ', ' ORDER BY id), '') FROM audit WHERE " +
                             where);
    return r.str(0, 0);
  }
  test::served_belay belay;
};

httplib::Headers key(const std::string& k) {
  return {{"Authorization", test::bearer(k)}};
}

} // namespace

TEST_CASE("a password sign-in gives a session cookie a browser keeps to itself") {
  people p;
  auto http = p.belay.client();
  auto r = http.Post("/auth/password",
                     R"({"org":"alpha","login":"ada@example.com","password":")" +
                         std::string{pw_ada} + R"("})",
                     "application/json");
  REQUIRE(r);
  CHECK(r->status == 200);
  auto cookie = r->get_header_value("Set-Cookie");
  CHECK(cookie.rfind("belay_session=belay_s_", 0) == 0);
  CHECK(cookie.find("; HttpOnly") != std::string::npos);
  CHECK(cookie.find("; SameSite=Lax") != std::string::npos);
  CHECK(cookie.find("; Path=/;") != std::string::npos);
  CHECK(cookie.find("Secure") == std::string::npos); // the public URL is http here
  CHECK(r->get_header_value("Cache-Control") == "no-store");
  auto me = test::to_reply(r);
  CHECK(std::string{me.json["user"]["name"].GetString()} == "ada");
  CHECK(std::string{me.json["user"]["role"].GetString()} == "admin");
  CHECK(std::string{me.json["user"]["org"].GetString()} == "alpha");
  // The database keeps its hash, never the token.
  auto token = cookie.substr(std::string{"belay_session="}.size(),
                             cookie.find(';') - std::string{"belay_session="}.size());
  CHECK(p.belay.count("SELECT count(*) FROM session") == 1);
  CHECK(p.belay.db.dump().find(token) == std::string::npos);
  CHECK(p.audit_actions("action = 'session.sign_in'") == "session.sign_in ada password");

  // The sign-in form: a 303 to `next` (a path of this site only).
  auto form = http.Post("/auth/password",
                        "org=alpha&login=ada%40example.com&password=correct+horse+ada&"
                        "next=%2Fconsole%23x",
                        "application/x-www-form-urlencoded");
  REQUIRE(form);
  CHECK(form->status == 303);
  CHECK(form->get_header_value("Location") == "/console#x");
  auto away = http.Post("/auth/password",
                        "org=alpha&login=ada%40example.com&password=correct+horse+ada&"
                        "next=https%3A%2F%2Fevil.example%2F",
                        "application/x-www-form-urlencoded");
  REQUIRE(away);
  CHECK(away->get_header_value("Location") == "/console");
}

TEST_CASE("a wrong password, an unknown login and a user without one look the same") {
  people p;
  auto http = p.belay.client();
  auto attempt = [&](const std::string& login, const std::string& pw) {
    return test::to_reply(http.Post("/auth/password",
                                    R"({"org":"alpha","login":")" + login +
                                        R"(","password":")" + pw + R"("})",
                                    "application/json"));
  };
  auto wrong = attempt("ada@example.com", "not her password");
  auto nobody = attempt("mallory@example.com", "whatever it is");
  auto unset = attempt("vera@example.com", "she has none yet");
  for (auto* r : {&wrong, &nobody, &unset}) {
    CHECK(r->status == 401);
    CHECK(test::error_code(*r) == "invalid_credentials");
    CHECK(r->body == wrong.body);
  }
  CHECK(p.belay.count("SELECT count(*) FROM session") == 0);
  // The audit log says which it was; no password is in it.
  CHECK(p.belay.count(
            "SELECT count(*) FROM audit WHERE action = 'session.sign_in_failed'") == 3);
  CHECK(p.belay.db.dump().find("not her password") == std::string::npos);

  // The 11th try of one login in a minute waits, whatever the password.
  for (int i = 0; i < 9; ++i)
    attempt("ada@example.com", "guess " + std::to_string(i));
  auto over = http.Post("/auth/password",
                        R"({"org":"alpha","login":"ada@example.com","password":")" +
                            std::string{pw_ada} + R"("})",
                        "application/json");
  REQUIRE(over);
  CHECK(over->status == 429);
  CHECK(std::stoi(over->get_header_value("Retry-After")) > 0);
}

TEST_CASE("a session's writes need its CSRF token, and act as its user") {
  people p;
  auto rita = p.as("rita@example.com", pw_rita);
  auto ada = p.as("ada@example.com", pw_ada);
  auto id = p.belay.open("disk", "default");
  auto ack = "/api/v1/incidents/" + std::to_string(id) + "/ack";

  auto bare = p.post(ack, R"({"by":"mallory"})", session_headers(rita, false));
  CHECK(bare.status == 403);
  CHECK(test::error_code(bare) == "csrf_failed");
  // Another session's token does not fit this one.
  auto other = session_headers(rita, false);
  other.emplace("X-CSRF-Token", ada.csrf);
  CHECK(test::error_code(p.post(ack, "{}", other)) == "csrf_failed");
  CHECK(p.belay.db.incident_status(id) == "OPEN");

  // With it: acknowledged as rita, whatever "by" says.
  auto done = p.post(ack, R"({"by":"mallory"})", session_headers(rita));
  CHECK(done.status == 200);
  CHECK(std::string{done.json["incident"]["ackedBy"].GetString()} == "rita");
  CHECK(p.belay.db.count(
            "SELECT count(*) FROM timeline WHERE incident_id = $1 AND kind = "
            "'acknowledged' AND detail->>'by' = 'rita' AND detail->>'via' = 'console'",
            id) == 1);
  CHECK(p.audit_actions("action LIKE 'incident.%'") == "incident.ack rita console");
}

TEST_CASE("who a write is attributed to comes from its credential") {
  people p;
  auto by = [&](const std::string& dedup, const std::string& k, const std::string& body) {
    auto id = p.belay.open(dedup, "default");
    auto r = p.post("/api/v1/incidents/" + std::to_string(id) + "/resolve", body, key(k));
    REQUIRE(r.status == 200);
    return p.belay.db.sql()
        .query("SELECT (detail->>'by') || '/' || (detail->>'via') FROM timeline WHERE "
               "incident_id = $1 AND kind "
               "= 'resolved'",
               id)
        .str(0, 0);
  };
  // An admin key acting for someone (an integration) may say who, and how.
  CHECK(by("a", "alpha-ops", R"({"by":"alice","via":"console"})") == "alice/console");
  CHECK(by("b", "alpha-ops", "{}") == "key:ops/api");
  // A responder key is who it is.
  CHECK(by("c", "alpha-pager", R"({"by":"alice"})") == "key:pager/api");
  // Round 1's plain-string key still names the person.
  CHECK(by("d", "alpha-key", R"({"by":"bob"})") == "bob/api");
  auto id = p.belay.open("e", "default");
  auto unnamed =
      p.post("/api/v1/incidents/" + std::to_string(id) + "/ack", "{}", key("alpha-key"));
  CHECK(unnamed.status == 400);
  CHECK(test::error_field(unnamed) == "by");
}

TEST_CASE("a session holds on every node, and ends on every node") {
  people p{2};
  auto rita = p.as("rita@example.com", pw_rita, 0);
  auto ada = p.as("ada@example.com", pw_ada, 0);
  auto ada2 = p.as("ada@example.com", pw_ada, 1);
  CHECK(p.me(rita, 1).status == 200);
  CHECK(std::string{p.me(ada, 1).json["user"]["role"].GetString()} == "admin");

  // Ada signs out on node 0; her other session holds.
  auto out = p.post("/auth/logout", "", session_headers(ada), 0);
  CHECK(out.status == 204);
  CHECK(test::error_code(p.me(ada, 0)) == "session_ended");
  // Rita is made a viewer through the configuration API by ada's other session: a
  // session that began as a responder ends.
  auto config = test::to_reply(
      p.belay.client(1).Get("/api/v1/config", session_headers(ada2, false)));
  REQUIRE(config.status == 200);
  auto body = config.body;
  auto at = body.find(R"("name":"rita")");
  REQUIRE(at != std::string::npos);
  body.insert(at + std::string{R"("name":"rita")"}.size(), R"(,"role":"viewer")");
  auto h = session_headers(ada2);
  auto put = test::to_reply(
      p.belay.client(1).Put("/api/v1/config", h, body, "application/json"));
  REQUIRE(put.status == 200);
  CHECK(p.belay.count("SELECT count(*) FROM session WHERE user_name = 'rita'") == 0);
  // Both end on the other node within its cache's 10 s.
  CHECK(test::eventually([&] { return p.me(ada, 1).status == 401; },
                         std::chrono::seconds{15}));
  CHECK(test::eventually([&] { return p.me(rita, 1).status == 401; },
                         std::chrono::seconds{15}));
  CHECK(test::error_code(p.me(rita, 0)) == "session_ended");
  CHECK(p.me(ada2, 0).status == 200);
  CHECK(p.audit_actions("action IN ('session.sign_out', 'config.replace')") ==
        "session.sign_out ada console, config.replace ada console");
}

TEST_CASE("a personal token acts as its user, at most their role, until revoked") {
  people p;
  auto rita = p.as("rita@example.com", pw_rita);
  auto make = [&](const std::string& body) {
    return p.post("/api/v1/me/tokens", body, session_headers(rita));
  };
  auto above = make(R"({"name":"root","scope":"admin"})");
  CHECK(above.status == 403);
  CHECK(test::error_code(above) == "scope_above_role");
  auto made = make(R"({"name":"cron","scope":"responder"})");
  REQUIRE(made.status == 201);
  std::string secret = made.json["secret"].GetString();
  CHECK(secret.rfind("belay_pat_", 0) == 0);
  CHECK(p.belay.db.dump().find(secret) == std::string::npos);
  CHECK(test::error_code(make(R"({"name":"cron","scope":"read"})")) == "name_in_use");
  auto listed = test::to_reply(p.belay.client().Get("/api/v1/me/tokens", key(secret)));
  REQUIRE(listed.status == 200);
  CHECK(listed.json["tokens"].Size() == 1);
  CHECK(listed.body.find(secret) == std::string::npos);

  auto id = p.belay.open("disk", "default");
  auto ack = p.post("/api/v1/incidents/" + std::to_string(id) + "/ack", R"({"by":"x"})",
                    key(secret));
  CHECK(ack.status == 200);
  CHECK(std::string{ack.json["incident"]["ackedBy"].GetString()} == "rita");

  auto token_id = std::to_string(made.json["token"]["id"].GetInt64());
  auto gone = test::to_reply(p.belay.client().Delete(
      ("/api/v1/me/tokens/" + token_id).c_str(), session_headers(rita)));
  CHECK(gone.status == 204);
  CHECK(test::eventually(
      [&] {
        return test::error_code(test::to_reply(
                   p.belay.client().Get("/api/v1/me", key(secret)))) == "unknown_key";
      },
      std::chrono::seconds{15}));
  CHECK(p.audit_actions("action LIKE 'token.%' OR action = 'incident.ack'") ==
        "token.create rita console, incident.ack rita api, token.revoke rita console");
}

TEST_CASE("the audit log lists an org's rows to its admins, and belay audit verify "
          "finds a row altered or removed") {
  people p;
  auto ada = p.as("ada@example.com", pw_ada);
  auto id = p.belay.open("disk", "default");
  p.post("/api/v1/incidents/" + std::to_string(id) + "/ack", "{}", session_headers(ada));
  auto page = test::to_reply(
      p.belay.client().Get("/api/v1/audit?action=incident.ack", key("alpha-ops")));
  REQUIRE(page.status == 200);
  REQUIRE(page.json["audit"].Size() == 1);
  auto& row = page.json["audit"][0];
  CHECK(std::string{row["actor"].GetString()} == "ada");
  CHECK(std::string{row["object"]["name"].GetString()} == std::to_string(id));
  // Beta's admin sees none of alpha's.
  auto beta = test::to_reply(p.belay.client().Get("/api/v1/audit", key("beta-key")));
  REQUIRE(beta.status == 200);
  CHECK(beta.body.find("\"ada\"") == std::string::npos);

  auto verify = [&] {
    return test::run_command(std::string{BELAY_BINARY} +
                             " audit verify --database-url \"" + p.belay.db.url() +
                             "\" 2>&1");
  };
  auto held = verify();
  INFO(held.output);
  CHECK(held.exit_code == 0);
  CHECK(held.output.find("the chain holds") != std::string::npos);

  p.belay.db.sql().exec("UPDATE audit SET actor = 'bob' WHERE action = 'incident.ack'");
  auto altered = verify();
  INFO(altered.output);
  CHECK(altered.exit_code == 1);
  CHECK(altered.output.find("BROKEN at row") != std::string::npos);
  p.belay.db.sql().exec("UPDATE audit SET actor = 'ada' WHERE action = 'incident.ack'");
  CHECK(verify().exit_code == 0);
  p.belay.db.sql().exec("DELETE FROM audit WHERE action = 'session.sign_in'");
  CHECK(verify().exit_code == 1);
}

TEST_CASE("belay user set-password refuses a weak password and changes nothing") {
  test::test_database db;
  db.provision(test::people_orgs());
  auto weak = test::set_password(db, "alpha", "ada@example.com", "short");
  CHECK(weak.exit_code == 2);
  CHECK(weak.output.find("nothing changed") != std::string::npos);
  auto nobody = test::set_password(db, "alpha", "mallory@example.com", "long enough pw");
  CHECK(nobody.exit_code == 1);
  CHECK(db.count("SELECT count(*) FROM app_user WHERE password_hash IS NOT NULL") == 0);
  CHECK(test::set_password(db, "alpha", "ada@example.com", "long enough pw").exit_code ==
        0);
  auto stored =
      db.sql().query("SELECT password_hash FROM app_user WHERE name = 'ada'").str(0, 0);
  CHECK(stored.rfind("$argon2id$", 0) == 0);
  CHECK(db.count("SELECT count(*) FROM audit WHERE action = 'password.set'") == 1);
}

TEST_CASE("a user changes their own password, and no password, session or token is in a log "
          "line, the database, an audit row or an answer") {
  people p;
  auto rita = p.as("rita@example.com", pw_rita);
  auto other = p.as("rita@example.com", pw_rita);
  const std::string fresh = "a brand new passphrase";
  auto change = [&](const std::string& current, const std::string& next) {
    return p.post("/api/v1/me/password",
                  R"({"currentPassword":")" + current + R"(","newPassword":")" + next +
                      R"("})",
                  session_headers(rita));
  };
  auto weak = change(pw_rita, "short");
  CHECK(weak.status == 400);
  CHECK(test::error_code(weak) == "weak_password");
  auto wrong = change("not the current one", fresh);
  CHECK(wrong.status == 403);
  CHECK(test::error_code(wrong) == "invalid_credentials");
  CHECK(change(pw_rita, fresh).status == 204);
  // Her other sessions end; this one holds; the old password no longer signs in.
  CHECK(p.me(rita).status == 200);
  CHECK(test::eventually([&] { return p.me(other).status == 401; }));
  auto http = p.belay.client();
  CHECK(test::sign_in(http, "alpha", "rita@example.com", pw_rita).status == 401);
  CHECK(test::sign_in(http, "alpha", "rita@example.com", fresh).status == 200);

  auto made = p.post("/api/v1/me/tokens", R"({"name":"ci","scope":"read"})",
                     session_headers(rita));
  REQUIRE(made.status == 201);
  std::string pat = made.json["secret"].GetString();
  CHECK(p.belay.get("/api/v1/incidents", pat).status == 200);

  std::vector<std::string> secrets{
      pw_rita,      pw_ada,    fresh,         "short", "not the current one",
      rita.token(), rita.csrf, other.token(), pat};
  auto log = p.belay.process().log();
  auto dump = p.belay.db.dump();
  auto audit =
      p.belay.db.sql()
          .query("SELECT string_agg(actor || via || object_name || changes::text, "
                 "' ') FROM audit")
          .str(0, 0);
  auto listed = p.belay.get("/api/v1/me/tokens", pat).body +
                p.belay.get("/api/v1/audit", "alpha-ops").body +
                p.belay.get("/api/v1/config", "alpha-ops").body;
  for (auto& secret : secrets) {
    INFO(secret);
    CHECK(log.find(secret) == std::string::npos);
    CHECK(dump.find(secret) == std::string::npos);
    CHECK(audit.find(secret) == std::string::npos);
    CHECK(listed.find(secret) == std::string::npos);
  }
  CHECK(p.audit_actions("action = 'password.change'") == "password.change rita console");
  CHECK(
      p.belay.count("SELECT count(*) FROM audit WHERE action = 'password.set' AND via = "
                    "'cli' AND actor LIKE 'cli:%'") == 2);
}
