// A TCP proxy on 127.0.0.1 (ephemeral port) that injects network faults between belay
// and PostgreSQL or an HTTP peer. The fault-injection tests point belay at it, e.g.
// `--database-url "host=127.0.0.1 port=<proxy.port()> dbname=belay_test user=postgres"`
// with the proxy's upstream the cluster's unix socket (postgres_socket(dir, port)), or a
// webhook target at "http://127.0.0.1:<proxy.port()>/" in front of an http_sink. Faults:
// - drop_after_commit / drop_reply_after: the request reached the server and took effect
//   (COMMIT committed, webhook delivered), but the reply is lost and the connection
//   reset: the ambiguous outcome that belay must settle by reading back
//   (docs/operations.md#lost-commit);
// - reset_all: the network or the server dropped every connection (failover, restart);
// - stall: a hung peer that holds connections and answers nothing (statement timeouts,
//   keepalives, deadlines);
// - refuse: the server is down; new connections are reset as soon as they are accepted;
// - delay: a slow network, latency added to every chunk forwarded either way.
// Every control is thread-safe and may be called from the test while traffic flows.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace belay::test {

// Decides from the bytes of one read from a client whether the one-shot fault fires.
using fault_trigger = std::function<bool(std::string_view client_bytes)>;

// Whether the bytes hold a PostgreSQL frontend message that commits: a simple Query ('Q')
// or an extended-protocol Parse ('P', what PQexecParams sends) whose SQL is COMMIT or END
// (any case, also COMMIT WORK/AND CHAIN/PREPARED, also one statement of a multi-statement
// Query). Several messages in one read are all examined. The bytes must start at a
// message boundary (libpq writes each request whole); a message cut off at the end is
// ignored.
bool contains_commit(std::string_view client_bytes);

// Whether the bytes end a statement in PostgreSQL's sense: a simple Query, or an Execute
// ('E') followed by a Sync ('S'). Outside BEGIN … COMMIT that is where PostgreSQL commits
// the statement's implicit transaction (belay's single-statement trigger upserts): arm
// drop_reply_after(ends_statement) just before such a statement. A Parse + Sync alone
// (PQprepare) does not count.
bool ends_statement(std::string_view client_bytes);

struct proxy_connections {
  std::uint64_t open = 0;     // client connections open now
  std::uint64_t accepted = 0; // accepted since the proxy started, refused ones included
  std::uint64_t refused = 0;  // reset at once because of refuse(true)
};

struct proxy_traffic {
  std::uint64_t bytes_up = 0;   // client → upstream, forwarded
  std::uint64_t chunks_up = 0;  // reads forwarded client → upstream
  std::uint64_t bytes_down = 0; // upstream → client, forwarded
  std::uint64_t chunks_down = 0;
  std::uint64_t bytes_dropped = 0; // replies swallowed by a drop_reply_after fault
};

class fault_proxy {
public:
  // `upstream` is "host:port" or, when it starts with '/', a unix-socket path.
  // Throws std::runtime_error when the proxy cannot listen.
  explicit fault_proxy(std::string upstream);
  ~fault_proxy(); // closes every connection and joins every thread
  fault_proxy(const fault_proxy&) = delete;
  fault_proxy& operator=(const fault_proxy&) = delete;

  // A PostgreSQL cluster's unix socket: "<dir>/.s.PGSQL.<port>".
  static std::string postgres_socket(const std::string& dir, int port);

  int port() const;
  proxy_connections connections() const;
  proxy_traffic traffic() const;

  // Arms a one-shot fault: the next read from any client for which `trigger` is true
  // is forwarded upstream; then the connection forwards nothing more, the upstream's
  // reply is swallowed when it arrives (so the request has taken effect by then) and the
  // client is reset (RST). If the upstream closes without replying, the client is reset
  // too. The trigger runs on the proxy's threads under its lock: keep it quick.
  void drop_reply_after(fault_trigger trigger);
  void drop_after_commit() { drop_reply_after(contains_commit); }
  // How many armed faults have fired so far.
  std::uint64_t drops() const;
  // Whether the fault fired within `timeout` (drops() reached `n`).
  bool wait_for_drops(std::uint64_t n, std::chrono::milliseconds timeout) const;

  // Resets every open connection (RST to the client, upstream closed) and returns once
  // they are all closed. Connections accepted afterwards are served normally.
  void reset_all();
  // While stalled, connections are accepted and connected upstream, but no byte is read
  // or written either way; bytes already read stay queued. stall(false) resumes them.
  void stall(bool on);
  // Stalls the connections open now for the rest of their lives, as a network path that
  // died silently would (a NAT that dropped their state); new connections are served.
  void stall_open();
  // While refusing, each new connection is reset as soon as it is accepted: the client's
  // connect succeeds (the kernel completes the handshake), its first read or write fails
  // with ECONNRESET. Not ECONNREFUSED: the listening socket stays open.
  void refuse(bool on);
  // Latency added before each chunk is forwarded, either way; zero turns it off.
  void delay(std::chrono::milliseconds d);

  // Whether connections().open drops to `n` or below within `timeout`.
  bool wait_for_open(std::uint64_t n, std::chrono::milliseconds timeout) const;
  // Whether `done(traffic())` holds within `timeout`. Bytes are counted once written to
  // the other side, which may be a moment after that side has read them.
  bool wait_for_traffic(const std::function<bool(const proxy_traffic&)>& done,
                        std::chrono::milliseconds timeout) const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace belay::test
