#include "protocol/network.hpp"

#include <arpa/inet.h>
#include <cstring>

namespace belay::protocol {

namespace {

// The IPv4 address inside an IPv4-mapped IPv6 one, or the address itself.
ip_address unmapped(const ip_address& a) {
  static constexpr uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (!a.v6 || std::memcmp(a.bytes.data(), mapped, 12) != 0)
    return a;
  ip_address v4;
  std::memcpy(v4.bytes.data(), a.bytes.data() + 12, 4);
  return v4;
}

bool prefix_matches(const ip_address& a, const ip_address& net, int prefix) {
  int full = prefix / 8, rest = prefix % 8;
  if (std::memcmp(a.bytes.data(), net.bytes.data(), static_cast<size_t>(full)) != 0)
    return false;
  if (rest == 0)
    return true;
  auto mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (a.bytes[full] & mask) == (net.bytes[full] & mask);
}

struct range {
  const char* network;
  int prefix;
  const char* what;
};

// Most specific first: the first match names the range.
const range v4_ranges[] = {
    {"169.254.169.254", 32, "cloud metadata"},
    {"0.0.0.0", 32, "unspecified"},
    {"0.0.0.0", 8, "this network"},
    {"10.0.0.0", 8, "private"},
    {"100.64.0.0", 10, "shared address space"},
    {"127.0.0.0", 8, "loopback"},
    {"169.254.0.0", 16, "link-local"},
    {"172.16.0.0", 12, "private"},
    {"192.0.0.0", 24, "IETF protocol assignments"},
    {"192.0.2.0", 24, "documentation"},
    {"192.88.99.0", 24, "6to4 relay anycast"},
    {"192.168.0.0", 16, "private"},
    {"198.18.0.0", 15, "benchmarking"},
    {"198.51.100.0", 24, "documentation"},
    {"203.0.113.0", 24, "documentation"},
    {"224.0.0.0", 4, "multicast"},
    {"240.0.0.0", 4, "reserved"},
};

const range v6_ranges[] = {
    {"fd00:ec2::254", 128, "cloud metadata"},
    {"::", 128, "unspecified"},
    {"::1", 128, "loopback"},
    {"::", 96, "IPv4-compatible"},
    {"64:ff9b::", 96, "NAT64"},
    {"64:ff9b:1::", 48, "NAT64"},
    {"100::", 64, "discard-only"},
    {"2001::", 23, "IETF protocol assignments"},
    {"2001:db8::", 32, "documentation"},
    {"2002::", 16, "6to4"},
    {"fc00::", 7, "private (unique local)"},
    {"fe80::", 10, "link-local"},
    {"fec0::", 10, "site-local"},
    {"ff00::", 8, "multicast"},
};

template <size_t N>
std::string_view classify(const ip_address& a, const range (&ranges)[N]) {
  for (auto& r : ranges) {
    auto net = parse_ip(r.network);
    if (net && prefix_matches(a, *net, r.prefix))
      return r.what;
  }
  return {};
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

} // namespace

std::optional<ip_address> parse_ip(std::string_view text) {
  if (text.empty() || text.size() > 45)
    return std::nullopt;
  std::string s{text};
  ip_address a;
  if (s.find(':') == std::string::npos) {
    if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) != 1)
      return std::nullopt;
    return a;
  }
  a.v6 = true;
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) != 1)
    return std::nullopt;
  return a;
}

std::string to_string(const ip_address& a) {
  char out[INET6_ADDRSTRLEN] = {};
  inet_ntop(a.v6 ? AF_INET6 : AF_INET, a.bytes.data(), out, sizeof out);
  return out;
}

std::variant<cidr, std::string> parse_cidr(std::string_view text) {
  auto slash = text.find('/');
  auto address = parse_ip(text.substr(0, slash));
  if (!address)
    return "'" + std::string{text.substr(0, slash)} + "' is not an IPv4 or IPv6 address";
  int max = address->v6 ? 128 : 32;
  int prefix = max;
  if (slash != std::string_view::npos) {
    auto digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 3 ||
        digits.find_first_not_of("0123456789") != std::string_view::npos ||
        std::stoi(std::string{digits}) > max)
      return "'" + std::string{text} + "' has an invalid prefix length (0 to " +
             std::to_string(max) + ")";
    prefix = std::stoi(std::string{digits});
  }
  cidr c{*address, prefix};
  for (int bit = prefix; bit < max; ++bit)
    if (c.network.bytes[bit / 8] & (0x80 >> (bit % 8)))
      return "'" + std::string{text} + "' has host bits set below /" +
             std::to_string(prefix) + " (did you mean " +
             [&] {
               ip_address masked = c.network;
               for (int b = prefix; b < max; ++b)
                 masked.bytes[b / 8] &= static_cast<uint8_t>(~(0x80 >> (b % 8)));
               return to_string(masked);
             }() +
             "/" + std::to_string(prefix) + "?)";
  return c;
}

std::variant<std::vector<cidr>, std::string> parse_cidr_list(std::string_view text) {
  std::vector<cidr> out;
  if (trim(text).empty())
    return out;
  size_t start = 0;
  for (int n = 1;; ++n) {
    auto comma = text.find(',', start);
    auto entry = trim(text.substr(start, comma - start));
    if (entry.empty())
      return "entry " + std::to_string(n) + " is empty";
    auto parsed = parse_cidr(entry);
    if (auto* why = std::get_if<std::string>(&parsed))
      return "entry " + std::to_string(n) + ": " + *why;
    out.push_back(std::get<cidr>(parsed));
    if (comma == std::string_view::npos)
      return out;
    start = comma + 1;
  }
}

bool contains(const cidr& net, const ip_address& a) {
  auto n = unmapped(net.network);
  auto x = unmapped(a);
  int prefix = net.prefix;
  if (n.v6 != net.network.v6) // a mapped network: ::ffff:10.0.0.0/104 is 10.0.0.0/8
    prefix = std::max(0, prefix - 96);
  return n.v6 == x.v6 && prefix_matches(x, n, prefix);
}

bool contains(const std::vector<cidr>& nets, const ip_address& a) {
  for (auto& n : nets)
    if (contains(n, a))
      return true;
  return false;
}

std::string_view non_public_range(const ip_address& a) {
  auto x = unmapped(a);
  return x.v6 ? classify(x, v6_ranges) : classify(x, v4_ranges);
}

std::string refused_target(const ip_address& a, const std::vector<cidr>& allowed) {
  auto what = non_public_range(a);
  if (what.empty() || contains(allowed, a))
    return {};
  return "target address " + to_string(a) + " is " + std::string{what} +
         "; allow it with --allowed-target-networks";
}

} // namespace belay::protocol
