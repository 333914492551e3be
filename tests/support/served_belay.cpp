#include "support/served_belay.hpp"

#include "support/metrics_token.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace belay::test {

namespace {

std::string org(const std::string& name) {
  return R"({"name":")" + name + R"(","apiKeys":[")" + name + R"(-key"],
    "channels":[{"name":"log","type":"log"}],
    "policies":[{"name":"default","steps":[
      {"delaySeconds":0,"targets":[{"channel":"log","to":"#ops"}]},
      {"delaySeconds":86400,"targets":[{"channel":"log","to":"lead"}]}]}],
    "integrations":[
      {"name":"pd","type":"events","key":")" +
         name + R"(-routing","policy":"default"},
      {"name":"prom","type":"alertmanager","key":")" +
         name + R"(-am","policy":"default"}]})";
}

std::vector<std::string> node_args(const std::string& provision_path, int node) {
  return {"--provision",     provision_path, "--node-id", "node-" + std::to_string(node),
          "--metrics-token", metrics_token};
}

} // namespace

std::string two_orgs() {
  return R"({"orgs":[)" + org("alpha") + "," + org("beta") + "]}";
}

temp_file::temp_file(const std::string& text) {
  char name[] = "/tmp/belay-provision-XXXXXX.json";
  int fd = mkstemps(name, 5);
  if (fd < 0)
    throw std::runtime_error("cannot create a temporary provisioning file");
  close(fd);
  path_ = name;
  std::ofstream{path_} << text;
}

temp_file::~temp_file() {
  std::remove(path_.c_str());
}

served_belay::served_belay(const std::string& provisioning, int nodes,
                           const std::vector<std::string>& extra)
    : file_(provisioning) {
  for (int i = 0; i < nodes; ++i) {
    auto args = node_args(file_.path(), i);
    args.insert(args.end(), extra.begin(), extra.end());
    nodes_.push_back(belay_process::serve(db.url(), args));
  }
}

reply to_reply(const httplib::Result& r) {
  reply out;
  if (!r)
    return out;
  out.status = r->status;
  out.body = r->body;
  out.json.Parse(out.body.c_str(), out.body.size());
  if (out.json.HasParseError())
    out.json.SetNull();
  return out;
}

std::string bearer(const std::string& key) {
  return "Bearer " + key;
}

reply served_belay::post(const std::string& path, const std::string& body,
                         const std::string& key, int node) {
  auto http = client(node);
  httplib::Headers headers;
  if (!key.empty())
    headers.emplace("Authorization", bearer(key));
  return to_reply(http.Post(path.c_str(), headers, body, "application/json"));
}

reply served_belay::get(const std::string& path, const std::string& key, int node) {
  auto http = client(node);
  httplib::Headers headers;
  if (!key.empty())
    headers.emplace("Authorization", bearer(key));
  return to_reply(http.Get(path.c_str(), headers));
}

reply served_belay::trigger(const std::string& dedup_key, const std::string& key,
                            int node) {
  return post("/api/v1/incidents",
              trigger_body(dedup_key, "default",
                           R"(,"severity":"warning","details":{"host":"db1"})",
                           "disk full on " + dedup_key),
              key, node);
}

int64_t served_belay::open(const std::string& dedup_key, const std::string& policy) {
  auto r =
      post("/api/v1/incidents",
           trigger_body(dedup_key, policy, "", "Disk full on " + dedup_key), "alpha-key");
  REQUIRE(r.status == 201);
  return id_of(r);
}

reply served_belay::enqueue(const std::string& action, const std::string& dedup_key,
                            const std::string& more, int node) {
  return post("/v2/enqueue", pd_event("alpha-routing", action, dedup_key, more), "",
              node);
}

std::vector<int64_t> served_belay::row_counts() {
  return {count("SELECT count(*) FROM incident"), count("SELECT count(*) FROM timeline"),
          count("SELECT count(*) FROM delivery")};
}

void served_belay::wait_settled(int64_t incident_id) {
  auto settled = [&] {
    auto r = db.sql().query(
        "SELECT (SELECT count(*) FROM timeline WHERE incident_id = $1 AND kind = "
        "'step_fired'), "
        "(SELECT count(*) FROM delivery WHERE incident_id = $1 AND status IN ('PENDING', "
        "'CLAIMED'))",
        incident_id);
    return r.int64(0, 0) > 0 && r.int64(0, 1) == 0;
  };
  if (!eventually(settled))
    throw std::runtime_error("incident " + std::to_string(incident_id) +
                             " never settled (first step fired and delivered):\n" +
                             nodes_.front().log());
}

double served_belay::metric(const std::string& series, int node) {
  auto text = get("/metrics", metrics_token, node).body;
  auto at = text.find("\n" + series + " ");
  return at == std::string::npos ? 0 : std::stod(text.substr(at + series.size() + 2));
}

std::string served_belay::held_status(int node) {
  auto view = get("/api/v1/inspector", "alpha-key", node);
  auto& incidents = view.json["incidents"];
  return incidents.IsArray() && incidents.Size() == 1
             ? std::string{incidents[0]["incident"]["status"].GetString()}
             : std::string{"none held"};
}

int64_t id_of(const reply& r) {
  REQUIRE(r.json.IsObject());
  REQUIRE(r.json.HasMember("incident"));
  return r.json["incident"]["id"].GetInt64();
}

namespace {

std::string error_member(const reply& r, const char* name) {
  if (!r.json.IsObject() || !r.json.HasMember("error") || !r.json["error"].IsObject())
    return "";
  auto& e = r.json["error"];
  if (!e.HasMember(name) || !e[name].IsString())
    return "";
  return e[name].GetString();
}

} // namespace

std::string error_code(const reply& r) {
  return error_member(r, "code");
}
std::string error_field(const reply& r) {
  return error_member(r, "field");
}

} // namespace belay::test
