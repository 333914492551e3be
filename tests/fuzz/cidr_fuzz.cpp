// --allowed-target-networks (protocol/network.hpp): any text is either refused with a
// reason or read as networks whose host bits are clear; each network written back reads
// the same and contains its own address, and classifying any address never fails.
#include "checks.hpp"
#include "protocol/network.hpp"

#include <cstring>

using namespace belay;
using namespace belay::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto input = bytes(data, size);
  auto parsed = protocol::parse_cidr_list(input);
  if (auto* why = std::get_if<std::string>(&parsed)) {
    FUZZ_CHECK(!why->empty());
    FUZZ_CHECK(why->rfind("entry ", 0) == 0);
    return 0;
  }
  std::string again;
  for (auto& net : std::get<std::vector<protocol::cidr>>(parsed)) {
    FUZZ_CHECK(net.prefix >= 0 && net.prefix <= (net.network.v6 ? 128 : 32));
    FUZZ_CHECK(protocol::contains(net, net.network));
    (void)protocol::non_public_range(net.network);
    if (!again.empty())
      again += ",";
    again += protocol::to_string(net.network) + "/" + std::to_string(net.prefix);
  }
  auto round = protocol::parse_cidr_list(again);
  FUZZ_CHECK(std::holds_alternative<std::vector<protocol::cidr>>(round));
  auto& first = std::get<std::vector<protocol::cidr>>(parsed);
  auto& second = std::get<std::vector<protocol::cidr>>(round);
  FUZZ_CHECK(first.size() == second.size());
  for (size_t i = 0; i < first.size(); ++i) {
    FUZZ_CHECK(first[i].prefix == second[i].prefix);
    FUZZ_CHECK(first[i].network.v6 == second[i].network.v6);
    FUZZ_CHECK(first[i].network.bytes == second[i].network.bytes);
  }
  // Any 16 bytes are an address to classify.
  if (size >= 16) {
    protocol::ip_address a;
    a.v6 = true;
    std::memcpy(a.bytes.data(), data, 16);
    (void)protocol::refused_target(a, first);
  }
  return 0;
}
