// What a step that pages a schedule costs in on-call computation (issue 18: "no more than
// a few microseconds"): protocol::expand_targets for one {"schedule"} target, as the
// incident actor calls it when the step fires, on docs/guarantees.md#on-call's example
// schedule (a restricted weekday layer of three people under a daily backstop,
// America/New_York) with
// `--overrides` overrides around the instants asked about. Instants are spread over a
// year, so handoffs, restrictions and both daylight-saving changes are all crossed. Pure
// CPU: no database, no actors.
//
//   belay_oncall_cost [--calls 200000] [--overrides 8]
//
// Prints one JSON line:
// {"calls":…,"overrides":…,"medianNs":…,"p99Ns":…,"pagesPerCall":…}.

#include "protocol/paging.hpp"
#include "protocol/schedule_json.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace belay;
using steady = std::chrono::steady_clock;

constexpr micros hour = 3600LL * 1'000'000;
// 2026-01-01T00:00:00Z
constexpr micros year_start = 1'767'225'600'000'000;

const char* const schedule_json = R"({"name":"primary","timeZone":"America/New_York",
  "layers":[{"name":"weekdays","users":["alice","bob","carol"],
             "rotation":{"type":"weekly","length":1,"start":"2026-01-05T09:00"},
             "restrictions":[{"days":["mon","tue","wed","thu","fri"],"start":"09:00","end":"18:00"}]},
            {"name":"backstop","users":["dave","erin"],
             "rotation":{"type":"daily","length":1,"start":"2026-01-01T00:00"}}]})";

belay::user_config person(const std::string& name) {
  belay::user_config u;
  u.name = name;
  u.contacts = {{"mail", "mail", name + "@example.com"},
                {"phone", "sms", "+1555" + name}};
  u.rules = {{"mail", 0}, {"phone", 120}};
  return u;
}

long arg(int argc, char** argv, const char* name, long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0)
      return std::strtol(argv[i + 1], nullptr, 10);
  return fallback;
}

} // namespace

int main(int argc, char** argv) {
  const long calls = arg(argc, argv, "--calls", 200000);
  const long overrides = arg(argc, argv, "--overrides", 8);
  auto parsed = protocol::parse_schedule(schedule_json);
  if (auto* e = std::get_if<protocol::error>(&parsed)) {
    std::fprintf(stderr, "belay_oncall_cost: the built-in schedule: %s\n",
                 e->message.c_str());
    return 1;
  }
  protocol::org_people people;
  for (auto name : {"alice", "bob", "carol", "dave", "erin"})
    people.users[name] = person(name);
  people.schedules["primary"] = std::get<protocol::schedule>(parsed);

  std::mt19937_64 rng{42};
  std::uniform_int_distribution<micros> in_year{year_start, year_start + 365 * 24 * hour};
  std::vector<micros> instants(static_cast<size_t>(calls));
  for (auto& t : instants)
    t = in_year(rng);
  // Overrides near every instant would be unrealistic; the actor loads those of the
  // schedule around the step, so a few in the window is the case to price.
  auto& near = people.overrides["primary"];
  for (long i = 0; i < overrides; ++i) {
    micros start = in_year(rng);
    near.push_back({i + 1, i % 2 ? "erin" : "dave",
                    i % 3 ? std::nullopt : std::optional<std::string>{"alice"}, start,
                    start + 8 * hour, start});
  }

  const std::vector<belay::target> targets = {{"", "", "", "primary"}};
  std::vector<double> ns(instants.size());
  size_t pages = 0;
  for (size_t i = 0; i < instants.size(); ++i) {
    auto t0 = steady::now();
    auto step = protocol::expand_targets(targets, people, instants[i]);
    ns[i] = std::chrono::duration<double, std::nano>(steady::now() - t0).count();
    pages += step.pages.size();
  }
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) { return ns[static_cast<size_t>(q * (ns.size() - 1))]; };
  std::printf("{\"calls\":%ld,\"overrides\":%ld,\"medianNs\":%.0f,\"p99Ns\":%.0f,"
              "\"pagesPerCall\":%.3f}\n",
              calls, overrides, at(0.5), at(0.99),
              static_cast<double>(pages) / static_cast<double>(instants.size()));
  return 0;
}
