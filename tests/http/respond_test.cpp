// ask(): an HTTP thread's bounded wait for an actor's answer.
#include "actors/actors.hpp"
#include "http/keys.hpp"
#include "http/respond.hpp"
#include "storage/db.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <catch2/catch.hpp>
#include <chrono>

using namespace belay;
using namespace std::chrono_literals;

namespace {

// The actors here are untyped stand-ins with atoms of their own.
using get_atom = caf::atom_constant<caf::atom("get")>;
using inspect_atom = caf::atom_constant<caf::atom("inspect")>;

struct ask_fixture {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  storage::pool db{"host=/nonexistent", 1}; // never opened
  key_store keys{db};
  api a{sys, {}, {}, {}, db, keys, {}, 0};
  httplib::Response res;

  ask_fixture() { a.actor_timeout = 200ms; }
};

// Answers (get_atom, n) with n + 1 and (inspect_atom) with the asker's actor id; never
// answers (get_atom) at all.
caf::behavior answers_some(caf::event_based_actor* self) {
  return {
      [](get_atom, int n) { return n + 1; },
      [self](inspect_atom) { return self->current_sender()->id(); },
      [self](get_atom) { return self->make_response_promise<int>(); },
  };
}

// Answers (get_atom, n) with n + 1, but only once `expected` of them arrived: a caller
// that waits for each answer before it asks again never gets one.
caf::behavior answers_when_all_arrived(caf::event_based_actor* self, size_t expected) {
  using waiting = std::vector<std::pair<caf::typed_response_promise<int>, int>>;
  auto held = std::make_shared<waiting>();
  return {
      [self, held, expected](get_atom, int n) {
        auto rp = self->make_response_promise<int>();
        held->emplace_back(rp, n);
        if (held->size() == expected)
          for (auto& [promise, m] : *held)
            promise.deliver(m + 1);
        return rp;
      },
  };
}

std::vector<request_to<int>> gets(const caf::actor& whom, std::vector<int> ns) {
  std::vector<request_to<int>> out;
  for (auto n : ns)
    out.push_back({whom, caf::make_message(get_atom::value, n)});
  return out;
}

} // namespace

TEST_CASE_METHOD(ask_fixture, "ask returns the answer") {
  auto actor = sys.spawn(answers_some);
  CHECK(ask<int>(a, actor, res, get_atom::value, 41) == 42);
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}

TEST_CASE_METHOD(ask_fixture, "an actor that never answers costs 503 after the timeout") {
  auto actor = sys.spawn(answers_some);
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(ask<int>(a, actor, res, get_atom::value).has_value());
  auto waited = std::chrono::steady_clock::now() - start;
  CHECK(res.status == 503);
  CHECK(waited >= 200ms);
  CHECK(waited < 5s);
  // The thread asks again afterwards as if nothing happened.
  CHECK(ask<int>(a, actor, res, get_atom::value, 1) == 2);
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}

TEST_CASE_METHOD(ask_fixture, "an actor that is gone costs 503 at once") {
  auto actor = sys.spawn(answers_some);
  caf::anon_send_exit(actor, caf::exit_reason::kill);
  sys.registry().await_running_count_equal(0);
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(ask<int>(a, actor, res, get_atom::value, 1).has_value());
  CHECK(res.status == 503);
  CHECK(std::chrono::steady_clock::now() - start < 150ms);
}

TEST_CASE_METHOD(ask_fixture, "the waiting actor is reused, except after a timeout") {
  auto actor = sys.spawn(answers_some);
  auto asker = [&] {
    return ask<caf::actor_id>(a, actor, res, inspect_atom::value).value();
  };
  auto first = asker();
  CHECK(asker() == first);
  // The one that gave up may still get its late answer: it is not asked with again.
  CHECK_FALSE(ask<int>(a, actor, res, get_atom::value).has_value());
  CHECK(asker() != first);
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}

TEST_CASE_METHOD(ask_fixture,
                 "ask_all sends every request before it waits, and keeps order") {
  auto actor = sys.spawn(answers_when_all_arrived, size_t{5});
  auto replies = ask_all<int>(a, res, gets(actor, {10, 20, 30, 40, 50}));
  REQUIRE(replies.has_value());
  CHECK(*replies == std::vector<int>{11, 21, 31, 41, 51});
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}

TEST_CASE_METHOD(ask_fixture, "ask_all costs 503 when any answer fails or is late") {
  auto actor = sys.spawn(answers_some);
  std::vector<request_to<int>> requests = gets(actor, {1, 2});
  requests.push_back({actor, caf::make_message(get_atom::value)}); // never answered
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(ask_all<int>(a, res, std::move(requests)).has_value());
  CHECK(res.status == 503);
  CHECK(std::chrono::steady_clock::now() - start >= 200ms);
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}
