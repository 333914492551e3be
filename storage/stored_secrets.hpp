// The secret columns as a whole (docs/guarantees.md#no-key-at-rest-in-clear): channel
// url, secret and signing_secret, and the answer-link signing secret. What start-up
// checks before it writes anything, the sealing of clear values, and `belay rekey`.
#pragma once

#include "protocol/provisioning.hpp"
#include "storage/sealed.hpp"

#include <map>
#include <string>

namespace belay::storage {

class connection;

// A channel with a URL or a secret (Slack webhook URLs and Twilio auth tokens included).
bool holds_channel_secret(const protocol::provisioning& p);

// Refuses (std::invalid_argument: exit code 2) before anything is written: without a
// current key, when `file_holds_secret` or the database holds a channel secret or any
// sealed value; with keys, when a stored value is sealed under a key id the ring lacks
// (the message names the id, never a value). Reads only, and works on a database of
// any migration (or none yet).
void check_stored_secrets(connection& c, const keyring& keys, bool file_holds_secret);

// Seals every clear value under the current key; with `rekey`, also rewrites every value
// sealed under another key. One transaction; answers how many values were rewritten.
size_t seal_stored_secrets(connection& c, const keyring& keys, bool rekey);

// A channel's secret columns as stored (sealed or clear).
struct stored_channel_secrets {
  std::string url, secret, signing_secret;
};
std::map<std::string, stored_channel_secrets> channel_secrets_of_org(connection& c,
                                                                     int64_t org_id);

// What to store for `plain` where `stored` is: `stored` itself when it is sealed under
// the current key and holds `plain` (so re-applying a file changes no row, though every
// seal draws a new nonce), else `plain` sealed.
std::string reseal_unless_same(const keyring& keys, const std::string& stored,
                               const std::string& plain);

} // namespace belay::storage
