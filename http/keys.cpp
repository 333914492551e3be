#include "http/keys.hpp"

#include "protocol/hash.hpp"
#include "storage/db.hpp"

#include <algorithm>
#include <iterator>
#include <string>

namespace belay {

namespace {

micros micros_of(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch())
      .count();
}

std::optional<api_key_info> read_api_key(storage::connection& c,
                                         const std::string& hash) {
  auto found = storage::find_api_key(c, hash);
  if (!found || !constant_time_equal(found->key_hash, hash))
    return std::nullopt;
  return api_key_info{
      found->org_id, found->name, "sha256:" + hash.substr(0, 12),
      protocol::parse_scope(found->scope).value_or(protocol::role::viewer)};
}

} // namespace

bool key_store::is_stored(known_hashes& known, const std::string& hash,
                          clock::time_point now) {
  std::lock_guard reading{known.reading};
  {
    std::lock_guard lock{mutex_};
    if (known.read_at && now - *known.read_at < options_.unknown_ttl)
      return known.hashes.count(hash) > 0;
  }
  std::vector<std::string> stored;
  {
    auto conn = db_.acquire();
    stored = storage::key_hashes(*conn, known.table);
  }
  ++reads_;
  std::lock_guard lock{mutex_};
  known.hashes = std::unordered_set<std::string>(std::make_move_iterator(stored.begin()),
                                                 std::make_move_iterator(stored.end()));
  known.read_at = clock::now();
  return known.hashes.count(hash) > 0;
}

// The cached value of `key` while it is fresh, else what `load(connection, hash)` reads
// when its kind's stored hashes hold it; with `take`, one token from its bucket (kept
// across re-reads of the key).
template <class T, class Load, class Rate>
admission<T> key_store::lookup(std::unordered_map<std::string, cached<T>>& cache,
                               known_hashes& known, std::string_view key, bool take,
                               Load load, Rate rate) {
  admission<T> out;
  if (key.empty())
    return out;
  auto hash = sha256_hex(key);
  auto now = clock::now();
  auto admit = [&](cached<T>& entry) {
    out.found = true;
    out.value = entry.value;
    if (!take)
      return;
    auto taken = protocol::take_token(entry.bucket, rate(entry.value), micros_of(now));
    if (!taken.allowed)
      out.retry_after_seconds = protocol::retry_after_seconds(taken.retry_after);
  };
  {
    std::lock_guard lock{mutex_};
    if (auto it = cache.find(hash);
        it != cache.end() && now - it->second.read_at < options_.ttl) {
      admit(it->second);
      return out;
    }
  }
  std::optional<T> found;
  if (is_stored(known, hash, now)) {
    auto conn = db_.acquire();
    found = load(*conn, hash);
    ++reads_;
  }
  std::lock_guard lock{mutex_};
  if (!found) {
    cache.erase(hash);
    return out;
  }
  auto& entry = cache[hash]; // a re-read keeps the key's bucket
  entry.value = *found;
  entry.read_at = now;
  admit(entry);
  return out;
}

admission<api_key_info> key_store::admit_api_key(std::string_view api_key) {
  return lookup(keys_, api_hashes_, api_key, true, read_api_key,
                [this](const api_key_info&) { return options_.api_rate_per_minute; });
}

admission<storage::personal_token_row>
key_store::admit_personal_token(std::string_view token) {
  return lookup(
      tokens_, token_hashes_, token, true,
      [](storage::connection& c,
         const std::string& hash) -> std::optional<storage::personal_token_row> {
        return storage::find_personal_token(c, hash);
      },
      [this](const storage::personal_token_row&) {
        return options_.api_rate_per_minute;
      });
}

