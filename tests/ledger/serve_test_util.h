// HTTP helpers for the `gpucost serve` tests: GET with a token or a CA, waiting for a status, and
// reading numbers out of an exposition.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "promsource/http_transport.h"

namespace gpucost::serve_test {

struct Response {
  int status = 0;
  std::string body;
};

// `ca_file`: verify an HTTPS server against this PEM bundle.
inline Response Get(const std::string& url, const std::string& token = "",
                    const std::string& ca_file = "") {
  promsource::HttpOptions options;
  options.request_timeout = std::chrono::seconds(20);
  options.ca_file = ca_file;
  auto transport = promsource::MakeCurlTransport(options);
  promsource::HttpRequest r;
  r.url = url;
  if (!token.empty()) r.headers.push_back({"Authorization", "Bearer " + token});
  const promsource::TransportResult res = transport->Send(r);
  if (!res.response) return {};
  return {static_cast<int>(res.response->status), res.response->body};
}

inline bool WaitFor(const std::string& url, int status, std::chrono::seconds limit,
                    const std::string& ca_file = "") {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (Get(url, "", ca_file).status == status) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// Sum of one metric's samples in an exposition.
inline double SumOf(const std::string& text, const std::string& name) {
  double sum = 0;
  size_t pos = 0;
  while ((pos = text.find("\n" + name + "{", pos)) != std::string::npos) {
    const size_t eol = text.find('\n', pos + 1);
    const size_t space = text.rfind(' ', eol);
    sum += std::stod(text.substr(space + 1, eol - space - 1));
    pos = eol;
  }
  return sum;
}

// The number after `name ` in an exposition; -1 when absent.
inline double ValueOf(const std::string& text, const std::string& name) {
  const size_t at = text.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + name.size() + 2));
}

// A TCP connection to 127.0.0.1:`port`; -1 when refused.
inline int ConnectLoopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace gpucost::serve_test
