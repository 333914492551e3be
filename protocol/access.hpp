// Who is at the keyboard and what they may do (docs/security.md): roles, the scopes of
// keys, the access each route needs, and the caller every handler receives. Plain data
// and arithmetic; the HTTP layer resolves a request's credential into a caller.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace belay::protocol {

// A user's role. Ordered: each may do what the ones before it may.
enum class role { viewer, responder, admin };

// "viewer", "responder", "admin".
std::string_view role_name(role r);
std::optional<role> parse_role(std::string_view text);

// A key's scope (provisioning apiKeys, personal tokens): "read", "responder", "admin",
// the role it acts with.
std::string_view scope_name(role r);
std::optional<role> parse_scope(std::string_view text);

// The least a route asks of its caller (http/ adds each route with one).
enum class access {
  open,    // no belay credential: health, ingest (integration keys), answer links,
           // signed callbacks, the sign-in routes themselves
  person,  // a signed-in user (a session or a personal token), whatever their role
  read,    // viewer and above
  respond, // responder and above
  admin,
};

std::string_view access_name(access a);
// The least role that `a` admits; nullopt for open routes, which take none.
std::optional<role> least_role(access a);
// Whether a caller with `r` may use a route needing `a` (open: anyone).
bool permits(role r, access a);

// How a caller proved who they are.
enum class credential { api_key, personal_token, session };

// The identity a request acts with, resolved once before its handler runs
// (http/admission.hpp). Handlers take who and how from here, never from a header.
struct caller {
  int64_t org_id = 0;
  credential kind = credential::api_key;
  role acts_as = role::viewer;
  std::string user;       // session and personal token: the user's name
  std::string key_name;   // API key: its provisioned name ("" for a plain-string key)
  std::string key_label;  // API key: "sha256:<12 hex>", naming a key with no name
  int64_t session_id = 0; // session: its row
  std::string source_ip;
};

// Who, as the timeline and the audit log record it: the user's name, or
// "key:<name>" for an API key ("key:sha256:<12 hex>" for one without a name).
std::string actor_of(const caller& c);
// How, as `via` records it: "console" for a session (a browser), "api" otherwise.
std::string via_of(const caller& c);
// An admin-scoped API key may name the person it acts for ("by" in a body: an
// integration acting for someone); every other caller is who they are.
bool speaks_for_others(const caller& c);
// A plain-string API key (round 1's): its acknowledges still need "by".
bool is_unnamed_key(const caller& c);

} // namespace belay::protocol
