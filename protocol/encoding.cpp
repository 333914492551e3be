#include "protocol/encoding.hpp"

#include <cstdint>

namespace belay::protocol {

namespace {

constexpr char standard_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char url_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string encode(std::string_view bytes, const char* alphabet, bool pad) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t left = bytes.size() - i;
    std::uint32_t chunk = static_cast<unsigned char>(bytes[i]) << 16;
    if (left > 1)
      chunk |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (left > 2)
      chunk |= static_cast<unsigned char>(bytes[i + 2]);
    out += alphabet[(chunk >> 18) & 63];
    out += alphabet[(chunk >> 12) & 63];
    if (left > 1)
      out += alphabet[(chunk >> 6) & 63];
    else if (pad)
      out += '=';
    if (left > 2)
      out += alphabet[chunk & 63];
    else if (pad)
      out += '=';
  }
  return out;
}

int url_digit(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '-')
    return 62;
  if (c == '_')
    return 63;
  return -1;
}

} // namespace

std::string base64_encode(std::string_view bytes) {
  return encode(bytes, standard_alphabet, true);
}

std::string base64url_encode(std::string_view bytes) {
  return encode(bytes, url_alphabet, false);
}

std::optional<std::string> base64url_decode(std::string_view text) {
  // One leftover character would carry 6 bits: less than a byte.
  if (text.size() % 4 == 1)
    return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t bits = 0;
  int bit_count = 0;
  for (char c : text) {
    const int digit = url_digit(c);
    if (digit < 0)
      return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(digit);
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      out += static_cast<char>((bits >> bit_count) & 0xff);
    }
  }
  // What is left over is padding inside the last character; it must be zero.
  if ((bits & ((1u << bit_count) - 1)) != 0)
    return std::nullopt;
  return out;
}

} // namespace belay::protocol
