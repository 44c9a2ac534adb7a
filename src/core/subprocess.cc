#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>

#include "core/strings.h"

extern char** environ;

namespace gpucost {
namespace {

constexpr size_t kMaxErrorChars = 2000;

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

std::string Quoted(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

std::string Tail(std::string_view s) {
  s = Trim(s);
  if (s.size() > kMaxErrorChars) s = s.substr(s.size() - kMaxErrorChars);
  return std::string(s);
}

std::string_view VarName(std::string_view assignment) {
  return assignment.substr(0, assignment.find('='));
}

// This process's environment with the overrides applied ("NAME=value" sets, "NAME" removes).
std::vector<std::string> ChildEnvironment(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view var(*e);
    bool overridden = false;
    for (const std::string& o : overrides) {
      if (VarName(var) == VarName(o)) overridden = true;
    }
    if (!overridden) env.emplace_back(var);
  }
  for (const std::string& o : overrides) {
    if (o.find('=') != std::string::npos) env.push_back(o);
  }
  return env;
}

std::string WithStderr(std::string message, const std::string& err) {
  if (!Trim(err).empty()) message += StrCat(": ", Tail(err));
  return message;
}

}  // namespace

Result<CommandOutput> RunCommand(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env_overrides,
                                 const CommandOptions& options) {
  if (argv.empty() || argv[0].empty()) return Status::InvalidArgument("no command to run");
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0)
    return Status::IoError(StrCat("pipe: ", std::strerror(errno)));
  Fd out_r{out_pipe[0]}, out_w{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0)
    return Status::IoError(StrCat("pipe: ", std::strerror(errno)));
  Fd err_r{err_pipe[0]}, err_w{err_pipe[1]};

  std::vector<std::string> env_strings = ChildEnvironment(env_overrides);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);

  const bool limited = options.timeout > Duration::zero();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!options.inherit_stdin) {
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_w.fd, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (limited) {
    // Its own process group, so a timeout also ends what the child started.
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = -1;
  const int rc =
      argv[0].find('/') == std::string::npos
          ? ::posix_spawnp(&pid, argv[0].c_str(), &actions, &attr, argp.data(), envp.data())
          : ::posix_spawn(&pid, argv[0].c_str(), &actions, &attr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    std::string message = StrCat("cannot run ", argv[0], ": ", std::strerror(rc));
    if (rc == ENOENT) return Status::NotFound(std::move(message));
    return Status::Unavailable(std::move(message));
  }
  out_w.Close();
  err_w.Close();

  // The child runs in real time, so the limit is measured on the monotonic clock.
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  bool timed_out = false;
  CommandOutput result;
  pollfd fds[2] = {{out_r.fd, POLLIN, 0}, {err_r.fd, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    int wait_ms = -1;
    if (limited) {
      const auto left =
          std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        ::kill(-pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(left.count());
    }
    const int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Status::IoError(StrCat("waitpid: ", std::strerror(errno)));
  }
  if (timed_out) {
    return Status::Unavailable(
        WithStderr(StrCat(Quoted(argv), " did not finish within ", FormatDuration(options.timeout)),
                   result.err));
  }
  if (WIFSIGNALED(status)) {
    return Status::Unavailable(
        WithStderr(StrCat(Quoted(argv), " was killed by signal ", WTERMSIG(status)), result.err));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::Unavailable(
        WithStderr(StrCat(Quoted(argv), " exited with status ", WEXITSTATUS(status)), result.err));
  }
  return result;
}

}  // namespace gpucost
