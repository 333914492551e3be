// No secret at rest in clear (docs/guarantees.md#no-secret-at-rest): payloads kept as
// evidence lose their routing_key and Authorization-like members before they are stored.
#pragma once

#include <rapidjson/document.h>
#include <string>
#include <string_view>

namespace belay::protocol {

// A member name that usually holds a credential: case and '-'/'_' ignored, it contains
// authorization, authentication, password, passwd, passphrase, secret, token, apikey,
// routingkey, integrationkey, accesskey, privatekey, credential, cookie or bearer.
bool is_secret_field(std::string_view name);

// `v` as compact JSON without secret-named members, at any depth: the parsed document
// rendered once, as compact_json would, never parsed again.
std::string compact_json_without_secrets(const rapidjson::Value& v);

// A request path fit for a log line: the secret segment of /hb/<key>… and /a/<token>
// becomes "…" (a heartbeat key and an answer token are credentials in the path; what
// follows a key, e.g. /start, stays). The query string is not part of a path.
std::string loggable_path(std::string_view path);

} // namespace belay::protocol
