// Rows read through one column list. A row type's columns are written once, as a list
// macro LIST(first, next) whose entries name a field and the SQL that selects it:
//
//   #define BELAY_WINDOW_COLUMN_LIST(first, next)
//     first(id, "id") next(start, "belay_us(start_at)") ...
//
// BELAY_SELECT_LIST(LIST) is the statement's select list, one string literal;
// BELAY_ROW_READER(LIST) reads a row's columns into the fields, in the same order (with
// read_row and read_rows), and BELAY_READ_COLUMNS(LIST) does inside a reader of a row
// that has more. A column cannot be added to one and not the other. The reader reads by
// position, as libpq hands the row: no name looked up, nothing allocated but the
// fields' own text. Columns a statement adds after a list's are read by name
// (result::column, once per result).
#pragma once

#include "storage/db.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#define BELAY_COLUMN_FIRST_SQL(field, sql) sql
#define BELAY_COLUMN_NEXT_SQL(field, sql) ", " sql
// "a, b, c": the list's columns as one string literal, to paste into a statement.
#define BELAY_SELECT_LIST(LIST) LIST(BELAY_COLUMN_FIRST_SQL, BELAY_COLUMN_NEXT_SQL)

#define BELAY_READ_COLUMN(field, sql)                                                    \
  ::belay::storage::read_column(r, row, col++, out.field);
// Reads the list's columns into the fields of `out`, from column `col` on, and leaves
// `col` past them; `r` (the result) and `row` in scope.
#define BELAY_READ_COLUMNS(LIST) LIST(BELAY_READ_COLUMN, BELAY_READ_COLUMN)

// A reader of one row: the list's columns, from the first, into the fields of `out`.
#define BELAY_ROW_READER(LIST)                                                           \
  [](const ::belay::storage::result& r, int row, auto& out) {                            \
    int col = 0;                                                                         \
    BELAY_READ_COLUMNS(LIST)                                                             \
  }

namespace belay::storage {

// One column into a field, read as the field's type asks.
inline void read_column(const result& r, int row, int col, int64_t& out) {
  out = r.int64(row, col);
}
inline void read_column(const result& r, int row, int col, int& out) {
  out = static_cast<int>(r.int64(row, col));
}
inline void read_column(const result& r, int row, int col, double& out) {
  out = r.float8(row, col);
}
inline void read_column(const result& r, int row, int col, bool& out) {
  out = r.boolean(row, col);
}
inline void read_column(const result& r, int row, int col, std::string& out) {
  out = r.text(row, col);
}
inline void read_column(const result& r, int row, int col, std::optional<int64_t>& out) {
  out = r.opt_int64(row, col);
}
inline void read_column(const result& r, int row, int col,
                        std::optional<std::string>& out) {
  if (r.null(row, col))
    out.reset();
  else
    out = std::string{r.text(row, col)};
}

// Row `row` of `r`, as `read` (a BELAY_ROW_READER) reads it.
template <class T, class Read> T read_row(const result& r, int row, Read read) {
  T out;
  read(r, row, out);
  return out;
}

// The rows of `r`, at most `limit`, as `read` (a BELAY_ROW_READER) reads each.
template <class T, class Read>
std::vector<T> read_rows(const result& r, Read read,
                         int limit = std::numeric_limits<int>::max()) {
  std::vector<T> rows;
  rows.reserve(std::min(r.rows(), limit));
  for (int row = 0; row < r.rows() && row < limit; ++row)
    read(r, row, rows.emplace_back());
  return rows;
}

} // namespace belay::storage
