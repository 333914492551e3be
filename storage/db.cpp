#include "storage/db.hpp"

#include <libpq-fe.h>
#include <regex>

namespace belay::storage {

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
  return std::stoll(str(row, col));
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

connection::connection(const std::string& url) : conn_(PQconnectdb(url.c_str())) {
  if (PQstatus(conn_) != CONNECTION_OK) {
    auto msg = trimmed(PQerrorMessage(conn_));
    PQfinish(conn_);
    throw db_error("cannot connect to PostgreSQL: " + msg, "");
  }
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
}

connection::~connection() {
  PQfinish(conn_);
}

result connection::exec(const std::string& sql, const std::vector<param>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (auto& p : params)
    values.push_back(p ? p->c_str() : nullptr);
  auto* name = values.empty() ? nullptr : prepared_name(sql);
  auto* res = name ? PQexecPrepared(conn_, name, static_cast<int>(values.size()),
                                    values.data(), nullptr, nullptr, 0)
                   : PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()),
                                  nullptr, values.data(), nullptr, nullptr, 0);
  auto status = PQresultStatus(res);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
    return result{res};
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  std::string msg = trimmed(res ? PQresultErrorMessage(res) : PQerrorMessage(conn_));
  std::string sqlstate = state ? state : "";
  PQclear(res);
  throw db_error(msg.empty() ? trimmed(PQerrorMessage(conn_)) : msg, sqlstate);
}

void connection::run_script(const std::string& sql) {
  auto* res = PQexec(conn_, sql.c_str());
  auto status = PQresultStatus(res);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    PQclear(res);
    return;
  }
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  std::string msg = trimmed(res ? PQresultErrorMessage(res) : PQerrorMessage(conn_));
  std::string sqlstate = state ? state : "";
  PQclear(res);
  throw db_error(msg, sqlstate);
}

bool connection::healthy() const {
  return PQstatus(conn_) == CONNECTION_OK;
}

bool connection::in_transaction() const {
  auto s = PQtransactionStatus(conn_);
  return s == PQTRANS_INTRANS || s == PQTRANS_INERROR;
}

namespace {

bool prepare(pg_conn* conn, const std::string& name, const std::string& sql) {
  auto* res = PQprepare(conn, name.c_str(), sql.c_str(), 0, nullptr);
  bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
  PQclear(res);
  return ok;
}

} // namespace

const char* connection::prepared_name(const std::string& sql) {
  auto now = std::chrono::steady_clock::now();
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) {
    auto name = "belay_" + std::to_string(prepared_.size());
    if (!prepare(conn_, name, sql))
      return nullptr; // run it unprepared: PQexecParams reports the error properly
    it = prepared_.emplace(sql, prepared_statement{std::move(name), now}).first;
  }
  auto& p = it->second;
  // Plan again every second. After five runs PostgreSQL settles on a generic plan,
  // costed with the table sizes of that moment: prepared on a fresh database, the
  // delivery claims kept a plan for an empty table while 10,000 pages queued up, and a
  // storm's last page left 21 s after its last alert (bench/README.md). Planning anew
  // costs a round trip and five custom plans a second.
  if (now - p.planned_at > replan_after &&
      PQtransactionStatus(conn_) != PQTRANS_INERROR) {
    auto* res = PQexec(conn_, ("DEALLOCATE " + p.name).c_str());
    bool dropped = PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    if (dropped && !prepare(conn_, p.name, sql)) {
      prepared_.erase(it);
      return nullptr;
    }
    p.planned_at = now;
  }
  return p.name.c_str();
}

bool connection::reset() {
  prepared_.clear(); // prepared statements die with the session
  PQreset(conn_);
  return healthy();
}

pool::pool(std::string url, size_t size) : url_(std::move(url)), size_(size) {}

pool::lease pool::acquire() {
  std::unique_lock lock{mutex_};
  available_.wait(lock, [&] { return !idle_.empty() || opened_ < size_; });
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
