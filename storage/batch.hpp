// What the batch statements share (storage::upsert_triggers, fire_steps,
// record_outcomes): the batch goes in as one JSON array, $1, that json_to_recordset
// turns into rows, and the rows that come back are matched to the items they answer.
#pragma once

#include "protocol/json_writer.hpp"
#include "storage/db.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace belay::storage {

// [write(item) for each item] as the text of $1.
template <class T, class Write>
std::string json_rows(const std::vector<T>& items, Write write) {
  rapidjson::StringBuffer buf;
  protocol::json_writer w{buf};
  w.StartArray();
  for (auto& item : items)
    write(w, item);
  w.EndArray();
  return protocol::to_string(buf);
}

// The row of each (org_id, id) a statement returned, from its first two columns.
inline std::map<std::pair<int64_t, int64_t>, int> rows_by_id(const result& r) {
  std::map<std::pair<int64_t, int64_t>, int> row_of;
  for (int row = 0; row < r.rows(); ++row)
    row_of.emplace(std::pair{r.int64(row, 0), r.int64(row, 1)}, row);
  return row_of;
}

} // namespace belay::storage
