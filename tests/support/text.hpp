// Reading text in assertions.
#pragma once

#include <string>

namespace belay::test {

// Whether `part` occurs anywhere in `text`.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace belay::test
