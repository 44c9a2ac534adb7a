// "HOST:PORT" as a server's listen flag takes it: an empty host is 0.0.0.0, an IPv6 host may
// be bracketed, port 0 means "any free port". Pure.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "core/result.h"

namespace gpucost {

// `flag` names the option in errors ("--listen 127.0.0.1: bad port \"\"").
Result<std::pair<std::string, int>> ParseListenAddress(const std::string& text,
                                                       std::string_view flag = "--listen");

// Whether a listen host reaches this machine only: 127.0.0.0/8, ::1, localhost.
bool IsLoopbackHost(std::string_view host);

}  // namespace gpucost
