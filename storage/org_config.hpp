// One org's configuration as storage has it, in the provisioning shape
// (GET /api/v1/config, docs/http.md#configuration-api).
#pragma once

#include "protocol/provisioning.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace belay::storage {

class connection;

// Items in name order. Every secret or key that is stored reads as
// protocol::stored_secret: the statements mask them, so no secret leaves the database
// here. apiKeys holds one stored_secret a key.
protocol::provisioned_org load_org_config(connection& c, int64_t org_id);

// The org's name; nullopt if there is no such org.
std::optional<std::string> org_name(connection& c, int64_t org_id);

} // namespace belay::storage
