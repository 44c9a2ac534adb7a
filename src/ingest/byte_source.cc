// ByteSource implementations: a file descriptor (file or stdin), an in-memory string, and gzip and
// zstd decoders layered on either. OpenByteSource sniffs their magic bytes, so callers never need
// to know how a file was compressed.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

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

// Decompresses zstd data, including several frames one after another (`cat a.zst b.zst`, and the
// scrape spool's appends, docs/serve.md). As for gzip: data that ends inside a frame or is damaged
// (a failed checksum) after the frames before it is a ParseError once what came before is
// returned; a failing read is an IoError.
class ZstdSource final : public ByteSource {
 public:
  explicit ZstdSource(std::unique_ptr<ByteSource> inner)
      : inner_(std::move(inner)), buf_(ZSTD_DStreamInSize()), ds_(ZSTD_createDStream()) {}
  ~ZstdSource() override { ZSTD_freeDStream(ds_); }
  ZstdSource(const ZstdSource&) = delete;
  ZstdSource& operator=(const ZstdSource&) = delete;

  Result<size_t> Read(char* buf, size_t n) override {
    if (ds_ == nullptr) return Status::Internal(StrCat(name(), ": cannot initialise zstd"));
    if (!cut_.empty()) return Status::ParseError(cut_);
    ZSTD_outBuffer out{buf, n, 0};
    while (out.pos == 0 && !done_ && cut_.empty()) {
      if (in_.pos == in_.size && !eof_) {
        GPUCOST_ASSIGN_OR_RETURN(size_t got, inner_->Read(buf_.data(), buf_.size()));
        if (got == 0) {
          eof_ = true;
        } else {
          in_ = ZSTD_inBuffer{buf_.data(), got, 0};
          read_ += got;
        }
      }
      const size_t consumed_before = in_.pos;
      const size_t rc = ZSTD_decompressStream(ds_, &out, &in_);
      if (ZSTD_isError(rc)) {
        cut_ = StrCat("zstd data is damaged at byte ", read_ - (in_.size - in_.pos), " (",
                      ZSTD_getErrorName(rc), "), after ", frames_,
                      " whole frames; the rest of the file is skipped");
        break;
      }
      const bool consumed = in_.pos != consumed_before;
      if (rc == 0) {  // a frame ends here (a call stops at its end), all of it returned
        if (in_frame_ || consumed) ++frames_;
        in_frame_ = false;
      } else if (consumed) {
        in_frame_ = true;
      }
      if (eof_ && in_.pos == in_.size && out.pos == 0) {
        if (in_frame_) {
          cut_ = StrCat("zstd data ends inside a frame, after ", frames_,
                        " whole ones (a write cut short); the rest of that frame is skipped");
        }
        done_ = true;
      }
    }
    if (out.pos == 0 && !cut_.empty()) return Status::ParseError(cut_);
    return out.pos;
  }
  const std::string& name() const override { return inner_->name(); }

 private:
  std::unique_ptr<ByteSource> inner_;
  std::vector<char> buf_;
  ZSTD_DStream* ds_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  bool eof_ = false;
  bool in_frame_ = false;
  bool done_ = false;
  uint64_t read_ = 0;    // bytes read from `inner_`
  uint64_t frames_ = 0;  // whole frames decompressed
  std::string cut_;      // why the data stops early, once it does
};

}  // namespace

std::unique_ptr<ByteSource> StringByteSource(std::string data, std::string name) {
  return std::make_unique<StringSource>(std::move(data), std::move(name));
}

Result<std::unique_ptr<ByteSource>> MaybeDecompress(std::unique_ptr<ByteSource> raw) {
  // Peek at up to four bytes; short reads (pipes) are retried until end of input.
  std::string head;
  char b[4];
  while (head.size() < 4) {
    GPUCOST_ASSIGN_OR_RETURN(size_t got, raw->Read(b, 4 - head.size()));
    if (got == 0) break;
    head.append(b, got);
  }
  const auto byte = [&head](size_t i) { return static_cast<unsigned char>(head[i]); };
  const bool gzip = head.size() >= 2 && byte(0) == 0x1f && byte(1) == 0x8b;
  const bool zstd = head.size() == 4 && byte(0) == 0x28 && byte(1) == 0xb5 && byte(2) == 0x2f &&
                    byte(3) == 0xfd;  // ZSTD_MAGICNUMBER, little-endian
  std::unique_ptr<ByteSource> src = std::make_unique<PrefixedSource>(std::move(head), std::move(raw));
  if (gzip) src = std::make_unique<GzipSource>(std::move(src));
  if (zstd) src = std::make_unique<ZstdSource>(std::move(src));
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
  return MaybeDecompress(std::move(raw));
}

}  // namespace gpucost
