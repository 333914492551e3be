// Who may do what (docs/security.md#roles): the roles' order, the access of each route
// level, and who a write is recorded as.
#include "protocol/access.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;

TEST_CASE("each role may do what the roles below it may, and no more") {
  // The table of docs/security.md#roles, row by row.
  struct row {
    access need;
    bool viewer, responder, admin;
  } table[] = {{access::open, true, true, true},
               {access::person, true, true, true},
               {access::read, true, true, true},
               {access::respond, false, true, true},
               {access::admin, false, false, true}};
  for (auto& r : table) {
    INFO("access " << access_name(r.need));
    CHECK(permits(role::viewer, r.need) == r.viewer);
    CHECK(permits(role::responder, r.need) == r.responder);
    CHECK(permits(role::admin, r.need) == r.admin);
  }
  CHECK_FALSE(least_role(access::open));
  CHECK(least_role(access::respond) == role::responder);
}

TEST_CASE("roles and scopes read and print as provisioning names them") {
  for (auto r : {role::viewer, role::responder, role::admin}) {
    CHECK(parse_role(role_name(r)) == r);
    CHECK(parse_scope(scope_name(r)) == r);
  }
  CHECK(scope_name(role::viewer) == "read");
  CHECK_FALSE(parse_role("read"));
  CHECK_FALSE(parse_scope("viewer"));
  CHECK_FALSE(parse_role("Admin"));
}

TEST_CASE("a write is recorded as the user, or as the key by its name or label") {
  caller session;
  session.kind = credential::session;
  session.user = "alice";
  session.acts_as = role::responder;
  CHECK(actor_of(session) == "alice");
  CHECK(via_of(session) == "console");
  CHECK_FALSE(speaks_for_others(session));

  caller token = session;
  token.kind = credential::personal_token;
  token.key_name = "laptop";
  token.acts_as = role::admin; // even an admin's token is its user
  CHECK(actor_of(token) == "alice");
  CHECK(via_of(token) == "api");
  CHECK_FALSE(speaks_for_others(token));

  caller named;
  named.kind = credential::api_key;
  named.key_name = "ci";
  named.key_label = "sha256:0123456789ab";
  named.acts_as = role::responder;
  CHECK(actor_of(named) == "key:ci");
  CHECK_FALSE(speaks_for_others(named));
  CHECK_FALSE(is_unnamed_key(named));

  caller plain = named;
  plain.key_name = "";
  plain.acts_as = role::admin;
  CHECK(actor_of(plain) == "key:sha256:0123456789ab");
  CHECK(speaks_for_others(plain)); // an integration acting for someone
  CHECK(is_unnamed_key(plain));
}
