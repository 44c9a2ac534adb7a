#include "billing/csv_reader.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "core/strings.h"

namespace gpucost::billing {
namespace {

constexpr char kBom[] = "\xEF\xBB\xBF";
constexpr unsigned kReadBytes = 1u << 20;

// zlib's gz* functions read gzip members one after another and pass input that does not start
// with the gzip magic through unchanged ("transparent" mode): detection by content, not name.
struct GzFile {
  gzFile file = nullptr;
  std::unique_ptr<char[]> buffer = std::make_unique<char[]>(kReadBytes);
  GzFile() = default;
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;
  ~GzFile() {
    if (file != nullptr) gzclose(file);
  }
};

}  // namespace

ChunkSource TextChunks(std::string_view text) {
  return [text, done = false]() mutable -> Result<std::string_view> {
    if (done) return std::string_view();
    done = true;
    return text;
  };
}

Result<ChunkSource> FileChunks(const std::string& path) {
  auto gz = std::make_shared<GzFile>();
  errno = 0;
  gz->file = gzopen(path.c_str(), "rb");
  if (gz->file == nullptr) {
    return Status::IoError(
        StrCat(path, ": cannot open: ", errno != 0 ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(gz->file, kReadBytes);
  return ChunkSource([gz, path]() -> Result<std::string_view> {
    const int got = gzread(gz->file, gz->buffer.get(), kReadBytes);
    int err = Z_OK;
    const char* message = gzerror(gz->file, &err);
    // A truncated gzip member shows as Z_BUF_ERROR once the data before the cut is returned.
    if (got < 0 || (err != Z_OK && err != Z_STREAM_END)) {
      return Status::IoError(StrCat(path, ": read failed: ",
                                    err == Z_ERRNO ? std::strerror(errno) : message));
    }
    return std::string_view(gz->buffer.get(), static_cast<size_t>(got));
  });
}

CsvReader::CsvReader(ChunkSource source, std::string source_name)
    : source_(std::move(source)), source_name_(std::move(source_name)) {}

Status CsvReader::Error(std::string_view what) const {
  return Status::ParseError(StrCat(source_name_, ":", record_line_, ": ", what));
}

void CsvReader::EndField() { field_ends_.push_back(record_.size()); }

Result<bool> CsvReader::Next(std::vector<std::string_view>& fields) {
  fields.clear();
  while (true) {  // one pass per record; blank lines are skipped
    record_.clear();
    field_ends_.clear();
    record_quoted_ = false;
    state_ = State::kFieldStart;
    record_line_ = line_;
    bool ended = false;  // the record ended with a line break (not at the end of input)
    bool any = false;    // the record has at least one byte, separator or quote
    int bom_matched = 0;
    while (!ended) {
      if (pos_ == chunk_.size()) {
        if (eof_) break;
        GPUCOST_ASSIGN_OR_RETURN(chunk_, source_());
        pos_ = 0;
        if (chunk_.empty()) eof_ = true;
        continue;
      }
      if (skip_lf_) {
        skip_lf_ = false;
        if (chunk_[pos_] == '\n') {
          ++pos_;
          continue;
        }
      }
      if (!started_) {
        if (chunk_[pos_] == kBom[bom_matched]) {
          ++pos_;
          if (++bom_matched == 3) started_ = true;
          continue;
        }
        started_ = true;
        if (bom_matched > 0) {  // EF or EF BB not followed by the rest: data after all
          record_.append(kBom, static_cast<size_t>(bom_matched));
          state_ = State::kUnquoted;
          any = true;
        }
      }
      const char* p = chunk_.data() + pos_;
      const char* const end = chunk_.data() + chunk_.size();
      switch (state_) {
        case State::kFieldStart:
          any = true;
          if (*p == '"') {
            state_ = State::kQuoted;
            record_quoted_ = true;
            ++p;
            break;
          }
          state_ = State::kUnquoted;
          [[fallthrough]];
        case State::kUnquoted: {
          const char* q = p;
          while (q < end && *q != ',' && *q != '\n' && *q != '\r') ++q;
          record_.append(p, q);
          p = q;
          if (p == end) break;
          EndField();
          if (*p == ',') {
            state_ = State::kFieldStart;
          } else {
            ++line_;
            skip_lf_ = *p == '\r';
            ended = true;
          }
          ++p;
          break;
        }
        case State::kQuoted: {
          const char* q = p;
          while (q < end && *q != '"') {
            if (*q == '\n') ++line_;
            ++q;
          }
          record_.append(p, q);
          p = q;
          if (p < end) {
            state_ = State::kQuoteInQuoted;
            ++p;
          }
          break;
        }
        case State::kQuoteInQuoted:
          if (*p == '"') {  // "" inside a quoted field is one quote
            record_.push_back('"');
            state_ = State::kQuoted;
          } else if (*p == ',') {
            EndField();
            state_ = State::kFieldStart;
          } else if (*p == '\n' || *p == '\r') {
            EndField();
            ++line_;
            skip_lf_ = *p == '\r';
            ended = true;
          } else {
            return Error(StrCat("field ", field_ends_.size() + 1,
                                ": text after the closing quote (quotes inside a field are doubled)"));
          }
          ++p;
          break;
      }
      pos_ = static_cast<size_t>(p - chunk_.data());
      if (record_.size() > kMaxRecordBytes) {
        return Error(StrCat("record longer than ", kMaxRecordBytes >> 20, " MiB"));
      }
    }
    if (!ended) {  // end of input
      if (!started_ && bom_matched > 0) {
        record_.append(kBom, static_cast<size_t>(bom_matched));
        state_ = State::kUnquoted;
        any = true;
      }
      if (state_ == State::kQuoted) {
        return Error(StrCat("field ", field_ends_.size() + 1, ": quoted field is never closed"));
      }
      if (!any) return false;
      EndField();
    }
    if (field_ends_.size() == 1 && field_ends_[0] == 0 && !record_quoted_) {
      if (!ended) return false;
      continue;  // blank line
    }
    size_t begin = 0;
    fields.reserve(field_ends_.size());
    for (const size_t e : field_ends_) {
      fields.emplace_back(record_.data() + begin, e - begin);
      begin = e;
    }
    return true;
  }
}

}  // namespace gpucost::billing
