#include "actors/dispatcher.hpp"

#include "actors/gather.hpp"
#include "actors/test_hooks.hpp"
#include "protocol/views.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/exit_reason.hpp>
#include <set>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

using self_ptr = dispatcher_actor::stateful_pointer<dispatcher_state>;

micros now(self_ptr self) {
  return self->state.d.clock.at(self->clock().now());
}

void nudge_all(self_ptr self) {
  for (auto& [key, ch] : self->state.channels)
    self->send(ch.actor, atom::nudge_v);
}

// Spawns the channel's actor and watches it: one that dies is started again.
void start_channel(self_ptr self, const channel_config& cfg) {
  auto& st = self->state;
  auto key = std::make_pair(cfg.org_id, cfg.name);
  auto actor = self->spawn(channel, cfg, dispatcher_actor{self}, st.opts.delivery, st.d);
  self->monitor(actor);
  st.key_of[actor.address()] = key;
  st.channels[key] = {cfg, actor};
}

// Brings the channel actors in line with the configuration: new channels start, the
// others take their current settings, removed ones stop.
void apply_channels(self_ptr self, std::vector<channel_config>& all) {
  auto& st = self->state;
  std::set<std::pair<int64_t, std::string>> configured;
  for (auto& cfg : all) {
    auto key = std::make_pair(cfg.org_id, cfg.name);
    configured.insert(key);
    if (auto it = st.channels.find(key); it == st.channels.end()) {
      start_channel(self, cfg);
    } else {
      it->second.config = cfg;
      self->send(it->second.actor, atom::reload_v, cfg);
    }
  }
  for (auto it = st.channels.begin(); it != st.channels.end();) {
    if (configured.count(it->first)) {
      ++it;
      continue;
    }
    spdlog::warn("dispatcher: channel '{}' of org {} was removed; its actor stops",
                 it->first.second, it->first.first);
    auto& actor = it->second.actor;
    st.key_of.erase(actor.address());
    self->demonitor(actor.address());
    self->send_exit(actor, caf::exit_reason::user_shutdown);
    it = st.channels.erase(it);
  }
}

void load_channels(self_ptr self) {
  auto on_error = [self](caf::error& err) {
    spdlog::error("dispatcher: cannot load channels: {}", to_string(err));
    self->delayed_send(self, self->state.d.db_retry, atom::reload_v);
  };
  // Claims held under our name are from before a restart: release them first.
  self->request(self->state.d.storage, self->state.d.request_timeout,
                atom::release_claims_of_v, self->state.d.node_id, now(self))
      .then(
          [self, on_error](storage::released_claims& released) {
            if (!released.empty())
              spdlog::info("dispatcher: {} delivery claim(s) from before the restart "
                           "returned to the pool",
                           released.size());
            self->request(self->state.d.storage, self->state.d.request_timeout,
                          atom::load_channels_v)
                .then(
                    [self](std::vector<channel_config>& all) {
                      auto& st = self->state;
                      apply_channels(self, all);
                      st.loaded = true;
                      spdlog::info("dispatcher: {} channel actor(s)", st.channels.size());
                      nudge_all(self); // deliveries left over from before a restart
                    },
                    on_error);
          },
          on_error);
}

// Every poll: the configuration as it stands now (provisioning on any node).
void refresh_channels(self_ptr self) {
  if (!self->state.loaded)
    return; // the first load is under way, or retrying
  self->request(self->state.d.storage, self->state.d.request_timeout,
                atom::load_channels_v)
      .then([self](std::vector<channel_config>& all) { apply_channels(self, all); },
            [](caf::error& err) {
              spdlog::warn("dispatcher: cannot reload channels: {}", to_string(err));
            });
}

} // namespace

dispatcher_actor::behavior_type dispatcher(self_ptr self, dispatcher_options opts,
                                           deps d) {
  auto& st = self->state;
  st.opts = opts;
  st.d = std::move(d);
  self->set_down_handler([self](caf::down_msg& msg) {
    auto& st = self->state;
    auto it = st.key_of.find(msg.source);
    if (it == st.key_of.end())
      return;
    auto key = it->second;
    st.key_of.erase(it);
    auto ch = st.channels.find(key);
    if (ch == st.channels.end() || st.stopping || test_hooks::no_channel_restart)
      return;
    spdlog::warn("dispatcher: channel '{}' stopped ({}); starting it again", key.second,
                 to_string(msg.reason));
    auto cfg = ch->second.config;
    st.channels.erase(ch);
    start_channel(self, cfg);
    self->send(st.channels[key].actor, atom::nudge_v); // what it had claimed is pending
  });
  self->set_exit_handler([self](caf::exit_msg& msg) {
    self->state.stopping = true;
    for (auto& [key, ch] : self->state.channels)
      self->send_exit(ch.actor, msg.reason);
    self->quit(msg.reason);
  });
  load_channels(self);
  self->delayed_send(self, st.opts.poll_interval, atom::poll_tick_v);
  return {
      [self](atom::reload) { load_channels(self); },
      [self](atom::nudge, int64_t org, const std::string& name) {
        auto& st = self->state;
        if (auto it = st.channels.find({org, name}); it != st.channels.end())
          self->send(it->second.actor, atom::nudge_v);
        else if (!st.loaded)
          return; // the initial load nudges every channel anyway
        else
          spdlog::warn("dispatcher: no channel '{}' in org {}", name, org);
      },
      [self](atom::nudge_all) { nudge_all(self); },
      [self](atom::poll_tick) {
        refresh_channels(self);
        self->request(self->state.d.storage, self->state.d.request_timeout,
                      atom::release_expired_claims_v, now(self))
            .then(
                [self](storage::released_claims& released) {
                  for (auto& [org, name] : released)
                    spdlog::warn("dispatcher: a claim on channel '{}' lapsed; returned "
                                 "to the pool",
                                 name);
                  nudge_all(self);
                },
                [](caf::error& err) {
                  spdlog::error("dispatcher: cannot release lapsed claims: {}",
                                to_string(err));
                });
        self->delayed_send(self, self->state.opts.poll_interval, atom::poll_tick_v);
      },
      [self](atom::replay, int64_t org, int64_t dead_letter,
             attribution& who) -> caf::result<storage::replay_result> {
        auto rp = self->make_response_promise<storage::replay_result>();
        self->request(self->state.d.storage, self->state.d.request_timeout,
                      atom::replay_dead_letter_v, org, dead_letter, now(self),
                      std::move(who))
            .then(
                [self, rp, org](storage::replay_result& r) mutable {
                  if (r.code == reply_code::ok)
                    self->send(self, atom::nudge_v, org, r.channel);
                  rp.deliver(std::move(r));
                },
                [rp](caf::error& err) mutable { rp.deliver(err); });
        return rp;
      },
      [self](atom::views, int64_t org) {
        std::vector<channel_actor> of_org;
        for (auto& [key, ch] : self->state.channels)
          if (key.first == org)
            of_org.push_back(ch.actor);
        return gather_views<channel_view>(self, of_org, std::chrono::seconds{2});
      },
      [self](atom::children) {
        std::vector<channel_actor> out;
        for (auto& [key, ch] : self->state.channels)
          out.push_back(ch.actor);
        return out;
      },
  };
}

} // namespace belay
