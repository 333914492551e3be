#include "support/route_table.hpp"

#include "http/keys.hpp"
#include "http/server.hpp"
#include "storage/db.hpp"
#include "support/served_belay.hpp"
#include "support/test_node.hpp"

namespace belay::test {

std::vector<routes::listing> route_table() {
  test_database db;
  db.provision(two_orgs());
  test_node node{db};
  storage::pool pool{db.url(), 1};
  key_store keys{pool};
  api a{node.sys, node.n.registry, node.n.triggers, node.n.dispatcher, pool, keys, {}, 1};
  server http{a, 1};
  return http.route_table();
}

} // namespace belay::test
