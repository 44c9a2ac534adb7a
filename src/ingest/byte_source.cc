// ByteSource implementations: a file descriptor (file or stdin), an in-memory string, and a gzip
// decoder layered on either. OpenByteSource sniffs the gzip magic bytes, so callers never need to
// know how a file was compressed.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/strings.h"
#include "ingest/exposition.h"

namespace gpucost {
namespace {

class FdByteSource final : public ByteSource {
 public:
  FdByteSource(int fd, bool owned, std::string name) : fd_(fd), owned_(owned), name_(std::move(name)) {}
  ~FdByteSource() override {
    if (owned_) ::close(fd_);
  }
  FdByteSource(const FdByteSource&) = delete;
  FdByteSource& operator=(const FdByteSource&) = delete;

  Result<size_t> Read(char* buf, size_t n) override {
    while (true) {
      const ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno == EINTR) continue;
      return Status::IoError(StrCat(name_, ": read failed: ", std::strerror(errno)));
    }
  }
  const std::string& name() const override { return name_; }

 private:
  int fd_;
  bool owned_;
  std::string name_;
};

class StringSource final : public ByteSource {
 public:
  StringSource(std::string data, std::string name) : data_(std::move(data)), name_(std::move(name)) {}
  Result<size_t> Read(char* buf, size_t n) override {
    const size_t k = std::min(n, data_.size() - pos_);
    std::memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }

 private:
  std::string data_;
  size_t pos_ = 0;
  std::string name_;
};

// Returns the bytes already peeked at before reading from the inner source again.
class PrefixedSource final : public ByteSource {
 public:
  PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> inner)
      : prefix_(std::move(prefix)), inner_(std::move(inner)) {}
  Result<size_t> Read(char* buf, size_t n) override {
    if (pos_ < prefix_.size()) {
      const size_t k = std::min(n, prefix_.size() - pos_);
      std::memcpy(buf, prefix_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return inner_->Read(buf, n);
  }
  const std::string& name() const override { return inner_->name(); }

 private:
  std::string prefix_;
  size_t pos_ = 0;
  std::unique_ptr<ByteSource> inner_;
};

// Inflates gzip data, including several gzip members written one after another (what
// `cat a.gz b.gz` and pigz produce, and the scrape spool's appends). Data that ends inside a
// member (a write cut short: the spool's torn last append) or that is damaged after the members
// before it is a ParseError once what came before is returned: the parser reports it as an
// issue of that file and keeps what it read (docs/inputs.md); a failing read is an IoError.
class GzipSource final : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)), in_(kInBytes) {
    std::memset(&zs_, 0, sizeof(zs_));
    ok_ = inflateInit2(&zs_, 15 + 16) == Z_OK;  // 15 + 16: zlib window, gzip header only
  }
  ~GzipSource() override { inflateEnd(&zs_); }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  Result<size_t> Read(char* buf, size_t n) override {
    if (!ok_) return Status::Internal(StrCat(name(), ": cannot initialise zlib"));
    if (!cut_.empty()) return Status::ParseError(cut_);
    zs_.next_out = reinterpret_cast<Bytef*>(buf);
    zs_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    const uInt want = zs_.avail_out;
    while (zs_.avail_out == want && !done_ && cut_.empty()) {
      if (zs_.avail_in == 0) {
        GPUCOST_ASSIGN_OR_RETURN(size_t got, inner_->Read(reinterpret_cast<char*>(in_.data()), in_.size()));
        if (got == 0) {
          if (in_member_) {
            cut_ = StrCat("gzip data ends inside a member, after ", members_,
                          " whole ones (a write cut short); the rest of that member is skipped");
          }
          done_ = true;
          break;
        }
        zs_.next_in = in_.data();
        zs_.avail_in = static_cast<uInt>(got);
        read_ += got;
      }
      in_member_ = true;
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        ++members_;
        if (inflateReset(&zs_) != Z_OK) return Status::Internal(StrCat(name(), ": zlib reset failed"));
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        cut_ = StrCat("gzip data is damaged at byte ", read_ - zs_.avail_in, " (",
                      zs_.msg ? zs_.msg : "error", "), after ", members_,
                      " whole members; the rest of the file is skipped");
      }
    }
    const size_t produced = want - zs_.avail_out;
    if (produced == 0 && !cut_.empty()) return Status::ParseError(cut_);
    return produced;
  }
  const std::string& name() const override { return inner_->name(); }

 private:
  static constexpr size_t kInBytes = 256 << 10;
  std::unique_ptr<ByteSource> inner_;
  std::vector<Bytef> in_;
  z_stream zs_;
  bool ok_ = false;
  bool in_member_ = false;
  bool done_ = false;
  uint64_t read_ = 0;     // bytes read from `inner_`
  uint64_t members_ = 0;  // whole members inflated
  std::string cut_;       // why the data stops early, once it does
};

}  // namespace

std::unique_ptr<ByteSource> StringByteSource(std::string data, std::string name) {
  return std::make_unique<StringSource>(std::move(data), std::move(name));
}

Result<std::unique_ptr<ByteSource>> MaybeGunzip(std::unique_ptr<ByteSource> raw) {
  // Peek at up to two bytes; short reads (pipes) are retried until end of input.
  std::string head;
  char b[2];
  while (head.size() < 2) {
    GPUCOST_ASSIGN_OR_RETURN(size_t got, raw->Read(b, 2 - head.size()));
    if (got == 0) break;
    head.append(b, got);
  }
  const bool gzip = head.size() == 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
                    static_cast<unsigned char>(head[1]) == 0x8b;
  std::unique_ptr<ByteSource> src = std::make_unique<PrefixedSource>(std::move(head), std::move(raw));
  if (gzip) src = std::make_unique<GzipSource>(std::move(src));
  return src;
}

Result<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path) {
  std::unique_ptr<ByteSource> raw;
  if (path == "-") {
    raw = std::make_unique<FdByteSource>(STDIN_FILENO, false, "<stdin>");
  } else {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::IoError(StrCat(path, ": cannot open: ", std::strerror(errno)));
    raw = std::make_unique<FdByteSource>(fd, true, path);
  }
  return MaybeGunzip(std::move(raw));
}

}  // namespace gpucost
