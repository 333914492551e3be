#include "protocol/identity_json.hpp"

#include "protocol/field_reader.hpp"
#include "protocol/json_document.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/limits.hpp"

namespace belay::protocol {

namespace {

constexpr std::size_t max_password_bytes = 1024;
constexpr std::size_t max_token_name_chars = 100;

template <class T, class Read> parsed<T> read_body(std::string_view body, Read read) {
  rapidjson::Document doc;
  if (auto bad = parse_json(doc, body, "request body"))
    return *bad;
  std::optional<error> failure;
  field_reader r(doc, "", failure);
  T out = read(r);
  if (failure)
    return *failure;
  return out;
}

void write_token_fields(json_writer& w, const token_view& t) {
  w.StartObject();
  w.Key("id");
  w.Int64(t.id);
  w.Key("name");
  write_string(w, t.name);
  w.Key("scope");
  write_string(w, scope_name(t.scope));
  w.Key("createdAt");
  write_time(w, t.created_at);
  w.EndObject();
}

} // namespace

parsed<password_sign_in> parse_password_sign_in(std::string_view body) {
  return read_body<password_sign_in>(body, [](field_reader& r) {
    password_sign_in s;
    s.org = r.required_string("org", max_name_chars);
    s.login = r.required_string("login", max_name_chars);
    s.password = r.required_string("password", max_password_bytes);
    return s;
  });
}

parsed<password_change> parse_password_change(std::string_view body) {
  return read_body<password_change>(body, [](field_reader& r) {
    password_change p;
    p.current = r.optional_string("currentPassword", max_password_bytes, blank::allowed)
                    .value_or("");
    p.next = r.required_string("newPassword", max_password_bytes);
    return p;
  });
}

parsed<token_request> parse_token_request(std::string_view body) {
  return read_body<token_request>(body, [](field_reader& r) {
    token_request t;
    t.name = r.required_string("name", max_token_name_chars);
    if (auto scope = r.optional_choice("scope", {"admin", "responder", "read"}))
      t.scope = parse_scope(*scope);
    return t;
  });
}

std::string render_me(const me_view& me) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("user");
  w.StartObject();
  w.Key("name");
  write_string(w, me.name);
  w.Key("login");
  write_string_or_null(w, me.login);
  w.Key("role");
  write_string(w, role_name(me.acts_as));
  w.Key("org");
  write_string(w, me.org);
  w.EndObject();
  w.Key("credential");
  write_string(w, me.credential);
  w.Key("csrfToken");
  write_string_or_null(w, me.csrf_token);
  w.EndObject();
  return to_string(out);
}

std::string render_token(const token_view& t, const std::string& secret) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("token");
  write_token_fields(w, t);
  if (!secret.empty()) {
    w.Key("secret");
    write_string(w, secret);
  }
  w.EndObject();
  return to_string(out);
}

std::string render_tokens(const std::vector<token_view>& all) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("tokens");
  w.StartArray();
  for (auto& t : all)
    write_token_fields(w, t);
  w.EndArray();
  w.EndObject();
  return to_string(out);
}

} // namespace belay::protocol
