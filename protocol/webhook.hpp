// The JSON body a webhook channel POSTs (and signs) for a page.
#pragma once

#include "protocol/page.hpp"

#include <string>

namespace belay::protocol {

// {"id","dedupKey","title","severity","status","loop","step","target","attempt"}, as
// the incident was recorded; a status update adds "update", "by" and "via", an
// answerable page "ackUrl" (the answer page, docs/http.md#outbound-webhook). The same
// page gives the same bytes, so a retry signs the same body.
std::string webhook_body(const page& p);

} // namespace belay::protocol
