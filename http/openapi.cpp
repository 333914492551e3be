// GET /api/v1/openapi.json: http/openapi.json, the machine-readable contract of every
// route (docs/http.md#openapi), built into the binary. No key: it describes the API, it
// holds nothing of an org's.
#include "http/api.hpp"
#include "http/routes.hpp"

#include <string_view>
#include <utility>
#include <vector>

namespace belay {

namespace embedded {
extern const std::vector<std::pair<std::string_view, std::string_view>> openapi_document;
}

void add_openapi_routes(routes& http) {
  http.Get("/api/v1/openapi.json", [](const httplib::Request&, httplib::Response& res) {
    auto& [name, contents] = embedded::openapi_document.front();
    res.status = 200;
    res.set_content(contents.data(), contents.size(), "application/json");
  });
}

} // namespace belay
