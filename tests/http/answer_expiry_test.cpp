// Answer tokens expire 7 days after the page, by the actor system's clock: a node on the
// simulated clock pages a real webhook, and its own HTTP routes, served in-process,
// answer the page's link until 7 days have passed in simulated time, then 404.
#include "http/keys.hpp"
#include "http/server.hpp"
#include "support/http_sink.hpp"
#include "support/json.hpp"
#include "support/openapi_check.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>
#include <httplib.h>
#include <thread>

using namespace belay;
using namespace std::chrono_literals;

namespace {

std::string hook_org(const test::http_sink& sink) {
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[{"name":"hook","type":"webhook","url":")" +
         sink.url("/hook") + R"("}],
    "policies":[{"name":"default","steps":[
      {"delaySeconds":0,"targets":[{"channel":"hook","to":"#ops"}]}]}]}]})";
}

// The node's own routes on 127.0.0.1, for GET requests only: those read the database and
// the simulated clock, and never wait on an actor (the test scheduler runs only when the
// test says so).
class served_routes {
public:
  served_routes(test::test_node& node, const transport::answer_links& answers)
      : pool_(node.db.url(), 2), keys_(pool_), api_{node.sys,
                                                    node.n.registry,
                                                    node.n.triggers,
                                                    node.n.dispatcher,
                                                    pool_,
                                                    keys_,
                                                    {},
                                                    2} {
    api_.clock = node.clock;
    api_.answers = answers;
    http_ = std::make_unique<server>(api_, 2);
    port_ = http_->bind("127.0.0.1", 0);
    REQUIRE(port_ > 0);
    thread_ = std::thread{[this] { http_->run(); }};
  }
  ~served_routes() {
    http_->stop();
    thread_.join();
  }
  httplib::Result get(const std::string& path) {
    httplib::Client client{"127.0.0.1", port_};
    test::check_answers(client);
    for (int i = 0; i < 100; ++i) { // until the listener runs
      if (auto r = client.Get(path.c_str()))
        return r;
      std::this_thread::sleep_for(20ms);
    }
    return client.Get(path.c_str());
  }

private:
  storage::pool pool_;
  key_store keys_;
  api api_;
  std::unique_ptr<server> http_;
  int port_ = 0;
  std::thread thread_;
};

} // namespace

TEST_CASE("an answer link works for 7 days of simulated time after the page, then 404s") {
  test::test_database db;
  test::http_sink sink;
  db.provision(hook_org(sink));
  const auto org = db.org_id("acme");
  const transport::answer_links answers{"http://belay.example", "test-signing-secret"};
  // No timer but the ones under test within 7 days: leases, polls and sweeps stay off.
  test::test_node node{db, test::simulated_epoch, "expiry-node", [&](node_options& o) {
                         o.answers = answers;
                         o.lease_seconds = 90 * 86400;
                         o.poll_seconds = 30 * 86400;
                         o.orphan_sweep_seconds = 0;
                       }};
  node.trigger(org, "disk-full");
  REQUIRE(sink.count() == 1);
  auto body = test::json(sink.requests().front().body);
  REQUIRE(body.HasMember("ackUrl"));
  const std::string link = body["ackUrl"].GetString();
  const std::string base = "http://belay.example/a/";
  REQUIRE(link.rfind(base, 0) == 0);
  const auto path = link.substr(base.size() - 3);

  served_routes routes{node, answers};
  auto fresh = routes.get(path);
  REQUIRE(fresh);
  CHECK(fresh->status == 200);
  CHECK(fresh->body.find("incident disk-full") != std::string::npos);

  node.advance(7 * 24h - 1min);
  auto late = routes.get(path);
  REQUIRE(late);
  CHECK(late->status == 200);

  node.advance(2min);
  auto expired = routes.get(path);
  REQUIRE(expired);
  CHECK(expired->status == 404);
  CHECK(expired->body.find("disk-full") == std::string::npos);
  auto garbage = routes.get("/a/not-a-token");
  REQUIRE(garbage);
  CHECK(expired->body == garbage->body); // the same page as for any invalid token
}
