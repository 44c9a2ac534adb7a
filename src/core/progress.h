// ProgressLine: one line on a terminal's stderr that says how far a long command is: bytes read
// or time covered, of how much, the rate and the time left ("report: reading 12.3MiB of 48.0MiB
// (25%), 4.1MiB/s, 9s left"). It redraws in place, at most every `min_interval` (10 a second by
// default), and clears itself when done, so nothing of it stays in what the terminal shows after.
// A disabled line writes nothing: pipes, files and captured output never see one. Time comes
// from an injected Clock (tests move it by hand). Thread-compatible: one thread updates a line;
// log messages from any thread clear it first (WriteBesideProgress).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "core/time.h"

namespace gpucost {

enum class ProgressUnit : uint8_t {
  kBytes,  // done and total are bytes
  kTime,   // done and total are milliseconds of data covered (a window)
  kGpus,   // done and total are GPUs attributed (the engine walks one physical GPU at a time)
};

// Whether a command draws progress lines: `forced` (--progress or --no-progress) when given,
// else whether `fd` (stderr) is a terminal.
bool ProgressWanted(std::optional<bool> forced, int fd);

// What a command's --progress / --no-progress said (cli/progress_flags.h registers them).
struct ProgressFlags {
  bool on = false;          // --progress
  bool off = false;         // --no-progress
  bool registered = false;  // the flags were registered: a command without them draws nothing
  std::optional<bool> forced() const {
    if (on) return true;
    if (off) return false;
    return std::nullopt;
  }
  // Whether to draw: never for a command without the flags (serve), else the flag given, else
  // whether stderr is a terminal.
  bool wanted() const;
};

// Runs `write` (which writes a message to stderr) with the progress line a terminal shows now
// cleared first, so that a message never lands at the end of a progress line; the line redraws
// at its next update. Log (core/log.h) writes every message through it. Thread-safe: a line's
// draws and these writes take turns.
void WriteBesideProgress(const std::function<void()>& write);

class ProgressLine {
 public:
  ProgressLine(std::string label, ProgressUnit unit, int64_t total, const Clock& clock,
               std::ostream& out, bool enabled,
               Duration min_interval = std::chrono::milliseconds(100));
  ~ProgressLine() { Finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Sets how much is done (clamped to [0, total] when the total is known); redraws when the last
  // draw is `min_interval` old.
  void Set(int64_t done);
  void Add(int64_t delta) { Set(done_ + delta); }
  // Clears the line if anything was drawn; later calls draw nothing.
  void Finish();
  // What the line says before its figures ("gpucost: segment 3"); shown from the next draw.
  void SetLabel(std::string label) { label_ = std::move(label); }

  // The text a draw shows at `elapsed` since the line began (no carriage return, no escape).
  std::string Text(Duration elapsed) const;
  int64_t draws() const { return draws_; }

 private:
  std::string label_;
  ProgressUnit unit_;
  int64_t total_;
  const Clock& clock_;
  std::ostream& out_;
  bool enabled_;
  Duration min_interval_;
  Instant start_;
  std::optional<Instant> last_draw_;
  int64_t done_ = 0;
  int64_t draws_ = 0;
  size_t drawn_width_ = 0;
  bool finished_ = false;

  friend void WriteBesideProgress(const std::function<void()>& write);
};

}  // namespace gpucost
