// A storage worker that dies holding a request (issue 41 items 2 and 3): the test
// scheduler runs message by message until the worker has taken the request into its
// queue, and the worker is then ended, ahead of the commit it sent itself, with the exit
// reason an uncaught exception gives an actor in CAF 0.17. The tests check in the
// database that the request was indeed lost (peeking at a mailbox trips UBSan in CAF's
// headers, so the request is known by its place instead).
#pragma once

#include "support/test_node.hpp"

#include <caf/scheduled_actor.hpp>
#include <caf/send.hpp>

namespace belay::test {

// Ends `actor` ahead of what its mailbox holds.
template <class Handle> void crash_now(const Handle& actor) {
  caf::anon_send<caf::message_priority::high>(
      caf::actor_cast<caf::actor>(actor),
      caf::exit_msg{caf::actor_addr{},
                    caf::make_error(caf::sec::runtime_error, "injected")});
}

// Runs `node`'s scheduler until `worker` handled `messages` more messages; then ends the
// worker. False if nothing was left to run before that.
template <class Handle>
bool crash_after(test_node& node, const Handle& worker, int messages) {
  auto target = caf::actor_cast<caf::actor>(worker);
  auto* raw = caf::actor_cast<caf::abstract_actor*>(target);
  while (messages > 0 && node.sched.has_job()) {
    auto& next = node.sched.next_job<caf::scheduled_actor>();
    messages -= static_cast<caf::abstract_actor*>(&next) == raw;
    node.sched.run_once();
  }
  if (messages > 0)
    return false;
  crash_now(target);
  return true;
}

} // namespace belay::test
