#include "storage/db.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <libpq-fe.h>
#include <memory>
#include <poll.h>
#include <regex>

namespace belay::storage {

std::string text_array(const std::vector<std::string>& values) {
  std::string out = "{";
  for (auto& v : values) {
    if (out.size() > 1)
      out += ',';
    out += '"';
    for (char ch : v) {
      if (ch == '"' || ch == '\\')
        out += '\\';
      out += ch;
    }
    out += '"';
  }
  return out + "}";
}

namespace {

std::string trimmed(const char* msg) {
  std::string s = msg ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s;
}

} // namespace

void result::release(pg_result* r) {
  PQclear(r);
}

int result::rows() const {
  return PQntuples(res_.get());
}

bool result::null(int row, int col) const {
  return PQgetisnull(res_.get(), row, col);
}

std::string_view result::text(int row, int col) const {
  return {PQgetvalue(res_.get(), row, col),
          static_cast<size_t>(PQgetlength(res_.get(), row, col))};
}

int64_t result::int64(int row, int col) const {
  // Read in place: a copy and std::stoll were ~390 instructions a value, and a trigger
  // batch reads a dozen per incident (callgrind).
  auto value = text(row, col);
  int64_t out = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (error != std::errc{} || end != value.data() + value.size())
    throw std::invalid_argument("not a bigint: '" + std::string{value} + "'");
  return out;
}

double result::float8(int row, int col) const {
  return std::stod(str(row, col));
}

bool result::boolean(int row, int col) const {
  return text(row, col) == "t";
}

std::optional<int64_t> result::opt_int64(int row, int col) const {
  if (null(row, col))
    return std::nullopt;
  return int64(row, col);
}

int result::column(const char* name) const {
  auto col = PQfnumber(res_.get(), name);
  if (col < 0)
    throw std::invalid_argument("the statement has no column '" + std::string{name} +
                                "'");
  return col;
}

namespace {

connection_limits limits;

std::string seconds_text(double s) {
  return std::to_string(std::max<long>(1, std::lround(s)));
}

// The options a connection string gives, through libpq's own parser ("" if none).
std::string options_of(const std::string& url) {
  char* err = nullptr;
  auto* parsed = PQconninfoParse(url.c_str(), &err);
  if (err)
    PQfreemem(err);
  std::string out;
  for (auto* o = parsed; o && o->keyword; ++o)
    if (std::string_view{o->keyword} == "options" && o->val)
      out = o->val;
  if (parsed)
    PQconninfoFree(parsed);
  return out;
}

// Adds `-c name=value` to a connection's options unless they set `name` already (the
// connection string wins). Durations are in seconds, sent in milliseconds; counts as
// they are; 0 leaves the server's setting.
void add_server_setting(std::string& options, const std::string& name, double seconds) {
  if (seconds <= 0 || options.find(name) != std::string::npos)
    return;
  options += " -c " + name + "=" + std::to_string(std::llround(seconds * 1000)) + "ms";
}

void add_server_setting(std::string& options, const std::string& name, int count) {
  if (count <= 0 || options.find(name) != std::string::npos)
    return;
  options += " -c " + name + "=" + std::to_string(count);
}

} // namespace

bool ends_session(const std::string& sqlstate) {
  return sqlstate.rfind("08", 0) == 0 || sqlstate == "57P01" || sqlstate == "57P02" ||
         sqlstate == "57P03" || sqlstate == "25006";
}

void set_connection_limits(const connection_limits& l) {
  limits = l;
}

const connection_limits& current_connection_limits() {
  return limits;
}

pg_conn* open_connection(const std::string& url, const std::string& application_name,
                         std::string& error) {
  // libpq takes the last value of a repeated keyword, and the connection string
  // (expanded from "dbname") sits between belay's defaults and its additions: the
  // string's own timeouts and keepalives win; its options are kept, and gain a
  // statement timeout unless they set one.
  auto options = options_of(url);
  add_server_setting(options, "statement_timeout", limits.statement_timeout_seconds);
  add_server_setting(options, "idle_in_transaction_session_timeout",
                     limits.idle_in_transaction_seconds);
  // The server's side of a dead network path: without these its keepalives follow the
  // operating system's defaults (~2 h), whatever belay's own side does. Ignored on a
  // unix socket.
  add_server_setting(options, "tcp_keepalives_idle", limits.keepalive_idle_seconds);
  add_server_setting(options, "tcp_keepalives_interval",
                     limits.keepalive_interval_seconds);
  add_server_setting(options, "tcp_keepalives_count", limits.keepalive_count);
  auto connect = seconds_text(limits.connect_timeout_seconds);
  auto idle = std::to_string(limits.keepalive_idle_seconds);
  auto interval = std::to_string(limits.keepalive_interval_seconds);
  auto count = std::to_string(limits.keepalive_count);
  // Unacknowledged data for this long ends the connection too (a peer gone mid-write).
  auto user_timeout =
      std::to_string((limits.keepalive_idle_seconds +
                      limits.keepalive_interval_seconds * limits.keepalive_count) *
                     1000);
  std::vector<const char*> keys{
      "connect_timeout",  "keepalives",       "keepalives_idle", "keepalives_interval",
      "keepalives_count", "tcp_user_timeout", "dbname",          "options"};
  std::vector<const char*> values{
      connect.c_str(),      "1",         idle.c_str(),   interval.c_str(), count.c_str(),
      user_timeout.c_str(), url.c_str(), options.c_str()};
  if (!application_name.empty()) {
    keys.push_back("application_name");
    values.push_back(application_name.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  auto* conn = PQconnectdbParams(keys.data(), values.data(), 1);
  if (PQstatus(conn) != CONNECTION_OK) {
    error = trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    return nullptr;
  }
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  // Non-blocking, so that a write into a stalled socket is bounded by the reply timeout.
  PQsetnonblocking(conn, 1);
  return conn;
}

connection::connection(const std::string& url) : url_(url) {
  std::string error;
  conn_ = open_connection(url_, "", error);
  if (!conn_)
    throw db_error("cannot connect to PostgreSQL: " + error, "");
}

connection::~connection() {
  if (conn_)
    PQfinish(conn_);
}

std::chrono::steady_clock::time_point connection::reply_deadline() const {
  return std::chrono::steady_clock::now() +
         std::chrono::milliseconds{std::llround(limits.reply_timeout_seconds() * 1000)};
}

void connection::close() {
  if (conn_)
    PQfinish(conn_);
  conn_ = nullptr;
  prepared_.clear();
}

void connection::fail_connection(const std::string& why) {
  // The session is in an unknown state: drop it; reset() opens a fresh one.
  close();
  throw db_error(why, "");
}

void connection::fail_statement(pg_result* res) {
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  std::string sqlstate = state ? state : "";
  std::string msg = trimmed(res ? PQresultErrorMessage(res) : PQerrorMessage(conn_));
  if (msg.empty())
    msg = trimmed(PQerrorMessage(conn_));
  PQclear(res);
  // A demoted server would refuse every later write too; a closing one would fail them.
  if (ends_session(sqlstate))
    close();
  throw db_error(msg, sqlstate);
}

pg_result* connection::await_reply(std::chrono::steady_clock::time_point deadline) {
  using namespace std::chrono;
  auto wait = [&](short events) {
    auto left = duration_cast<milliseconds>(deadline - steady_clock::now()).count();
    if (left <= 0)
      fail_connection("no reply from PostgreSQL within " +
                      seconds_text(limits.reply_timeout_seconds()) +
                      " s; the connection was closed");
    pollfd fd{PQsocket(conn_), events, 0};
    auto timeout = static_cast<int>(std::min<long long>(left, 60'000));
    if (poll(&fd, 1, timeout) < 0 && errno != EINTR)
      fail_connection("cannot wait for PostgreSQL: " + std::string{strerror(errno)});
  };
  // Everything sent is flushed first (the socket may be full when the peer stalls).
  for (int pending = PQflush(conn_); pending != 0; pending = PQflush(conn_)) {
    if (pending < 0)
      fail_connection(trimmed(PQerrorMessage(conn_)));
    wait(POLLOUT | POLLIN);
    if (!PQconsumeInput(conn_))
      fail_connection(trimmed(PQerrorMessage(conn_)));
  }
  // Held so that a failure while more results arrive does not leak the earlier ones.
  std::unique_ptr<pg_result, decltype(&PQclear)> last{nullptr, &PQclear};
  while (true) {
    while (PQisBusy(conn_)) {
      wait(POLLIN);
      if (!PQconsumeInput(conn_))
        fail_connection(trimmed(PQerrorMessage(conn_)));
    }
    auto* r = PQgetResult(conn_);
    if (!r)
      break;
    // Keep the first error, else the last result (a script's last statement).
    if (last && PQresultStatus(last.get()) == PGRES_FATAL_ERROR) {
      PQclear(r);
      continue;
    }
    last.reset(r);
  }
  if (!last && PQstatus(conn_) != CONNECTION_OK)
    fail_connection(trimmed(PQerrorMessage(conn_)));
  return last.release();
}

result connection::exec(const std::string& sql, const std::vector<param>& params,
                        std::chrono::seconds replan_every) {
  // A closed connection stays closed until reset(): reconnecting here could run a
  // statement outside the transaction it belonged to.
  if (!conn_)
    throw db_error("the connection to PostgreSQL was closed", "");
  auto deadline = reply_deadline();
  std::vector<const char*> values;
  values.reserve(params.size());
  for (auto& p : params)
    values.push_back(p ? p->c_str() : nullptr);
  auto* name = values.empty() ? nullptr : prepared_name(sql, replan_every);
  int sent = name ? PQsendQueryPrepared(conn_, name, static_cast<int>(values.size()),
                                        values.data(), nullptr, nullptr, 0)
                  : PQsendQueryParams(conn_, sql.c_str(), static_cast<int>(values.size()),
                                      nullptr, values.data(), nullptr, nullptr, 0);
  if (!sent)
    fail_connection(trimmed(PQerrorMessage(conn_)));
  auto* res = await_reply(deadline);
  auto status = PQresultStatus(res);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
    return result{res};
  fail_statement(res);
}

result connection::exec_within(std::chrono::milliseconds reply_timeout,
                               const std::string& sql) {
  if (!conn_)
    throw db_error("the connection to PostgreSQL was closed", "");
  if (!PQsendQuery(conn_, sql.c_str()))
    fail_connection(trimmed(PQerrorMessage(conn_)));
  auto* res = await_reply(std::chrono::steady_clock::now() + reply_timeout);
  auto status = PQresultStatus(res);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
    return result{res};
  fail_statement(res);
}

void connection::run_script(const std::string& sql) {
  if (!conn_)
    throw db_error("the connection to PostgreSQL was closed", "");
  // A migration may take long (an index on a big table): no deadline, no timeout.
  if (!PQsendQuery(conn_, ("SET statement_timeout = 0; " + sql).c_str()))
    fail_connection(trimmed(PQerrorMessage(conn_)));
  auto* res = await_reply(std::chrono::steady_clock::time_point::max());
  auto status = PQresultStatus(res);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    PQclear(res);
    return;
  }
  fail_statement(res);
}

bool connection::healthy() const {
  return conn_ && PQstatus(conn_) == CONNECTION_OK;
}

bool connection::in_transaction() const {
  if (!conn_)
    return false;
  auto s = PQtransactionStatus(conn_);
  return s == PQTRANS_INTRANS || s == PQTRANS_INERROR;
}

bool connection::prepare(const std::string& name, const std::string& sql) {
  if (!PQsendPrepare(conn_, name.c_str(), sql.c_str(), 0, nullptr))
    fail_connection(trimmed(PQerrorMessage(conn_)));
  auto* res = await_reply(reply_deadline());
  bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
  PQclear(res);
  return ok;
}

const char* connection::prepared_name(const std::string& sql,
                                      std::chrono::seconds replan_every) {
  auto now = std::chrono::steady_clock::now();
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) {
    auto name = "belay_" + std::to_string(prepared_.size());
    if (!prepare(name, sql))
      return nullptr; // run it unprepared: PQexecParams reports the error properly
    it = prepared_.emplace(sql, prepared_statement{std::move(name), now}).first;
  }
  auto& p = it->second;
  // Plan again every second. After five runs PostgreSQL settles on a generic plan,
  // costed with the table sizes of that moment: prepared on a fresh database, the
  // delivery claims kept a plan for an empty table while 10,000 pages queued up, and a
  // storm's last page left 21 s after its last alert (bench/README.md). Planning anew
  // costs a round trip and five custom plans a second; statements by key plan less often.
  if (now - p.planned_at > replan_every &&
      PQtransactionStatus(conn_) != PQTRANS_INERROR) {
    if (!PQsendQuery(conn_, ("DEALLOCATE " + p.name).c_str()))
      fail_connection(trimmed(PQerrorMessage(conn_)));
    auto* res = await_reply(reply_deadline());
    bool dropped = PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    if (dropped && !prepare(p.name, sql)) {
      prepared_.erase(it);
      return nullptr;
    }
    p.planned_at = now;
  }
  return p.name.c_str();
}

bool connection::reset() {
  prepared_.clear(); // prepared statements die with the session
  if (conn_)
    PQfinish(conn_);
  std::string error;
  conn_ = open_connection(url_, "", error);
  return healthy();
}

pool::pool(std::string url, size_t size, std::chrono::milliseconds acquire_timeout)
    : url_(std::move(url)), size_(size), acquire_timeout_(acquire_timeout) {}

pool::lease pool::acquire() {
  std::unique_lock lock{mutex_};
  if (!available_.wait_for(lock, acquire_timeout_,
                           [&] { return !idle_.empty() || opened_ < size_; }))
    throw db_error("no database connection came free within " +
                       std::to_string(acquire_timeout_.count()) + " ms (all " +
                       std::to_string(size_) + " busy)",
                   "");
  if (!idle_.empty()) {
    auto c = std::move(idle_.back());
    idle_.pop_back();
    return lease{*this, std::move(c)};
  }
  ++opened_;
  lock.unlock();
  try {
    return lease{*this, std::make_unique<connection>(url_)};
  } catch (...) {
    std::lock_guard relock{mutex_};
    --opened_;
    available_.notify_one();
    throw;
  }
}

void pool::give_back(std::unique_ptr<connection> c) {
  std::lock_guard lock{mutex_};
  if (c && c->healthy())
    idle_.push_back(std::move(c));
  else
    --opened_; // a broken connection is dropped; the next caller opens a fresh one
  available_.notify_one();
}

size_t pool::busy() const {
  std::lock_guard lock{mutex_};
  return opened_ - idle_.size();
}

pool::lease::~lease() {
  if (pool_ && conn_)
    pool_->give_back(std::move(conn_));
}

std::string redact_url(const std::string& url) {
  static const std::regex uri_password{R"((://[^:/@]*:)[^@]*@)"};
  static const std::regex keyword_password{R"((password\s*=\s*)('[^']*'|\S+))"};
  auto out = std::regex_replace(url, uri_password, "$1***@");
  return std::regex_replace(out, keyword_password, "$1***");
}

} // namespace belay::storage
