// G9 through the running binary: an org sees and touches only its own incidents;
// another org's incident id answers 404 and its row stays exactly as it was.
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

std::string row_of(test::served_belay& belay, int64_t id) {
  return belay.db.sql()
      .query("SELECT i::text FROM incident i WHERE id = $1", id)
      .str(0, 0);
}

int64_t settled_incident(test::served_belay& belay, const std::string& key,
                         const std::string& api_key) {
  auto r = belay.trigger(key, api_key);
  REQUIRE(r.status == 201);
  auto id = test::id_of(r);
  belay.wait_settled(id);
  return id;
}

} // namespace

TEST_CASE("an org cannot read, list, ack or resolve another org's incident") {
  test::served_belay belay;
  auto beta_id = settled_incident(belay, "shared-name", "beta-key");
  auto before = row_of(belay, beta_id);
  auto timeline = belay.count("SELECT count(*) FROM timeline");
  auto path = "/api/v1/incidents/" + std::to_string(beta_id);

  auto read = belay.get(path, "alpha-key");
  CHECK(read.status == 404);
  CHECK(test::error_code(read) == "not_found");

  auto listed = belay.get("/api/v1/incidents", "alpha-key");
  REQUIRE(listed.status == 200);
  CHECK(listed.json["incidents"].Empty());
  auto open = belay.get("/api/v1/incidents?status=OPEN", "alpha-key");
  REQUIRE(open.status == 200);
  CHECK(open.json["incidents"].Empty());

  auto acked = belay.post(path + "/ack", R"({"by":"mallory"})", "alpha-key");
  CHECK(acked.status == 404);
  CHECK(test::error_code(acked) == "not_found");
  auto resolved = belay.post(path + "/resolve", R"({"by":"mallory"})", "alpha-key");
  CHECK(resolved.status == 404);
  CHECK(test::error_code(resolved) == "not_found");

  CHECK(row_of(belay, beta_id) == before);
  CHECK(belay.count("SELECT count(*) FROM timeline") == timeline);

  // The owner still sees it, untouched.
  auto own = belay.get(path, "beta-key");
  REQUIRE(own.status == 200);
  CHECK(own.json["incident"]["status"] == "OPEN");
  CHECK(own.json["incident"]["ackedBy"].IsNull());
  auto own_list = belay.get("/api/v1/incidents", "beta-key");
  REQUIRE(own_list.status == 200);
  CHECK(own_list.json["incidents"].Size() == 1);
}

TEST_CASE("the same dedup key in two orgs opens two incidents") {
  test::served_belay belay;
  auto alpha = belay.trigger("same-key", "alpha-key");
  auto beta = belay.trigger("same-key", "beta-key");
  REQUIRE(alpha.status == 201);
  REQUIRE(beta.status == 201);
  CHECK(test::id_of(alpha) != test::id_of(beta));
  CHECK(belay.count("SELECT count(*) FROM incident WHERE dedup_key = 'same-key'") == 2);
}

TEST_CASE("integration keys acknowledge and resolve only within their own org") {
  test::served_belay belay;
  auto beta_id = settled_incident(belay, "pd-shared", "beta-key");
  auto before = row_of(belay, beta_id);

  for (auto action : {"acknowledge", "resolve"}) {
    INFO(action);
    auto r = belay.enqueue(action, "pd-shared");
    CHECK(r.status == 202); // PagerDuty accepts an unknown key; nothing happens
  }
  auto am = belay.post("/api/v1/integrations/alertmanager",
                       R"({"version":"4","status":"resolved","alerts":[
                         {"status":"resolved","labels":{"alertname":"X"},
                          "fingerprint":"pd-shared"}]})",
                       "alpha-am");
  REQUIRE(am.status == 200);
  CHECK(am.json["resolved"] == 0);
  CHECK(am.json["ignored"] == 1);

  CHECK(row_of(belay, beta_id) == before);
  CHECK(belay.count("SELECT count(*) FROM incident") == 1);
}

TEST_CASE("keys are read whatever the case of the Bearer scheme") {
  test::served_belay belay;
  auto http = belay.client();
  for (std::string scheme : {"Bearer", "bearer", "BEARER"}) {
    INFO(scheme);
    auto r = http.Get("/api/v1/incidents", {{"Authorization", scheme + " alpha-key"}});
    REQUIRE(r);
    CHECK(r->status == 200);
    auto am = http.Post("/api/v1/integrations/alertmanager",
                        {{"Authorization", scheme + "  alpha-am"}}, R"({"alerts":[]})",
                        "application/json");
    REQUIRE(am);
    CHECK(am->status == 200);
  }
  auto basic = http.Get("/api/v1/incidents", {{"Authorization", "Basic YWxwaGEta2V5"}});
  REQUIRE(basic);
  CHECK(basic->status == 401);
}
