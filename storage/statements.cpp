#include "storage/statements.hpp"

#include <stdexcept>

namespace belay::storage {

std::string chain(std::initializer_list<std::string_view> fragments) {
  std::string out;
  for (auto f : fragments)
    out += f;
  return out;
}

std::string
fill(std::string_view text,
     std::initializer_list<std::pair<std::string_view, std::string_view>> holes) {
  std::string out;
  std::vector<bool> used(holes.size());
  size_t at = 0;
  while (true) {
    auto open = text.find("{{", at);
    out += text.substr(at, open - at);
    if (open == std::string_view::npos)
      break;
    auto close = text.find("}}", open);
    if (close == std::string_view::npos)
      throw std::logic_error("a hole is not closed: " +
                             std::string{text.substr(open, 40)});
    auto name = text.substr(open + 2, close - open - 2);
    size_t i = 0;
    for (auto& hole : holes) {
      if (hole.first == name)
        break;
      ++i;
    }
    if (i == holes.size())
      throw std::logic_error("no fragment for the hole {{" + std::string{name} + "}}");
    out += std::data(holes)[i].second;
    used[i] = true;
    at = close + 2;
  }
  for (size_t i = 0; i < holes.size(); ++i)
    if (!used[i])
      throw std::logic_error("no hole {{" + std::string{std::data(holes)[i].first} +
                             "}}");
  return out;
}

std::vector<named_statement> assembled_statements() {
  std::vector<named_statement> out;
  for (auto part : {trigger_statements, incident_statements, delivery_statements,
                    answer_statements, provision_statements})
    for (auto& s : part())
      out.push_back(std::move(s));
  return out;
}

} // namespace belay::storage
