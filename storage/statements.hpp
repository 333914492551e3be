// The statements storage/ assembles from named fragments, each as it runs: the golden
// test (tests/storage/statements_test.cpp) keeps every one checked into
// tests/storage/golden/<name>.sql, where a reader sees it whole and a review sees any
// change to it.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace belay::storage {

struct named_statement {
  std::string name; // its golden file's name, without .sql
  std::string sql;
};

// The fragments, in order, as one statement.
std::string chain(std::initializer_list<std::string_view> fragments);

// `text` with every {{name}} replaced by that name's fragment. A hole left unfilled, or
// a fragment for no hole, is a mistake in the statement: it throws std::logic_error.
std::string
fill(std::string_view text,
     std::initializer_list<std::pair<std::string_view, std::string_view>> holes);

// Each file's assembled statements, and all of them.
std::vector<named_statement> trigger_statements();
std::vector<named_statement> incident_statements();
std::vector<named_statement> delivery_statements();
std::vector<named_statement> answer_statements();
std::vector<named_statement> provision_statements();
std::vector<named_statement> assembled_statements();

} // namespace belay::storage
