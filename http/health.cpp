#include "http/api.hpp"
#include "http/routes.hpp"
#include "storage/db.hpp"

#include <httplib.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace belay {

namespace {

std::string status_json(const char* status, const std::string& reason) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w{buf};
  w.StartObject();
  w.Key("status");
  w.String(status);
  if (!reason.empty()) {
    w.Key("reason");
    w.String(reason.c_str(), static_cast<rapidjson::SizeType>(reason.size()));
  }
  w.EndObject();
  return buf.GetString();
}

} // namespace

void add_health_routes(routes& http, api& a) {
  http.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(status_json("ok", ""), "application/json");
  });
  http.Get("/readyz", [&a](const httplib::Request&, httplib::Response& res) {
    try {
      auto conn = a.db.acquire();
      try {
        conn->exec("SELECT 1");
      } catch (const storage::db_error&) {
        // A connection that went stale while the server restarted gets one retry.
        if (!conn->reset())
          throw;
        conn->exec("SELECT 1");
      }
      res.set_content(status_json("ready", ""), "application/json");
    } catch (const storage::db_error& e) {
      res.status = 503;
      res.set_content(status_json("unavailable", std::string{"database: "} + e.what()),
                      "application/json");
    }
  });
}

} // namespace belay
