#include "support/openapi_check.hpp"

#include <catch2/catch.hpp>
#include <cctype>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/schema.h>
#include <rapidjson/stringbuffer.h>
#include <regex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace belay::embedded {
extern const std::vector<std::pair<std::string_view, std::string_view>> openapi_document;
}

namespace belay::test {

namespace {

// Static initialisation runs on the thread that then runs the test cases.
const std::thread::id test_thread = std::this_thread::get_id();

std::mutex pending_mutex;
std::vector<std::string> pending;

// "/api/v1/incidents/{id}" as a regex: each {parameter} one path segment.
std::string pattern_of(const std::string& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '{') {
      i = path.find('}', i);
      out += "[^/]+";
    } else {
      if (std::string_view{R"(\^$.|?*+()[]{})"}.find(path[i]) != std::string_view::npos)
        out += '\\';
      out += path[i];
    }
  }
  return out;
}

// A JSON pointer's reference token (RFC 6901).
std::string token(std::string_view name) {
  std::string out;
  for (char c : name)
    out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

class openapi_document {
public:
  openapi_document() {
    auto text = embedded::openapi_document.front().second;
    doc_.Parse(text.data(), text.size());
    for (auto& path : doc_["paths"].GetObject()) {
      std::string key = path.name.GetString();
      paths_.emplace_back(std::regex(pattern_of(key)), key);
    }
  }

  std::string mismatch(const std::string& method, const std::string& path, int status,
                       const std::string& body) {
    auto where = method + " " + path + " -> " + std::to_string(status);
    auto schema = schema_pointer(method, path.substr(0, path.find('?')), status);
    if (schema.empty())
      return where +
             ": http/openapi.json gives this answer no JSON schema; body: " + body;
    rapidjson::Document answer;
    answer.Parse(body.c_str(), body.size());
    if (answer.HasParseError())
      return where + ": the body is not JSON: " + body;
    rapidjson::SchemaValidator validator(schema_at(schema));
    if (answer.Accept(validator))
      return "";
    rapidjson::StringBuffer in_schema, in_answer;
    validator.GetInvalidSchemaPointer().StringifyUriFragment(in_schema);
    validator.GetInvalidDocumentPointer().StringifyUriFragment(in_answer);
    return where + ": the answer at " + in_answer.GetString() + " fails '" +
           validator.GetInvalidSchemaKeyword() + "' of http/openapi.json's " +
           in_schema.GetString() + "; body: " + body;
  }

private:
  // The pointer to the JSON schema of the answer, "" when the document gives none. A
  // path or method the document does not have is answered with an error (404, 405):
  // belay's error shape.
  std::string schema_pointer(const std::string& method, const std::string& path,
                             int status) {
    std::string operation;
    for (auto& [pattern, key] : paths_) {
      std::string name = method;
      for (auto& c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (std::regex_match(path, pattern) &&
          doc_["paths"][key.c_str()].HasMember(name.c_str())) {
        operation = "/paths/" + token(key) + "/" + name;
        break;
      }
    }
    if (operation.empty())
      return status >= 400 ? "/components/schemas/Error" : "";
    auto& responses = *rapidjson::Pointer((operation + "/responses").c_str()).Get(doc_);
    std::string code = std::to_string(status);
    if (!responses.HasMember(code.c_str()))
      code = responses.HasMember((code.substr(0, 1) + "XX").c_str())
                 ? code.substr(0, 1) + "XX"
                 : "default";
    if (!responses.HasMember(code.c_str()))
      return "";
    auto response = operation + "/responses/" + token(code);
    auto& value = responses[code.c_str()];
    if (value.HasMember("$ref"))
      response = value["$ref"].GetString() + 1; // "#/components/…"
    auto schema = response + "/content/application~1json/schema";
    return rapidjson::Pointer(schema.c_str()).Get(doc_) ? schema : "";
  }

  // A schema document of the answer's schema alone, with the component schemas its
  // $refs name ("#/components/schemas/…") beside it. Not the whole OpenAPI document:
  // RapidJSON 1.1 makes a schema of every object under the root, and the document's
  // other objects (a parameter's boolean "required") crash its validator.
  const rapidjson::SchemaDocument& schema_at(const std::string& pointer) {
    std::lock_guard lock{mutex_};
    auto& entry = schemas_[pointer];
    if (!entry.second) {
      entry.first = std::make_unique<rapidjson::Document>();
      auto& root = *entry.first;
      auto& alloc = root.GetAllocator();
      root.CopyFrom(*rapidjson::Pointer(pointer.c_str()).Get(doc_), alloc);
      rapidjson::Value schemas(doc_["components"]["schemas"], alloc);
      rapidjson::Value components(rapidjson::kObjectType);
      components.AddMember("schemas", schemas, alloc);
      root.AddMember("components", components, alloc);
      entry.second = std::make_unique<rapidjson::SchemaDocument>(root);
    }
    return *entry.second;
  }

  rapidjson::Document doc_;
  std::vector<std::pair<std::regex, std::string>> paths_;
  std::mutex mutex_;
  std::map<std::string, std::pair<std::unique_ptr<rapidjson::Document>,
                                  std::unique_ptr<rapidjson::SchemaDocument>>>
      schemas_;
};

openapi_document& document() {
  static openapi_document doc;
  return doc;
}

} // namespace

std::string openapi_mismatch(const std::string& method, const std::string& path,
                             int status, const std::string& content_type,
                             const std::string& body) {
  if (method == "HEAD" || content_type.rfind("application/json", 0) != 0)
    return "";
  return document().mismatch(method, path, status, body);
}

void check_answers(httplib::Client& client) {
  client.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    auto why = openapi_mismatch(req.method, req.path, res.status,
                                res.get_header_value("Content-Type"), res.body);
    if (std::this_thread::get_id() != test_thread) {
      if (!why.empty()) {
        std::lock_guard lock{pending_mutex};
        pending.push_back(why);
      }
      return;
    }
    report_openapi_mismatches();
    if (!why.empty())
      FAIL_CHECK(why);
  });
}

void report_openapi_mismatches() {
  if (std::this_thread::get_id() != test_thread || std::uncaught_exceptions() > 0)
    return;
  std::vector<std::string> seen;
  {
    std::lock_guard lock{pending_mutex};
    seen.swap(pending);
  }
  for (auto& why : seen)
    FAIL_CHECK(why);
}

} // namespace belay::test
