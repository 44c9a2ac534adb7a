#include "core/listen_address.h"

#include <charconv>

#include "core/strings.h"

namespace gpucost {

Result<std::pair<std::string, int>> ParseListenAddress(const std::string& text,
                                                       std::string_view flag) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument(
        StrCat(flag, " ", text, ": want HOST:PORT, e.g. 127.0.0.1:9400"));
  }
  std::string host = text.substr(0, colon);
  if (host.empty()) host = "0.0.0.0";
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string_view p = std::string_view(text).substr(colon + 1);
  int port = -1;
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
  if (ec != std::errc() || end != p.data() + p.size() || port < 0 || port > 65535) {
    return Status::InvalidArgument(StrCat(flag, " ", text, ": bad port \"", p, "\""));
  }
  return std::make_pair(host, port);
}

bool IsLoopbackHost(std::string_view host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

}  // namespace gpucost
