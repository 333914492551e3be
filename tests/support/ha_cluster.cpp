#include "support/ha_cluster.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <httplib.h>
#include <memory>
#include <rapidjson/document.h>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>

namespace belay::test {

namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

std::string read_file(const std::string& path) {
  std::ifstream in{path};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The two numbers of "NAME=(A B)" in scripts/ha's cluster.env.
std::array<int, 2> ports(const std::string& env, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(env, m, std::regex{name + R"(=\((\d+) (\d+)\))"}))
    throw std::runtime_error("cluster.env names no " + name + ":\n" + env);
  return {std::stoi(m[1]), std::stoi(m[2])};
}

const std::array<const char*, 2> member_names{"pg1", "pg2"};

} // namespace

std::optional<ha_cluster> ha_cluster::from_environment(std::string& why,
                                                       std::chrono::seconds wait_up) {
  auto* dir = std::getenv("BELAY_TEST_HA_DIR");
  if (!dir || !*dir) {
    why = "no failover cluster: BELAY_TEST_HA_DIR is not set (scripts/test starts one "
          "for the whole suite, or with BELAY_TEST_HA=1, when Patroni can run here)";
    return std::nullopt;
  }
  std::string d = dir;
  auto until = std::chrono::steady_clock::now() + wait_up;
  while (!exists(d + "/up")) {
    if (exists(d + "/failed") || std::chrono::steady_clock::now() > until)
      throw std::runtime_error("the failover cluster in " + d +
                               " did not come up; scripts/ha up said:\n" +
                               read_file(d + ".log"));
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
  }
  return ha_cluster{d};
}

std::string ha_cluster::url(const std::string& db) const {
  auto pg = ports(read_file(dir_ + "/cluster.env"), "HA_PG_PORTS");
  return "postgresql://postgres@127.0.0.1:" + std::to_string(pg[0]) +
         ",127.0.0.1:" + std::to_string(pg[1]) + "/" + db +
         "?target_session_attrs=read-write";
}

std::string ha_cluster::member_url(const ha_member& m, const std::string& db) const {
  return "host=127.0.0.1 port=" + std::to_string(m.port) + " dbname=" + db +
         " user=postgres";
}

ha_result ha_cluster::run(const std::string& command) const {
  auto line =
      "BELAY_HA_DIR='" + dir_ + "' " BELAY_SOURCE_DIR "/scripts/ha " + command + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe{popen(line.c_str(), "r"), pclose};
  ha_result out;
  if (!pipe)
    return out;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe.get())) > 0)
    out.output.append(buf.data(), n);
  int status = pclose(pipe.release());
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::smatch m;
  if (std::regex_search(out.output, m,
                        std::regex{R"(new primary \S+ after ([0-9.]+) s)"}))
    out.new_primary_after = std::stod(m[1]);
  return out;
}

std::vector<ha_member> ha_cluster::members() const {
  auto env = read_file(dir_ + "/cluster.env");
  auto pg = ports(env, "HA_PG_PORTS");
  auto rest = ports(env, "HA_REST_PORTS");
  std::vector<ha_member> out;
  for (size_t i = 0; i < member_names.size(); ++i)
    out.push_back({member_names[i], pg[i], ""});
  for (int port : rest) {
    httplib::Client c{"127.0.0.1", port};
    c.set_connection_timeout(2);
    c.set_read_timeout(2);
    auto r = c.Get("/cluster");
    if (!r || r->status != 200)
      continue;
    rapidjson::Document doc;
    doc.Parse(r->body.c_str());
    if (doc.HasParseError() || !doc.HasMember("members"))
      continue;
    for (auto& m : doc["members"].GetArray())
      for (auto& mine : out)
        if (mine.name == m["name"].GetString() && m.HasMember("role") &&
            m.HasMember("state") && std::string{m["state"].GetString()} == "running")
          mine.role = m["role"].GetString();
    break;
  }
  return out;
}

std::optional<ha_member> ha_cluster::leader() const {
  for (auto& m : members())
    if (m.role == "leader")
      return m;
  return std::nullopt;
}

std::string ha_cluster::server_log(const ha_member& m) const {
  return read_file(dir_ + "/" + m.name + "/log/postgresql.log");
}

} // namespace belay::test
