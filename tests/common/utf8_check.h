// A UTF-8 check for the tests that owes nothing to core/utf8.h, which they test: the JSON
// library's strict serializer, which throws on any ill-formed byte sequence.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gpucost::testing_util {

inline bool IsUtf8(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

}  // namespace gpucost::testing_util
