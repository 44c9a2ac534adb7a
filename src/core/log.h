// Minimal leveled logging to stderr. Messages must never contain secrets (tokens, passwords):
// callers show URIs through RedactUri (core/redact.h), and each line passes RedactUris once more
// before it is written. Thread-safe (one write per message).
#pragma once

#include <string_view>

namespace gpucost {

enum class LogLevel { kDebug = 0, kInfo, kWarn, kError };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
void Log(LogLevel level, std::string_view message);

inline void LogInfo(std::string_view m) { Log(LogLevel::kInfo, m); }
inline void LogWarn(std::string_view m) { Log(LogLevel::kWarn, m); }
inline void LogError(std::string_view m) { Log(LogLevel::kError, m); }

}  // namespace gpucost
