// Who is on call, final shifts, overrides and the calendar feed
// (docs/http.md#on-call-api) through the running binary. Times are asked about with
// explicit instants, so the answers do not depend on when the test runs.
#include "support/json.hpp"
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using test::str;

namespace {

// alice and bob hand over daily at 09:00 UTC from 2026-01-01 (alice first); carol and
// dave stand by. 2026-12-01 is day 334: alice's.
std::string people_org() {
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[{"name":"log","type":"log"}],
    "users":[
      {"name":"alice","contacts":[{"name":"l","channel":"log","to":"alice"}],"rules":[{"contact":"l"}]},
      {"name":"bob","contacts":[{"name":"l","channel":"log","to":"bob"}],"rules":[{"contact":"l"}]},
      {"name":"carol","contacts":[{"name":"l","channel":"log","to":"carol"}],"rules":[{"contact":"l"}]}],
    "schedules":[{"name":"primary","timeZone":"UTC","layers":[{"name":"main",
      "users":["alice","bob"],"rotation":{"type":"daily","length":1,"start":"2026-01-01T09:00"}}]}],
    "policies":[{"name":"default","steps":[{"delaySeconds":0,"targets":[{"channel":"log","to":"#ops"}]}]}]},
    {"name":"beta","apiKeys":["beta-key"]}]})";
}

std::string who_at(test::served_belay& belay, const std::string& at) {
  auto r = belay.get("/api/v1/oncall?at=" + at, "alpha-key");
  REQUIRE(r.status == 200);
  REQUIRE(r.json["oncall"].Size() == 1);
  return str(r.json["oncall"][0]["user"]);
}

} // namespace

TEST_CASE("who is on call, and the final shifts of a span") {
  test::served_belay belay{people_org()};
  auto r = belay.get("/api/v1/oncall?at=2026-12-01T10:00:00Z", "alpha-key");
  REQUIRE(r.status == 200);
  REQUIRE(r.json["oncall"].Size() == 1);
  auto& now = r.json["oncall"][0];
  CHECK(str(now["schedule"]) == "primary");
  CHECK(str(now["user"]) == "alice");
  CHECK(str(now["start"]) == "2026-12-01T09:00:00.000Z");
  CHECK(str(now["end"]) == "2026-12-02T09:00:00.000Z");

  auto s = belay.get("/api/v1/schedules/primary/shifts?from=2026-12-01T00:00:00Z"
                     "&to=2026-12-03T00:00:00Z",
                     "alpha-key");
  REQUIRE(s.status == 200);
  auto& shifts = s.json["shifts"];
  REQUIRE(shifts.Size() == 3);
  CHECK(str(shifts[0]["user"]) == "bob");
  CHECK(str(shifts[0]["start"]) == "2026-12-01T00:00:00.000Z"); // clipped to from
  CHECK(str(shifts[1]["user"]) == "alice");
  CHECK(str(shifts[1]["source"]) == "layer:main");
  CHECK(str(shifts[2]["user"]) == "bob");
  CHECK(str(shifts[2]["end"]) == "2026-12-03T00:00:00.000Z");

  auto all = belay.get("/api/v1/schedules", "alpha-key");
  REQUIRE(all.status == 200);
  REQUIRE(all.json["schedules"].Size() == 1);
  CHECK(str(all.json["schedules"][0]["timeZone"]) == "UTC");
  CHECK(all.json["schedules"][0]["oncall"].Size() == 1);
}

