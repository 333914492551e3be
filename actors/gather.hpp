// Asks several actors for their view and answers with all views that came back in
// time: the inspector's fan-out. A slow or dead actor is left out, not waited for.
#pragma once

#include "actors/actors.hpp"

#include <caf/result.hpp>
#include <memory>
#include <vector>

namespace belay {

template <class View, class Self, class Handle>
caf::result<std::vector<View>> gather_views(Self* self, const std::vector<Handle>& actors,
                                            caf::timespan timeout) {
  auto rp = self->template make_response_promise<std::vector<View>>();
  if (actors.empty()) {
    rp.deliver(std::vector<View>{});
    return rp;
  }
  auto views = std::make_shared<std::vector<View>>();
  auto pending = std::make_shared<size_t>(actors.size());
  auto done = [views, pending, rp]() mutable {
    if (--*pending == 0)
      rp.deliver(std::move(*views));
  };
  for (auto& a : actors)
    self->request(a, timeout, atom::view_v)
        .then([views, done](View& v) mutable { views->push_back(std::move(v)), done(); },
              [done](caf::error&) mutable { done(); });
  return rp;
}

} // namespace belay
