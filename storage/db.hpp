// A thin RAII layer over libpq: connections, parameterised statements, results,
// transactions and a small blocking pool for the HTTP threads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct pg_conn;
struct pg_result;

namespace belay::storage {

struct db_error : std::runtime_error {
  db_error(const std::string& what, std::string state)
      : std::runtime_error(what), sqlstate(std::move(state)) {}
  std::string sqlstate; // e.g. "23505" unique violation; empty for connection errors
};

// Whether an error with this SQLSTATE means the session must not be used again: the
// connection broke (class 08), the server is going away (57P01 admin shutdown, 57P02
// crash, 57P03 cannot connect now), or it refused a write because it became a standby
// (25006: a failover demoted it). The connection is closed then, and the next statement
// connects afresh, to whichever host is the primary now (docs/operations.md#failover).
bool ends_session(const std::string& sqlstate);

using param = std::optional<std::string>;

inline param arg(std::string v) {
  return v;
}
inline param arg(const char* v) {
  return std::string{v};
}
inline param arg(std::string_view v) {
  return std::string{v};
}
inline param arg(bool v) {
  return std::string{v ? "true" : "false"};
}
inline param arg(int v) {
  return std::to_string(v);
}
inline param arg(long v) {
  return std::to_string(v);
}
inline param arg(long long v) {
  return std::to_string(v);
}
inline param arg(double v) {
  return std::to_string(v);
}
inline param arg(std::nullopt_t) {
  return std::nullopt;
}
template <class T> param arg(const std::optional<T>& v) {
  return v ? arg(*v) : std::nullopt;
}
// Integers as the text of a bigint[] parameter: "{1,2,3}".
template <class Integers> std::string bigint_array(const Integers& values) {
  std::string out = "{";
  for (auto v : values) {
    if (out.size() > 1)
      out += ',';
    out += std::to_string(v);
  }
  return out + "}";
}

// Strings as the text of a text[] parameter: {"a","b\"c"}, each quoted and escaped.
std::string text_array(const std::vector<std::string>& values);

class result {
public:
  explicit result(pg_result* r) : res_(r, &release) {}
  int rows() const;
  bool null(int row, int col) const;
  std::string_view text(int row, int col) const;
  std::string str(int row, int col) const { return std::string{text(row, col)}; }
  int64_t int64(int row, int col) const;
  double float8(int row, int col) const;
  bool boolean(int row, int col) const;
  std::optional<int64_t> opt_int64(int row, int col) const;
  // The number of the column a statement named `name` (lower case, as PostgreSQL folds
  // an unquoted alias); throws when it has none. Look it up once per result, not per row.
  int column(const char* name) const;

private:
  static void release(pg_result* r);
  std::shared_ptr<pg_result> res_;
};

// How every connection belay opens guards against a database or network that hangs
// (docs/guarantees.md#nothing-waits-for-ever). Settings the
// connection string names itself win over these.
struct connection_limits {
  double connect_timeout_seconds = 5;
  // Server side: a statement running longer is cancelled (0: the server's setting).
  double statement_timeout_seconds = 30;
  // TCP keepalives: a peer that vanished is noticed after idle + interval * count.
  int keepalive_idle_seconds = 10;
  int keepalive_interval_seconds = 5;
  int keepalive_count = 3;
  // Server side: a transaction left idle this long is ended, and its row locks go with
  // it (0: the server's setting). belay sends a transaction's statements back to back
  // and waits on nothing else inside one, so an idle transaction has lost its client: a
  // dead network path the server would otherwise notice only when its own keepalive
  // gives up (~2 h by default), holding the locks of incidents and deliveries until
  // then. As long as the statement timeout: a stranded transaction holds its locks no
  // longer than a stuck statement may.
  double idle_in_transaction_seconds = 30;
  // Client side: no reply within this long (a stalled network or server) closes the
  // connection, and whatever it was sending may or may not have committed.
  double reply_timeout_seconds() const { return statement_timeout_seconds + 5; }
};

// Process-wide: set once at start, before any connection opens.
void set_connection_limits(const connection_limits& limits);
const connection_limits& current_connection_limits();

// Opens a libpq connection to `url` with the limits above (and `application_name`, if
// given); the caller owns it. Null on failure, with libpq's message in `error`.
pg_conn* open_connection(const std::string& url, const std::string& application_name,
                         std::string& error);

class connection {
public:
  explicit connection(const std::string& url); // throws db_error when it cannot connect
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  // Prepared statements are planned anew every `replan_after` (see prepared_name).
  static constexpr std::chrono::seconds replan_after{1};
  // A statement that reaches rows by key only plans the same whatever the tables' sizes:
  // planned every second, the trigger statement spent a fifth of its time planning
  // (bench/README.md). Such statements keep their plan this long.
  static constexpr std::chrono::seconds key_lookup_replan_after{10};

