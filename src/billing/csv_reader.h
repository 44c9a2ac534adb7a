// Streaming RFC 4180 CSV reader: pulls its input in chunks from a ChunkSource and returns one
// record at a time, so memory is one chunk plus the longest record. Handles quoted fields with
// commas, quotes ("") and line breaks, a UTF-8 byte-order mark, CRLF or LF line ends and blank
// lines (skipped). Reports the physical line each record starts on. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace gpucost::billing {

// Returns the next piece of input; an empty view at the end. A returned view must stay valid
// until the next call.
using ChunkSource = std::function<Result<std::string_view>()>;

// A ChunkSource over text held by the caller: all of it at once, then the end.
ChunkSource TextChunks(std::string_view text);

// A ChunkSource over a file, plain or gzip (several members too), told apart by the gzip magic
// bytes and not by the name. Fails when the file cannot be opened.
Result<ChunkSource> FileChunks(const std::string& path);

class CsvReader {
 public:
  // A record longer than this is an error, so a file without line ends cannot exhaust memory.
  static constexpr size_t kMaxRecordBytes = size_t{64} << 20;

  CsvReader(ChunkSource source, std::string source_name);

  // Reads the next non-blank record into `fields` (views valid until the next call). Returns
  // false at the end of input; a ParseError "<source>:<line>: ..." for an unterminated quote,
  // text after a closing quote or an over-long record.
  Result<bool> Next(std::vector<std::string_view>& fields);

  // Line (1-based) the record last returned by Next() starts on.
  int64_t line() const { return record_line_; }
  const std::string& source_name() const { return source_name_; }

 private:
  enum class State { kFieldStart, kUnquoted, kQuoted, kQuoteInQuoted };

  Status Error(std::string_view what) const;
  void EndField();

  ChunkSource source_;
  std::string source_name_;
  std::string_view chunk_;
  size_t pos_ = 0;
  bool eof_ = false;
  bool started_ = false;   // the byte-order mark check has been done
  bool skip_lf_ = false;   // last record ended with CR: a following LF belongs to it
  int64_t line_ = 1;       // line of the next byte
  int64_t record_line_ = 0;

  State state_ = State::kFieldStart;
  std::string record_;             // unescaped bytes of the current record's fields
  std::vector<size_t> field_ends_; // end offset of each field in record_
  bool record_quoted_ = false;     // some field of the record was quoted (so it is not blank)
};

}  // namespace gpucost::billing
