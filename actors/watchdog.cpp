#include "actors/watchdog.hpp"

#include "actors/node.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

namespace belay {

watchdog_actor::behavior_type
watchdog(watchdog_actor::stateful_pointer<watchdog_state> self,
         std::function<void()> on_death) {
  self->state.on_death = std::move(on_death);
  self->set_down_handler([self](caf::down_msg& msg) {
    auto it = self->state.watched.find(msg.source);
    spdlog::error("the node's {} stopped ({}); exiting so that it is started again",
                  it == self->state.watched.end() ? "actor" : it->second,
                  to_string(msg.reason));
    self->state.on_death();
    self->quit();
  });
  return {
      [self](atom::watch, std::string& name, caf::actor_addr& whom) {
        self->monitor(whom);
        self->state.watched.emplace(std::move(whom), std::move(name));
      },
  };
}

watchdog_actor watch_node(caf::actor_system& sys, const node& n,
                          std::function<void()> on_death) {
  auto dog = sys.spawn(watchdog, std::move(on_death));
  auto watch = [&](const char* name, caf::actor_addr whom) {
    caf::anon_send(dog, atom::watch_v, std::string{name}, std::move(whom));
  };
  watch("registry", n.registry.address());
  watch("dispatcher", n.dispatcher.address());
  watch("storage router", n.storage.address());
  watch("heartbeat holder", n.heartbeats.address());
  return dog;
}

} // namespace belay
