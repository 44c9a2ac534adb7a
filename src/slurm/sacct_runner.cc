#include "slurm/sacct_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/strings.h"
#include "slurm/local_time.h"

extern char** environ;

namespace gpucost::slurm {
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

}  // namespace

std::vector<std::string> SacctFields() {
  return {"JobID", "JobIDRaw", "Cluster", "User",  "Account",  "Partition", "QOS",    "JobName",
          "AllocTRES", "Start", "End",   "Elapsed", "State", "NodeList", "NTasks", "TRESUsageInTot"};
}

Result<std::string> TzForSetting(const std::string& time_zone) {
  GPUCOST_ASSIGN_OR_RETURN(LocalTimeZone tz, LocalTimeZone::Make(time_zone));
  const std::string& name = tz.name();
  if (name == "local") return std::string();
  if (name == "UTC") return std::string("UTC0");
  if (name.front() == '+' || name.front() == '-') {
    // POSIX TZ offsets count west of UTC: "+02:00" is "<+0200>-02:00". The setting was
    // validated by LocalTimeZone::Make: "+H", "+HH", "+HHMM" or "+HH:MM".
    std::string digits;
    for (char c : std::string_view(name).substr(1)) {
      if (c != ':') digits += c;
    }
    if (digits.size() <= 2) digits += "00";
    if (digits.size() == 3) digits.insert(digits.begin(), '0');
    const std::string hh = digits.substr(0, 2), mm = digits.substr(2, 2);
    return StrCat("<", name.front(), hh, mm, ">", name.front() == '+' ? "-" : "+", hh, ":", mm);
  }
  return name;
}

Result<std::vector<std::string>> SacctArgv(const SacctRunOptions& options) {
  if (options.window.empty()) return Status::InvalidArgument("sacct needs a non-empty window");
  GPUCOST_ASSIGN_OR_RETURN(LocalTimeZone tz, LocalTimeZone::Make(options.time_zone));
  GPUCOST_ASSIGN_OR_RETURN(std::string start, tz.Format(options.window.start));
  GPUCOST_ASSIGN_OR_RETURN(std::string end, tz.Format(options.window.end));
  std::vector<std::string> argv = {options.binary,  "--parsable2", "--noheader", "--allusers",
                                   "--noconvert",   StrCat("--starttime=", start),
                                   StrCat("--endtime=", end),
                                   StrCat("--format=", Join(SacctFields(), ","))};
  if (!options.clusters.empty()) argv.push_back(StrCat("--clusters=", Join(options.clusters, ",")));
  return argv;
}

Result<CommandOutput> RunCommand(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env_overrides) {
  if (argv.empty() || argv[0].empty()) return Status::InvalidArgument("no command to run");
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return Status::IoError(StrCat("pipe: ", std::strerror(errno)));
  Fd out_r{out_pipe[0]}, out_w{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return Status::IoError(StrCat("pipe: ", std::strerror(errno)));
  Fd err_r{err_pipe[0]}, err_w{err_pipe[1]};

  // Environment: this process's, with the overrides replacing variables of the same name.
  std::vector<std::string> env_strings;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view var(*e);
    bool replaced = false;
    for (const std::string& o : env_overrides) {
      const size_t eq = o.find('=');
      if (var.substr(0, var.find('=')) == std::string_view(o).substr(0, eq)) replaced = true;
    }
    if (!replaced) env_strings.emplace_back(var);
  }
  for (const std::string& o : env_overrides) env_strings.push_back(o);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_w.fd, STDERR_FILENO);
  pid_t pid = -1;
  const int rc = argv[0].find('/') == std::string::npos
                     ? ::posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, argp.data(), envp.data())
                     : ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    return Status::Unavailable(StrCat("cannot run ", argv[0], ": ", std::strerror(rc)));
  }
  out_w.Close();
  err_w.Close();

  CommandOutput result;
  pollfd fds[2] = {{out_r.fd, POLLIN, 0}, {err_r.fd, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) {
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
  if (WIFSIGNALED(status)) {
    return Status::Unavailable(StrCat(Quoted(argv), " was killed by signal ", WTERMSIG(status),
                                      result.err.empty() ? "" : ": ", Tail(result.err)));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::Unavailable(StrCat(Quoted(argv), " exited with status ", WEXITSTATUS(status),
                                      result.err.empty() ? "" : ": ", Tail(result.err)));
  }
  return result;
}

Result<std::string> RunSacct(const SacctRunOptions& options) {
  GPUCOST_ASSIGN_OR_RETURN(std::vector<std::string> argv, SacctArgv(options));
  GPUCOST_ASSIGN_OR_RETURN(std::string tz, TzForSetting(options.time_zone));
  std::vector<std::string> env = {"SLURM_TIME_FORMAT=standard"};
  if (!tz.empty()) env.push_back(StrCat("TZ=", tz));
  GPUCOST_ASSIGN_OR_RETURN(CommandOutput out, RunCommand(argv, env));
  return std::move(out.out);
}

}  // namespace gpucost::slurm
