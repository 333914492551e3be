#include "storage/sealed.hpp"

#include "protocol/encoding.hpp"
#include "protocol/hash.hpp"

#include <cctype>
#include <fstream>
#include <memory>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sstream>
#include <stdexcept>

namespace belay::storage {

namespace {

constexpr std::string_view prefix = "sealed:v1:";
constexpr size_t key_size = 32;
constexpr size_t nonce_size = 12;
constexpr size_t tag_size = 16;
constexpr size_t key_id_size = 8;

using cipher_context = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

cipher_context new_context() {
  cipher_context ctx{EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free};
  if (!ctx)
    throw std::runtime_error("cannot create a cipher context");
  return ctx;
}

const unsigned char* bytes_of(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

unsigned char* bytes_of(std::string& s) {
  return reinterpret_cast<unsigned char*>(&s[0]);
}

std::optional<std::string> from_hex(std::string_view text) {
  if (text.size() % 2 != 0)
    return std::nullopt;
  std::string out;
  for (size_t i = 0; i < text.size(); i += 2) {
    auto digit = [](char c) -> int {
      if (c >= '0' && c <= '9')
        return c - '0';
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    int hi = digit(text[i]), lo = digit(text[i + 1]);
    if (hi < 0 || lo < 0)
      return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

// Standard base64 with padding (what `openssl rand -base64 32` writes).
std::optional<std::string> from_base64(std::string_view text) {
  if (text.empty() || text.size() % 4 != 0)
    return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(bytes_of(out), bytes_of(text), static_cast<int>(text.size()));
  if (n < 0)
    return std::nullopt;
  size_t padding = 0;
  for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i)
    ++padding;
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

std::string trimmed(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r\n");
  auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? "" : std::string{s.substr(b, e - b + 1)};
}

const data_key* key_with_id(const keyring& keys, const std::string& id) {
  if (keys.current && keys.current->id == id)
    return &*keys.current;
  if (keys.old && keys.old->id == id)
    return &*keys.old;
  return nullptr;
}

} // namespace

data_key parse_data_key(std::string_view text, const std::string& setting) {
  auto t = trimmed(text);
  auto bytes = t.size() == 2 * key_size ? from_hex(t) : from_base64(t);
  if (!bytes || bytes->size() != key_size)
    throw std::invalid_argument(setting +
                                ": the key file must hold 32 bytes as 64 hex digits or "
                                "as base64 (e.g. `openssl rand -hex 32`)");
  return {sha256_hex(*bytes).substr(0, key_id_size), *bytes};
}

data_key read_data_key_file(const std::string& path, const std::string& setting) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    throw std::invalid_argument(setting + ": cannot read the key file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return parse_data_key(text.str(), setting);
}

bool is_sealed(std::string_view stored) {
  return stored.substr(0, prefix.size()) == prefix;
}

std::string sealed_key_id(std::string_view stored) {
  if (!is_sealed(stored))
    return "";
  auto rest = stored.substr(prefix.size());
  return std::string{rest.substr(0, rest.find(':'))};
}

std::string seal(const keyring& keys, std::string_view plain) {
  if (plain.empty() || !keys.current)
    return std::string{plain};
  std::string out(nonce_size + plain.size() + tag_size, '\0');
  auto* nonce = bytes_of(out);
  if (RAND_bytes(nonce, static_cast<int>(nonce_size)) != 1)
    throw std::runtime_error("no random bytes for a nonce");
  auto ctx = new_context();
  int len = 0;
  if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr,
                         bytes_of(keys.current->bytes), nonce) != 1 ||
      EVP_EncryptUpdate(ctx.get(), nonce + nonce_size, &len, bytes_of(plain),
                        static_cast<int>(plain.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), nonce + nonce_size + len, &len) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(tag_size),
                          nonce + nonce_size + plain.size()) != 1)
    throw std::runtime_error("cannot seal a value");
  return std::string{prefix} + keys.current->id + ":" + protocol::base64url_encode(out);
}

std::string open(const keyring& keys, std::string_view stored) {
  if (!is_sealed(stored))
    return std::string{stored};
  auto id = sealed_key_id(stored);
  const auto* key = key_with_id(keys, id);
  if (!key)
    throw std::runtime_error(
        "a stored secret is sealed under key id '" + id +
        "', which this node does not hold: give that key with "
        "--data-encryption-key-file or --data-encryption-key-old-file");
  auto sealed = protocol::base64url_decode(stored.substr(prefix.size() + id.size() + 1));
  if (!sealed || sealed->size() < nonce_size + tag_size)
    throw std::runtime_error("a stored secret under key id '" + id + "' is malformed");
  auto* nonce = bytes_of(*sealed);
  size_t text_size = sealed->size() - nonce_size - tag_size;
  std::string plain(text_size, '\0');
  auto ctx = new_context();
  int len = 0;
  bool ok =
      EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, bytes_of(key->bytes),
                         nonce) == 1 &&
      EVP_DecryptUpdate(ctx.get(), bytes_of(plain), &len, nonce + nonce_size,
                        static_cast<int>(text_size)) == 1 &&
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(tag_size),
                          nonce + nonce_size + text_size) == 1 &&
      EVP_DecryptFinal_ex(ctx.get(), bytes_of(plain) + len, &len) == 1;
  if (!ok)
    throw std::runtime_error("a stored secret under key id '" + id +
                             "' does not open: it was altered, or sealed by another key");
  return plain;
}

namespace {
keyring& ring() {
  static keyring keys;
  return keys;
}
} // namespace

void set_process_keyring(keyring keys) {
  ring() = std::move(keys);
}

const keyring& process_keyring() {
  return ring();
}

} // namespace belay::storage
