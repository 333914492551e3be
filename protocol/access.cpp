#include "protocol/access.hpp"

namespace belay::protocol {

std::string_view role_name(role r) {
  switch (r) {
  case role::viewer:
    return "viewer";
  case role::responder:
    return "responder";
  case role::admin:
    return "admin";
  }
  return "viewer";
}

std::optional<role> parse_role(std::string_view text) {
  for (auto r : {role::viewer, role::responder, role::admin})
    if (text == role_name(r))
      return r;
  return std::nullopt;
}

std::string_view scope_name(role r) {
  return r == role::viewer ? "read" : role_name(r);
}

std::optional<role> parse_scope(std::string_view text) {
  for (auto r : {role::viewer, role::responder, role::admin})
    if (text == scope_name(r))
      return r;
  return std::nullopt;
}

std::string_view access_name(access a) {
  switch (a) {
  case access::open:
    return "open";
  case access::person:
    return "person";
  case access::read:
    return "read";
  case access::respond:
    return "respond";
  case access::admin:
    return "admin";
  }
  return "admin";
}

std::optional<role> least_role(access a) {
  switch (a) {
  case access::open:
    return std::nullopt;
  case access::person:
  case access::read:
    return role::viewer;
  case access::respond:
    return role::responder;
  case access::admin:
    return role::admin;
  }
  return role::admin;
}

bool permits(role r, access a) {
  auto least = least_role(a);
  return !least || static_cast<int>(r) >= static_cast<int>(*least);
}

std::string actor_of(const caller& c) {
  if (c.kind != credential::api_key)
    return c.user;
  return "key:" + (c.key_name.empty() ? c.key_label : c.key_name);
}

std::string via_of(const caller& c) {
  return c.kind == credential::session ? "console" : "api";
}

bool speaks_for_others(const caller& c) {
  return c.kind == credential::api_key && c.acts_as == role::admin;
}

bool is_unnamed_key(const caller& c) {
  return c.kind == credential::api_key && c.key_name.empty();
}

} // namespace belay::protocol
