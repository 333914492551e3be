// Outbound target classification and CIDR lists (docs/guarantees.md#outbound-targets).
#include "protocol/network.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;

namespace {

ip_address ip(const char* text) {
  auto a = parse_ip(text);
  REQUIRE(a);
  return *a;
}

std::vector<cidr> list(const char* text) {
  auto parsed = parse_cidr_list(text);
  if (auto* why = std::get_if<std::string>(&parsed))
    FAIL(*why);
  return std::get<std::vector<cidr>>(parsed);
}

std::string list_error(const char* text) {
  auto parsed = parse_cidr_list(text);
  auto* why = std::get_if<std::string>(&parsed);
  return why ? *why : "";
}

} // namespace

TEST_CASE(
    "loopback, private, link-local, metadata and unspecified addresses are not public") {
  CHECK(non_public_range(ip("127.0.0.1")) == "loopback");
  CHECK(non_public_range(ip("127.255.0.9")) == "loopback");
  CHECK(non_public_range(ip("::1")) == "loopback");
  CHECK(non_public_range(ip("10.1.2.3")) == "private");
  CHECK(non_public_range(ip("172.16.0.1")) == "private");
  CHECK(non_public_range(ip("172.31.255.255")) == "private");
  CHECK(non_public_range(ip("192.168.1.1")) == "private");
  CHECK(non_public_range(ip("fd12:3456::1")) == "private (unique local)");
  CHECK(non_public_range(ip("fc00::1")) == "private (unique local)");
  CHECK(non_public_range(ip("169.254.169.254")) == "cloud metadata");
  CHECK(non_public_range(ip("169.254.1.1")) == "link-local");
  CHECK(non_public_range(ip("fe80::1")) == "link-local");
  CHECK(non_public_range(ip("0.0.0.0")) == "unspecified");
  CHECK(non_public_range(ip("::")) == "unspecified");
  CHECK(non_public_range(ip("100.64.0.1")) == "shared address space");
  CHECK(non_public_range(ip("224.0.0.1")) == "multicast");
  CHECK(non_public_range(ip("255.255.255.255")) == "reserved");
}

TEST_CASE("an IPv4-mapped IPv6 address is judged as its IPv4 address") {
  CHECK(non_public_range(ip("::ffff:127.0.0.1")) == "loopback");
  CHECK(non_public_range(ip("::ffff:169.254.169.254")) == "cloud metadata");
  CHECK(non_public_range(ip("::ffff:8.8.8.8")).empty());
  CHECK(contains(list("127.0.0.0/8"), ip("::ffff:127.0.0.1")));
}

TEST_CASE("public unicast addresses pass") {
  CHECK(non_public_range(ip("8.8.8.8")).empty());
  CHECK(non_public_range(ip("172.32.0.1")).empty());
  CHECK(non_public_range(ip("2606:4700::1111")).empty());
  CHECK(refused_target(ip("1.1.1.1"), {}).empty());
}

TEST_CASE("a refusal names the address, its range and the setting") {
  CHECK(refused_target(ip("127.0.0.1"), {}) ==
        "target address 127.0.0.1 is loopback; allow it with --allowed-target-networks");
  CHECK(refused_target(ip("169.254.169.254"), list("10.0.0.0/8")) ==
        "target address 169.254.169.254 is cloud metadata; allow it with "
        "--allowed-target-networks");
  CHECK(refused_target(ip("127.0.0.1"), list("127.0.0.0/8")).empty());
  CHECK(refused_target(ip("10.9.8.7"), list("10.0.0.0/8, fd00::/8")).empty());
  CHECK(refused_target(ip("fd00::5"), list("10.0.0.0/8, fd00::/8")).empty());
  CHECK_FALSE(refused_target(ip("fd01::5"), list("fd00::/16")).empty());
}

TEST_CASE("CIDR lists take addresses, prefixes and spaces, and errors name the entry") {
  auto nets = list(" 127.0.0.0/8 ,::1, 192.168.0.0/16");
  REQUIRE(nets.size() == 3);
  CHECK(nets[1].prefix == 128);
  CHECK(list("").empty());
  CHECK(contains(list("0.0.0.0/0"), ip("10.0.0.1")));
  CHECK_FALSE(contains(list("0.0.0.0/0"), ip("fd00::1")));
  CHECK(list_error("127.0.0.0/8,,10.0.0.0/8") == "entry 2 is empty");
  CHECK(list_error("localhost") == "entry 1: 'localhost' is not an IPv4 or IPv6 address");
  CHECK(list_error("10.0.0.0/33") ==
        "entry 1: '10.0.0.0/33' has an invalid prefix length (0 to 32)");
  CHECK(list_error("10.0.0.0/x") ==
        "entry 1: '10.0.0.0/x' has an invalid prefix length (0 to 32)");
  CHECK(list_error("10.1.2.3/8") ==
        "entry 1: '10.1.2.3/8' has host bits set below /8 (did you mean 10.0.0.0/8?)");
  CHECK(list_error("::1/129") ==
        "entry 1: '::1/129' has an invalid prefix length (0 to 128)");
}
