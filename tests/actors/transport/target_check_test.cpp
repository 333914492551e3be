// Outbound targets are checked on the address actually connected to
// (docs/guarantees.md#outbound-targets): loopback, private, link-local and metadata
// addresses are refused, as a permanent failure that sends nothing, unless their network
// is allowed.
#include "actors/transport/transport.hpp"
#include "tests/actors/transport/fixtures.hpp"
#include "tests/support/http_sink.hpp"
#include "tests/support/smtp_sink.hpp"

#include <catch2/catch.hpp>

using namespace std::chrono_literals;
using namespace belay;
using namespace belay::transport;
using namespace belay::transport::testing;

namespace {

std::vector<protocol::cidr> networks(const char* text) {
  return std::get<std::vector<protocol::cidr>>(protocol::parse_cidr_list(text));
}

// The fixtures allow loopback for the whole binary; these tests allow nothing, then
// put that back.
struct nothing_allowed {
  nothing_allowed() { set_allowed_target_networks({}); }
  ~nothing_allowed() { set_allowed_target_networks(networks("127.0.0.0/8,::1")); }
};

} // namespace

TEST_CASE("a webhook on loopback is refused, permanently, and gets no request") {
  test::http_sink sink;
  nothing_allowed guard;
  auto r = send(make_channel("ops-hook", "webhook", sink.url("/hook")),
                sample_page("ops-hook", "primary"));
  CHECK(r.result == outcome::permanent);
  CHECK_FALSE(r.ambiguous);
  CHECK(r.error == "webhook: target address 127.0.0.1 is loopback; allow it with "
                   "--allowed-target-networks");
  CHECK(sink.count() == 0);
}

TEST_CASE("a host name is judged by the address it resolves to") {
  test::http_sink sink;
  nothing_allowed guard;
  // "localhost" is not an address: only a check after resolution sees 127.0.0.1 (or ::1).
  auto url = "http://localhost:" + std::to_string(sink.port()) + "/hook";
  auto r = send(make_channel("ops-hook", "webhook", url), sample_page("ops-hook", "p"));
  CHECK(r.result == outcome::permanent);
  CHECK(r.error.find("is loopback; allow it with --allowed-target-networks") !=
        std::string::npos);
  CHECK(sink.count() == 0);
}

TEST_CASE("slack, sms, voice and email targets are checked the same way") {
  test::http_sink sink;
  test::smtp_sink mail;
  nothing_allowed guard;
  for (auto type : {"slack", "sms", "voice"}) {
    INFO(type);
    auto c = make_channel(std::string{"c-"} + type, type, sink.url("/"));
    c.account = "AC1";
    c.secret = "token";
    c.from = "+15550001111";
    auto r = send(c, sample_page(c.name, "+15550002222"));
    CHECK(r.result == outcome::permanent);
    CHECK(r.error.find("target address 127.0.0.1 is loopback") != std::string::npos);
  }
  auto email = make_channel("mail", "email", mail.url());
  email.from = "belay@example.com";
  auto r = send(email, sample_page("mail", "alice@example.com"));
  CHECK(r.result == outcome::permanent);
  CHECK(r.error.find("target address 127.0.0.1 is loopback") != std::string::npos);
  CHECK(sink.count() == 0);
  CHECK(mail.messages().empty());
}

TEST_CASE(
    "the metadata address is refused even when other private networks are allowed") {
  set_allowed_target_networks(networks("10.0.0.0/8,192.168.0.0/16"));
  auto c =
      make_channel("ops-hook", "webhook", "http://169.254.169.254/latest/meta-data/");
  c.timeout_seconds = 1;
  auto r = send(c, sample_page("ops-hook", "p"));
  CHECK(r.result == outcome::permanent);
  CHECK(r.error == "webhook: target address 169.254.169.254 is cloud metadata; allow it "
                   "with --allowed-target-networks");
  set_allowed_target_networks(networks("127.0.0.0/8,::1"));
}

TEST_CASE("an allowed network is sent to as before") {
  test::http_sink sink;
  set_allowed_target_networks(networks("127.0.0.1/32"));
  auto r = send(make_channel("ops-hook", "webhook", sink.url("/hook")),
                sample_page("ops-hook", "p"));
  CHECK(r.result == outcome::sent);
  CHECK(sink.count() == 1);
  set_allowed_target_networks(networks("127.0.0.0/8,::1"));
}
