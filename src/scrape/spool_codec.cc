#include "scrape/spool_codec.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "core/strings.h"

namespace gpucost::scrape {
namespace {

constexpr int kWindowLog = 24;  // 16 MiB

struct CctxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

Status ZstdError(std::string_view what, size_t rc) {
  return Status::Internal(StrCat("zstd ", what, ": ", ZSTD_getErrorName(rc)));
}

}  // namespace

Result<std::string> ZstdFrame(std::string_view text, int level) {
  std::unique_ptr<ZSTD_CCtx, CctxFree> cctx(ZSTD_createCCtx());
  if (!cctx) return Status::Internal("cannot create a zstd context");
  for (const auto& [param, value] :
       {std::pair{ZSTD_c_compressionLevel, level}, std::pair{ZSTD_c_windowLog, kWindowLog},
        std::pair{ZSTD_c_checksumFlag, 1}}) {
    if (const size_t rc = ZSTD_CCtx_setParameter(cctx.get(), param, value); ZSTD_isError(rc)) {
      return ZstdError("setting a parameter", rc);
    }
  }
  // ZSTD_compressBound: room for all of it, so one call compresses it whole.
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), text.data(), text.size());
  if (ZSTD_isError(n)) return ZstdError("compression failed", n);
  out.resize(n);
  return out;
}

Result<uint64_t> WholeFramesLength(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return Status::IoError(StrCat("cannot stat ", path, ": ", std::strerror(errno)));
  }
  // A spool file holds one minute of one target's scrapes: read whole.
  std::string data(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < data.size()) {
    const ssize_t n = ::pread(fd, data.data() + got, data.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError(StrCat("cannot read ", path, ": ", std::strerror(errno)));
    if (n == 0) break;  // shorter than it was a moment ago
    got += static_cast<size_t>(n);
  }
  uint64_t whole = 0;
  while (whole < got) {
    const size_t frame = ZSTD_findFrameCompressedSize(data.data() + whole, got - whole);
    if (ZSTD_isError(frame)) break;  // torn, or not zstd from here on (damage, zeros)
    whole += frame;
  }
  return whole;
}

}  // namespace gpucost::scrape
