#include "core/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/strings.h"

namespace gpucost {

Result<std::string> ReadWholeFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(StrCat("cannot read ", path, ": ", std::strerror(errno)));
  std::string out;
  char buf[16384];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      const int err = errno;
      ::close(fd);
      return Status::IoError(StrCat("cannot read ", path, ": ", std::strerror(err)));
    }
  }
  ::close(fd);
  return out;
}

}  // namespace gpucost
