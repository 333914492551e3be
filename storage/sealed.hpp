// Secrets at rest (docs/guarantees.md#no-key-at-rest-in-clear): channel credentials and
// the answer-link signing secret are stored sealed with AES-256-GCM under the data
// encryption key, as "sealed:v1:<key id>:<base64url of nonce, ciphertext, tag>". A
// random 96-bit nonce per value; the key id (the first 8 hex digits of the key's
// SHA-256) names the key without revealing it, so a value under a key this node does
// not hold is refused by name.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace belay::storage {

struct data_key {
  std::string id;    // 8 hex digits
  std::string bytes; // 32 bytes
};

// The key as its file holds it: 64 hex digits or the base64 of 32 bytes, surrounding
// whitespace ignored. Throws std::invalid_argument naming `setting`, never the text.
data_key parse_data_key(std::string_view text, const std::string& setting);
// The key in the file at `path` (parse_data_key).
data_key read_data_key_file(const std::string& path, const std::string& setting);

// The keys a node holds: values are sealed under `current`; `old` only opens values
// written before a rotation, until `belay rekey` has rewritten them.
struct keyring {
  std::optional<data_key> current;
  std::optional<data_key> old;
  bool empty() const { return !current && !old; }
};

bool is_sealed(std::string_view stored);
// The key id a sealed value names; empty for a clear value.
std::string sealed_key_id(std::string_view stored);

// `plain` sealed under the current key; without one (no key given) the value stays in
// clear, and the empty string always stays empty (there is no secret to hide).
std::string seal(const keyring& keys, std::string_view plain);
// The plain value of a stored one (a clear value is its own plain value). Throws
// std::runtime_error naming the key id when no key of the ring has that id, or when
// the value does not open (altered, or a different key with a clashing id).
std::string open(const keyring& keys, std::string_view stored);

// The ring every read and write of a secret column uses: set once at start-up, before
// any channel is loaded; empty until then (values stay in clear).
void set_process_keyring(keyring keys);
const keyring& process_keyring();

} // namespace belay::storage
