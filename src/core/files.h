// Reading whole files, with errors that name the path and the system's reason. Stateless;
// thread-safe.
#pragma once

#include <string>

#include "core/result.h"

namespace gpucost {

// The file's bytes; the error says "cannot read PATH: <strerror>". Retries interrupted reads.
Result<std::string> ReadWholeFile(const std::string& path);

}  // namespace gpucost
