#include "scrape/gzip_member.h"

#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "core/strings.h"

namespace gpucost::scrape {

Result<std::string> GzipMember(std::string_view text, int level) {
  // zlib counts in 32 bits; a scrape is at most 64 MiB before its labels are added.
  if (text.size() >= (size_t{1} << 31)) {
    return Status::InvalidArgument(StrCat("a scrape of ", text.size(), " bytes is too large"));
  }
  z_stream zs{};
  // 15 + 16: a 32 KiB window with a gzip header and trailer; memLevel 9: zlib's fastest tables.
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("cannot initialise zlib's deflate");
  }
  // deflateBound: room for all of it, so one Z_FINISH call compresses it whole.
  std::string out(deflateBound(&zs, static_cast<uLong>(text.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::Internal(StrCat("deflate failed (", rc, ")"));
  return out;
}

Result<uint64_t> WholeMembersLength(int fd, const std::string& path) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return Status::Internal("cannot initialise zlib");
  std::unique_ptr<z_stream, int (*)(z_stream*)> end(&zs, inflateEnd);
  std::vector<Bytef> in(256 << 10);
  std::vector<Bytef> out(256 << 10);  // what the members hold: read and dropped
  uint64_t offset = 0;                // of the next byte to read
  uint64_t whole = 0;                 // end of the last whole member
  while (true) {
    if (zs.avail_in == 0) {
      const ssize_t got = ::pread(fd, in.data(), in.size(), static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return Status::IoError(StrCat("cannot read ", path, ": ", std::strerror(errno)));
      if (got == 0) return whole;  // the end: inside a member, or right after one
      zs.next_in = in.data();
      zs.avail_in = static_cast<uInt>(got);
      offset += static_cast<uint64_t>(got);
    }
    zs.next_out = out.data();
    zs.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      whole = offset - zs.avail_in;
      if (inflateReset(&zs) != Z_OK) return Status::Internal("zlib reset failed");
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return whole;  // not gzip from here on (damage, zeros): only the members before count
    }
  }
}

}  // namespace gpucost::scrape
