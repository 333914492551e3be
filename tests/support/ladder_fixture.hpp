// A private database provisioned with test::ladder_org() (org "acme", policies "default"
// and "looping"), and what the ladder tests read back from it.
#pragma once

#include "protocol/model.hpp"
#include "support/database_fixture.hpp"
#include "support/policies.hpp"

#include <string>
#include <tuple>
#include <vector>

namespace belay::test {

inline constexpr micros one_second = 1'000'000;

// (step, loop, seconds after t0 the delivery was created) of each delivery, in order.
using fired = std::vector<std::tuple<int, int, micros>>;

struct ladder_fixture : database_fixture {
  ladder_fixture() {
    db.provision(ladder_org());
    org = db.org_id("acme");
  }
  fired deliveries(int64_t id, micros t0) {
    auto r = db.sql().query("SELECT step, loop, belay_us(created_at) FROM delivery "
                            "WHERE incident_id = $1 ORDER BY id",
                            id);
    fired out;
    for (int i = 0; i < r.rows(); ++i)
      out.emplace_back(static_cast<int>(r.int64(i, 0)), static_cast<int>(r.int64(i, 1)),
                       (r.int64(i, 2) - t0) / one_second);
    return out;
  }
  // The node that holds incident `id`, as the database records it.
  std::string owner(int64_t id) {
    return db.sql().query("SELECT owner FROM incident WHERE id = $1", id).str(0, 0);
  }
};

} // namespace belay::test