TEST_CASE("an override is created, seen, listed and deleted") {
  test::served_belay belay{people_org()};
  auto created = belay.post("/api/v1/schedules/primary/overrides",
                            R"({"user":"carol","start":"2026-12-01T12:00:00Z",)"
                            R"("end":"2026-12-01T14:00:00Z"})",
                            "alpha-key");
  REQUIRE(created.status == 201);
  auto id = created.json["override"]["id"].GetInt64();
  CHECK(str(created.json["override"]["user"]) == "carol");
  CHECK(created.json["override"]["replaces"].IsNull());
  CHECK(who_at(belay, "2026-12-01T13:00:00Z") == "carol");
  CHECK(who_at(belay, "2026-12-01T14:00:00Z") == "alice");

  // Standing in for bob only while bob would be on call: not during alice's day.
  REQUIRE(belay
              .post("/api/v1/schedules/primary/overrides",
                    R"({"user":"carol","replaces":"bob","start":"2026-12-01T00:00:00Z",)"
                    R"("end":"2026-12-03T00:00:00Z"})",
                    "alpha-key")
              .status == 201);
  CHECK(who_at(belay, "2026-12-01T08:00:00Z") == "carol");
  CHECK(who_at(belay, "2026-12-01T10:00:00Z") == "alice");

  auto s = belay.get("/api/v1/schedules/primary/shifts?from=2026-12-01T12:00:00Z"
                     "&to=2026-12-01T14:00:00Z",
                     "alpha-key");
  REQUIRE(s.json["shifts"].Size() == 1);
  CHECK(str(s.json["shifts"][0]["source"]) == "override:" + std::to_string(id));

  auto listed = belay.get("/api/v1/schedules/primary/overrides?from=2026-11-01T00:00:00Z",
                          "alpha-key");
  REQUIRE(listed.status == 200);
  CHECK(listed.json["overrides"].Size() == 2);

  auto path = "/api/v1/schedules/primary/overrides/" + std::to_string(id);
  auto client = belay.client();
  httplib::Headers auth{{"Authorization", "Bearer alpha-key"}};
  CHECK(client.Delete(path.c_str(), auth)->status == 204);
  CHECK(client.Delete(path.c_str(), auth)->status == 404);
  CHECK(who_at(belay, "2026-12-01T13:00:00Z") == "alice");
  // Another org sees neither the schedule nor its overrides.
  CHECK(belay.get("/api/v1/schedules/primary/overrides", "beta-key").status == 404);
  CHECK(belay.get("/api/v1/oncall", "beta-key").json["oncall"].Size() == 0);
}

TEST_CASE("bad override and span requests get a precise error and write nothing") {
  test::served_belay belay{people_org()};
  struct bad {
    std::string path, body;
    int status;
    std::string field;
  };
  const std::string overrides = "/api/v1/schedules/primary/overrides";
  for (
      auto& c : std::vector<bad>{
          {overrides,
           R"({"user":"zed","start":"2026-12-01T12:00:00Z","end":"2026-12-01T14:00:00Z"})",
           400, "user"},
          {overrides,
           R"({"user":"carol","replaces":"zed","start":"2026-12-01T12:00:00Z","end":"2026-12-01T14:00:00Z"})",
           400, "replaces"},
          {overrides,
           R"({"user":"carol","start":"2026-12-01T14:00:00Z","end":"2026-12-01T14:00:00Z"})",
           400, "end"},
          {overrides,
           R"({"user":"carol","start":"tomorrow","end":"2026-12-01T14:00:00Z"})", 400,
           "start"},
          {overrides, R"({"start":"2026-12-01T12:00:00Z","end":"2026-12-01T14:00:00Z"})",
           400, "user"},
          {"/api/v1/schedules/nope/overrides",
           R"({"user":"carol","start":"2026-12-01T12:00:00Z","end":"2026-12-01T14:00:00Z"})",
           404, ""}}) {
    INFO(c.body);
    auto r = belay.post(c.path, c.body, "alpha-key");
    CHECK(r.status == c.status);
    CHECK(test::error_field(r) == c.field);
  }
  CHECK(belay.count("SELECT count(*) FROM schedule_override") == 0);

  auto too_long = belay.get("/api/v1/schedules/primary/shifts?from=2026-01-01T00:00:00Z"
                            "&to=2026-06-01T00:00:00Z",
                            "alpha-key");
  CHECK(too_long.status == 400);
  CHECK(test::error_field(too_long) == "to");
  auto bad_from =
      belay.get("/api/v1/schedules/primary/shifts?from=yesterday", "alpha-key");
  CHECK(bad_from.status == 400);
  CHECK(test::error_field(bad_from) == "from");
  CHECK(belay.get("/api/v1/schedules/nope/shifts", "alpha-key").status == 404);
  CHECK(belay.get("/api/v1/oncall?at=noon", "alpha-key").status == 400);
}

TEST_CASE("the calendar feed is iCalendar with one event per shift, in UTC") {
  test::served_belay belay{people_org()};
  auto client = belay.client();
  auto r = client.Get("/api/v1/schedules/primary/calendar.ics?user=alice",
                      httplib::Headers{{"Authorization", "Bearer alpha-key"}});
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->get_header_value("Content-Type").rfind("text/calendar", 0) == 0);
  CHECK(r->body.rfind("BEGIN:VCALENDAR\r\n", 0) == 0);
  size_t events = 0;
  for (auto at = r->body.find("BEGIN:VEVENT"); at != std::string::npos;
       at = r->body.find("BEGIN:VEVENT", at + 1))
    ++events;
  CHECK(events >= 29); // alice's days of the next 60
  CHECK(events <= 31);
  CHECK(r->body.find("SUMMARY:On call: alice (primary)") != std::string::npos);
  CHECK(r->body.find("SUMMARY:On call: bob") == std::string::npos);
  CHECK(r->body.find("T090000Z") != std::string::npos); // handoffs at 09:00 UTC
}
