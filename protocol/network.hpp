// Outbound target checks (docs/guarantees.md#outbound-targets): IP addresses, CIDR lists,
// and which ranges are not the public Internet. Pure; the transports apply it to the
// address a connection is about to use.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace belay::protocol {

struct ip_address {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{}; // IPv4 in the first four
};

// Dotted IPv4 or RFC 4291 IPv6 text ("::ffff:10.0.0.1" included); no zone, no brackets.
std::optional<ip_address> parse_ip(std::string_view text);
std::string to_string(const ip_address& a);

struct cidr {
  ip_address network; // host bits cleared
  int prefix = 0;
};

// "10.0.0.0/8", "fd00::/8", or one address ("127.0.0.1" is 127.0.0.1/32). Host bits
// set below the prefix ("10.1.2.3/8") are refused: they are usually a typo.
// Returns the reason on failure.
std::variant<cidr, std::string> parse_cidr(std::string_view text);

// A comma-separated list (spaces allowed, empty list allowed). On failure the message
// names the entry at fault.
std::variant<std::vector<cidr>, std::string> parse_cidr_list(std::string_view text);

// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is matched as the IPv4 address.
bool contains(const cidr& net, const ip_address& a);
bool contains(const std::vector<cidr>& nets, const ip_address& a);

// What a non-public address is ("loopback", "private", "link-local", "cloud metadata",
// "unspecified", …), or empty for a public unicast address.
std::string_view non_public_range(const ip_address& a);

// Empty when belay may connect to `a`; else the reason, naming the address, its range
// and the setting that would allow it.
std::string refused_target(const ip_address& a, const std::vector<cidr>& allowed);

} // namespace belay::protocol