admission<storage::session_row> key_store::admit_session(std::string_view token,
                                                         micros now) {
  admission<storage::session_row> out;
  if (token.empty())
    return out;
  auto hash = sha256_hex(token);
  auto at = clock::now();
  std::optional<storage::session_row> row;
  {
    std::lock_guard lock{mutex_};
    if (auto it = sessions_.find(hash);
        it != sessions_.end() && at - it->second.read_at < options_.ttl)
      row = it->second.value;
    else if (auto u = unknown_sessions_.find(hash);
             u != unknown_sessions_.end() && at - u->second < options_.unknown_ttl)
      return out;
  }
  if (!row) {
    {
      auto conn = db_.acquire();
      row = storage::find_session(*conn, hash, now);
    }
    ++reads_;
    std::lock_guard lock{mutex_};
    if (!row) {
      sessions_.erase(hash);
      if (unknown_sessions_.size() >= 100'000)
        unknown_sessions_.clear();
      unknown_sessions_[hash] = at;
      return out;
    }
    auto& entry = sessions_[hash];
    entry.value = *row;
    entry.read_at = at;
  }
  if (now >= row->expires_at)
    return out;
  // Used again: the expiry slides, written once a touch interval.
  if (now - row->last_seen_at >= options_.session_touch_every) {
    row->last_seen_at = now;
    row->expires_at = std::min(now + options_.session_idle, row->absolute_expires_at);
    {
      auto conn = db_.acquire();
      storage::touch_session(*conn, row->id, now, row->expires_at);
    }
    std::lock_guard lock{mutex_};
    if (auto it = sessions_.find(hash); it != sessions_.end())
      it->second.value = *row;
  }
  out.found = true;
  out.value = *row;
  std::lock_guard lock{mutex_};
  if (auto it = sessions_.find(hash); it != sessions_.end()) {
    auto taken = protocol::take_token(it->second.bucket, options_.api_rate_per_minute,
                                      micros_of(at));
    if (!taken.allowed)
      out.retry_after_seconds = protocol::retry_after_seconds(taken.retry_after);
  }
  return out;
}

void key_store::forget_session(std::string_view token) {
  std::lock_guard lock{mutex_};
  sessions_.erase(sha256_hex(token));
}

admission<storage::integration_row> key_store::admit_integration(std::string_view key) {
  return lookup(
      integrations_, integration_hashes_, key, true,
      [](storage::connection& c,
         const std::string& hash) -> std::optional<storage::integration_row> {
        auto found = storage::find_integration(c, hash);
        if (!found || !constant_time_equal(found->key_hash, hash))
          return std::nullopt;
        return found;
      },
      [](const storage::integration_row& row) {
        return static_cast<double>(row.rate_limit_per_minute);
      });
}

int64_t key_store::charge_integration(std::string_view key, double n) {
  auto hash = sha256_hex(key);
  std::lock_guard lock{mutex_};
  auto it = integrations_.find(hash);
  if (it == integrations_.end() || !(n > 0))
    return 0;
  auto per_minute = static_cast<double>(it->second.value.rate_limit_per_minute);
  // The request's first token was taken when its key was checked.
  auto cost = std::min(n, std::max(0.0, per_minute - 1));
  auto taken =
      protocol::take_tokens(it->second.bucket, per_minute, micros_of(clock::now()), cost);
  return taken.allowed ? 0 : protocol::retry_after_seconds(taken.retry_after);
}

std::optional<int64_t> key_store::org_for(std::string_view api_key) {
  auto a = lookup(keys_, api_hashes_, api_key, false, read_api_key,
                  [](const api_key_info&) { return 0.0; });
  return a.found ? std::optional<int64_t>{a.value.org_id} : std::nullopt;
}

std::optional<storage::integration_row> key_store::integration_for(std::string_view key) {
  auto a = lookup(
      integrations_, integration_hashes_, key, false,
      [](storage::connection& c,
         const std::string& hash) -> std::optional<storage::integration_row> {
        auto found = storage::find_integration(c, hash);
        if (!found || !constant_time_equal(found->key_hash, hash))
          return std::nullopt;
        return found;
      },
      [](const storage::integration_row&) { return 0.0; });
  return a.found ? std::optional<storage::integration_row>{a.value} : std::nullopt;
}

std::optional<storage::heartbeat_key>
key_store::heartbeat_for(std::string_view ping_key) {
  auto a = lookup(
      heartbeats_, heartbeat_hashes_, ping_key, false,
      [](storage::connection& c,
         const std::string& hash) -> std::optional<storage::heartbeat_key> {
        auto found = storage::find_heartbeat(c, hash);
        if (!found || !constant_time_equal(found->key_hash, hash))
          return std::nullopt;
        return found;
      },
      [](const storage::heartbeat_key&) { return 0.0; });
  return a.found ? std::optional<storage::heartbeat_key>{a.value} : std::nullopt;
}

} // namespace belay
