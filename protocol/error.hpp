// The one error shape of the HTTP contract (docs/http.md#errors) and the result type
// every parser in protocol/ returns.
#pragma once

#include <string>
#include <variant>

namespace belay::protocol {

struct error {
  int status = 400;
  std::string code;    // snake_case, stable: clients branch on it
  std::string message; // for people: says what is wrong and, for bad JSON, where
  std::string field;   // JSON path of the value at fault; empty when no one field is
};

// {"error":{"code":"…","message":"…","field":"…"}}, "field" left out when empty.
std::string render_error(const error& e);

template <class T> using parsed = std::variant<T, error>;

} // namespace belay::protocol
