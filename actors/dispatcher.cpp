#include "actors/dispatcher.hpp"

#include "actors/gather.hpp"
#include "actors/storage.hpp"
#include "storage/deliveries.hpp"

#include <caf/event_based_actor.hpp>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

using self_ptr = caf::stateful_actor<dispatcher_state>*;

micros now(self_ptr self) {
  return self->state.d.clock.at(self->clock().now());
}

void nudge_all(self_ptr self) {
  for (auto& [key, ch] : self->state.channels)
    self->send(ch, atom::nudge_v);
}

void load_channels(self_ptr self) {
  // Claims held under our name are from before a restart: release them first.
  auto job = make_db_job([node = self->state.d.node_id,
                          at = now(self)](storage::connection& c) {
    auto released = storage::release_claims_of(c, node, at);
    if (!released.empty())
      spdlog::info("dispatcher: {} delivery claim(s) from before the restart returned to "
                   "the pool",
                   released.size());
    return storage::load_channels(c);
  });
  self->request(self->state.d.storage, caf::infinite, atom::run_v, job)
      .then(
          [self](std::vector<channel_config>& all) {
            auto& st = self->state;
            for (auto& cfg : all) {
              auto key = std::make_pair(cfg.org_id, cfg.name);
              if (st.channels.count(key))
                continue;
              st.channels[key] = self->spawn<caf::linked>(
                  channel, cfg, st.senders, caf::actor{self}, st.opts.delivery, st.d);
            }
            st.loaded = true;
            spdlog::info("dispatcher: {} channel actor(s)", st.channels.size());
            nudge_all(self); // deliveries left over from before a restart
          },
          [self](caf::error& err) {
            spdlog::error("dispatcher: cannot load channels: {}", to_string(err));
            self->delayed_send(self, self->state.d.db_retry, atom::adopt_v);
          });
}

} // namespace

caf::behavior dispatcher(caf::stateful_actor<dispatcher_state>* self, caf::actor senders,
                         dispatcher_options opts, deps d) {
  auto& st = self->state;
  st.senders = std::move(senders);
  st.opts = opts;
  st.d = std::move(d);
  load_channels(self);
  self->delayed_send(self, st.opts.poll_interval, atom::poll_v);
  return {
      [self](atom::adopt) { load_channels(self); },
      [self](atom::nudge, int64_t org, const std::string& name) {
        auto& st = self->state;
        if (auto it = st.channels.find({org, name}); it != st.channels.end())
          self->send(it->second, atom::nudge_v);
        else if (!st.loaded)
          return; // the initial load nudges every channel anyway
        else
          spdlog::warn("dispatcher: no channel '{}' in org {}", name, org);
      },
      [self](atom::nudge) { nudge_all(self); },
      [self](atom::poll) {
        auto job = make_db_job([at = now(self)](storage::connection& c) {
          return storage::release_expired_claims(c, at);
        });
        self->request(self->state.d.storage, caf::infinite, atom::run_v, job)
            .then(
                [self](std::vector<std::pair<int64_t, std::string>>& released) {
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
        self->delayed_send(self, self->state.opts.poll_interval, atom::poll_v);
      },
      [self](atom::replay, int64_t org,
             int64_t dead_letter) -> caf::result<storage::replay_result> {
        auto rp = self->make_response_promise<storage::replay_result>();
        auto job =
            make_db_job([org, dead_letter, at = now(self)](storage::connection& c) {
              return storage::replay_dead_letter(c, org, dead_letter, at);
            });
        self->request(self->state.d.storage, caf::infinite, atom::run_v, job)
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
        std::vector<caf::actor> of_org;
        for (auto& [key, ch] : self->state.channels)
          if (key.first == org)
            of_org.push_back(ch);
        return gather_views<channel_view>(self, of_org, std::chrono::seconds{2});
      },
      [self](atom::get) {
        std::vector<caf::actor> out;
        for (auto& [key, ch] : self->state.channels)
          out.push_back(ch);
        return out;
      },
  };
}

} // namespace belay
