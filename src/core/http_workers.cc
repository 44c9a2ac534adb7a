#include "core/http_workers.h"

#include <sys/socket.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "core/strings.h"

namespace gpucost {

void HttpWorkers::enqueue(std::function<void()> fn) {
  std::unique_lock<std::mutex> lock(mu_);
  if (stopping_) return;
  if (jobs_.size() >= max_waiting_) {
    if (on_full) on_full();
    room_.wait(lock, [this] { return stopping_ || jobs_.size() < max_waiting_; });
    if (stopping_) return;  // as any connection that comes while the server stops
  }
  jobs_.push_back(std::move(fn));
  // A thread for each connection beyond those waiting for one.
  if (idle_ < jobs_.size() && threads_.size() < max_threads_) {
    threads_.emplace_back([this] { Work(); });
  } else {
    wake_.notify_one();
  }
}

void HttpWorkers::shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    threads.swap(threads_);
  }
  wake_.notify_all();
  room_.notify_all();
  for (std::thread& t : threads) t.join();
}

size_t HttpWorkers::threads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return threads_.size();
}

void HttpWorkers::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ++idle_;
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    --idle_;
    if (jobs_.empty()) return;  // stopping, nothing left
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    room_.notify_one();
    lock.unlock();
    job();
    lock.lock();
  }
}

namespace {

// cpp-httplib answers Brotli first to any client that accepts it (every browser), at Brotli's
// slowest level: 7.1 s for a 5 MB JSON report that gzip sends in 0.10 s at 1.5x its size. The
// library reads Accept-Encoding from this request after routing, so a client that also accepts
// gzip gets gzip; one that accepts only br gets the answer uncompressed.
void AnswerWithoutBrotli(const httplib::Request& req) {
  // Every Accept-Encoding header, as one list.
  std::string all;
  const auto [first, last] = req.headers.equal_range("Accept-Encoding");
  for (auto it = first; it != last; ++it) all += (all.empty() ? "" : ",") + it->second;
  if (all.find("br") == std::string::npos) return;
  // The codings kept: br never, nor one the client refused (q=0), which the library, finding
  // its name anywhere in the header, would otherwise choose.
  std::string kept;
  for (const std::string_view part : Split(all, ',')) {
    const std::string_view coding = Trim(part);
    const std::string_view name = Trim(coding.substr(0, coding.find(';')));
    std::string params(coding.substr(std::min(coding.size(), name.size())));
    std::erase_if(params, [](char c) { return c == ' ' || c == '\t'; });
    const bool refused =
        params.starts_with(";q=0") && params.find_first_not_of("0.", 4) == std::string::npos;
    if (name.empty() || name == "br" || refused) continue;
    if (!kept.empty()) kept += ", ";
    kept += coding;
  }
  // The request is the server's own (non-const) object, handed to the handlers as const.
  auto& headers = const_cast<httplib::Headers&>(req.headers);
  headers.erase("Accept-Encoding");
  headers.emplace("Accept-Encoding", kept);
}

}  // namespace

void ExclusivePortSocketOptions(int sock) {
  int yes = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

void ServeHttpSafely(httplib::Server& server, size_t max_connections, int* listen_fd) {
  server.new_task_queue = [max_connections] { return new HttpWorkers(max_connections); };
  server.set_socket_options([listen_fd](socket_t sock) {
    ExclusivePortSocketOptions(sock);
    *listen_fd = sock;
  });
  // A POST's body is read before any handler runs: past this it is skipped, not kept (413).
  server.set_payload_max_length(kHttpMaxPayload);
  server.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    AnswerWithoutBrotli(req);
    // Whole answers only: the library builds every range a client asks for in memory, and 2,700
    // ranges of one file ("bytes=0-,0-,...", 8 KB of header) were a 222 MB answer.
    const_cast<httplib::Request&>(req).ranges.clear();
    const std::string length = req.get_header_value("Content-Length");
    if ((length.empty() || length == "0") && !req.has_header("Transfer-Encoding")) {
      if (req.method == "GET" || req.method == "HEAD") {
        return httplib::Server::HandlerResponse::Unhandled;
      }
      // Before the library reads a body: a POST without a length was read until the client
      // closed, all of it kept.
      res.status = 405;
      res.set_header("Allow", "GET, HEAD");
      res.set_content(StrCat("{\"error\":\"", req.method.size() <= 16 ? req.method : "this method",
                             " is not answered here: every endpoint is GET\"}"),
                      "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }
    res.status = 413;
    res.set_content("{\"error\":\"this server takes no request body\"}", "application/json");
    return httplib::Server::HandlerResponse::Handled;
  });
  server.set_read_timeout(5, 0);
  server.set_write_timeout(5, 0);
  server.set_keep_alive_timeout(5);
  server.set_keep_alive_max_count(1);
}

void WidenAcceptQueue(int listen_fd) {
  if (listen_fd >= 0) ::listen(listen_fd, SOMAXCONN);
}

}  // namespace gpucost