  result exec(const std::string& sql, const std::vector<param>& params = {},
              std::chrono::seconds replan_every = replan_after);
  // The same, waiting at most `reply_timeout` for the reply (e.g. a readiness probe).
  result exec_within(std::chrono::milliseconds reply_timeout, const std::string& sql);
  template <class... Ts> result query(const std::string& sql, const Ts&... args) {
    return exec(sql, std::vector<param>{arg(args)...});
  }
  // query() for a statement that reaches its rows by key only.
  template <class... Ts> result query_by_key(const std::string& sql, const Ts&... args) {
    return exec(sql, std::vector<param>{arg(args)...}, key_lookup_replan_after);
  }
  // Runs several ;-separated statements without parameters (migrations).
  void run_script(const std::string& sql);
  bool healthy() const;
  // Inside BEGIN … COMMIT (or a failed transaction awaiting ROLLBACK).
  bool in_transaction() const;
  // Re-establishes a broken connection; returns whether it is usable now.
  bool reset();

private:
  // Statements with parameters are prepared once per session and reused: parsing and
  // planning them on every call was a large share of an ingest (bench/README.md).
  const char* prepared_name(const std::string& sql, std::chrono::seconds replan_every);
  bool prepare(const std::string& name, const std::string& sql);
  // Waits for the reply to what was just sent; closes the connection when none comes
  // by `deadline`. Returns the last result (the caller clears it).
  pg_result* await_reply(std::chrono::steady_clock::time_point deadline);
  std::chrono::steady_clock::time_point reply_deadline() const;
  [[noreturn]] void fail_connection(const std::string& why);
  // Throws the error `res` reports (and clears it), closing the session first when the
  // error ends it (ends_session).
  [[noreturn]] void fail_statement(pg_result* res);
  void close();
  std::string url_;
  struct prepared_statement {
    std::string name;
    std::chrono::steady_clock::time_point planned_at;
  };
  pg_conn* conn_;
  std::unordered_map<std::string, prepared_statement> prepared_;
};

// Runs `work` inside BEGIN/COMMIT, rolling back if it throws.
template <class F> auto transaction(connection& c, F&& work) -> decltype(work()) {
  c.exec("BEGIN");
  try {
    if constexpr (std::is_void_v<decltype(work())>) {
      work();
      c.exec("COMMIT");
    } else {
      auto out = work();
      c.exec("COMMIT");
      return out;
    }
  } catch (...) {
    if (c.healthy())
      c.exec("ROLLBACK");
    throw;
  }
}

// A fixed-size set of connections for blocking callers (HTTP threads). Opened lazily.
class pool {
public:
  // A caller waits at most `acquire_timeout` for a free connection, then gets a
  // db_error: a pool whose connections all hang cannot hold HTTP threads for ever.
  static constexpr std::chrono::seconds default_acquire_timeout{5};
  pool(std::string url, size_t size,
       std::chrono::milliseconds acquire_timeout = default_acquire_timeout);
  class lease {
  public:
    lease(pool& p, std::unique_ptr<connection> c) : pool_(&p), conn_(std::move(c)) {}
    lease(lease&&) = default;
    ~lease();
    connection& operator*() { return *conn_; }
    connection* operator->() { return conn_.get(); }

  private:
    pool* pool_;
    std::unique_ptr<connection> conn_;
  };
  lease acquire();
  const std::string& url() const { return url_; }
  size_t size() const { return size_; }
  size_t busy() const;

private:
  friend class lease;
  void give_back(std::unique_ptr<connection> c);
  std::string url_;
  size_t size_;
  std::chrono::milliseconds acquire_timeout_;
  size_t opened_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<connection>> idle_;
};

// Redacts the password from a connection string before it is logged.
std::string redact_url(const std::string& url);

} // namespace belay::storage
