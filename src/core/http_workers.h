// The worker threads of gpucost's HTTP servers (serve, the node agent). cpp-httplib runs each
// connection on a thread of its task queue until the client closes it or a timeout passes; its
// own ThreadPool has a fixed count of threads, so as many slow or idle clients as threads
// stopped every endpoint, /healthz included. HttpWorkers starts a thread for a connection when
// none is free, up to `max_threads`, and keeps it for the next; past that, connections wait in
// line. ServeHttpSafely sets it on a server with the timeouts that free a thread from a client
// that stalls (docs/serve.md, "Operating").
//
//   httplib::Server http;
//   int fd = -1;
//   ServeHttpSafely(http, kHttpMaxConnections, &fd);
//   http.bind_to_port(host, port);
//   WidenAcceptQueue(fd);
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpucost {

// Connections served at once: each a thread, with a stack reserved (not resident) for it.
inline constexpr size_t kHttpMaxConnections = 512;
// A request body's bytes kept before it is refused (no endpoint takes one).
inline constexpr size_t kHttpMaxPayload = 1024;

// Connections that wait for a thread, past which the accepting thread waits too: the rest wait
// in the kernel's accept queue, not as open descriptors of the process (a flood of connections
// took every descriptor serve may open, and its scrapes and ledger with them).
inline constexpr size_t kHttpMaxWaiting = 1024;

class HttpWorkers final : public httplib::TaskQueue {
 public:
  explicit HttpWorkers(size_t max_threads, size_t max_waiting = kHttpMaxWaiting)
      : max_threads_(max_threads), max_waiting_(max_waiting) {}
  ~HttpWorkers() override { shutdown(); }
  HttpWorkers(const HttpWorkers&) = delete;
  HttpWorkers& operator=(const HttpWorkers&) = delete;

  // Waits while `max_waiting` connections wait for a thread (`on_full`, for tests, is called
  // when it starts to wait).
  void enqueue(std::function<void()> fn) override;
  // Runs what is queued, then joins every thread.
  void shutdown() override;

  size_t threads() const;
  std::function<void()> on_full = nullptr;

 private:
  void Work();

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable room_;  // a waiting connection was taken
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  size_t max_threads_;
  size_t max_waiting_;
  bool stopping_ = false;
};

// Sets HttpWorkers of `max_connections` on `server`, and its timeouts: 5 s to read or write
// (each call). One request a connection: cpp-httplib 0.11 leaves a GET's body unread and would
// read it as the next request on the connection (a proxy that reuses connections would then hand
// one client another's answer); closing after each answer leaves nothing to misread. No endpoint
// of gpucost's takes a request body: one is refused with 413, unread (a body was held in memory
// whole: a client's Content-Length in RSS). Answers are never Brotli: the library's is at its
// slowest level (70 times gzip's time); a client that accepts gzip too gets gzip. `listen_fd` gets
// the listening socket once the server binds: pass it to WidenAcceptQueue then.
void ServeHttpSafely(httplib::Server& server, size_t max_connections, int* listen_fd);

// The listening socket's options: SO_REUSEADDR only. cpp-httplib's default sets SO_REUSEPORT,
// with which a second server binds a port one already listens on and the kernel shares the
// connections between them (two serves on one port answered from either ledger by turns); without
// it, the second is refused ("cannot listen on"), and a restart still binds at once.
void ExclusivePortSocketOptions(int sock);

// cpp-httplib listens with an accept queue of 5: a burst of connections (or the same beside
// busy workers) overflowed it, and each overflow cost a client a 1 s SYN retry. Listening again
// raises the queue to the system's limit.
void WidenAcceptQueue(int listen_fd);

}  // namespace gpucost
