// A real PostgreSQL (Debian's postgresql package) for integration tests: a fresh cluster made by
// initdb in a temp folder, the server on 127.0.0.1 at a free port with its unix socket in that
// folder, databases made on demand (trust authentication, user postgres). The guard stops it
// (immediate shutdown, as `pg_ctl stop -m immediate`) and removes the folder, also when an
// assertion fails. PostgreSQL refuses to run as root: as root, initdb and the server run as the
// `postgres` system user. Not thread-safe; one per test suite is plenty.
//
//   PostgresServer pg;
//   if (!PostgresServer::Available()) GTEST_SKIP() << "no PostgreSQL binaries";
//   ASSERT_TRUE(pg.Start()) << pg.error();
//   const std::string uri = pg.CreateDatabase("t1");   // postgresql://postgres@127.0.0.1:…/t1
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.h"

namespace gpucost::testing_util {

class PostgresServer {
 public:
  PostgresServer() = default;
  ~PostgresServer() { Stop(); }
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // The folder with initdb and postgres: $GPUCOST_PG_BINDIR, else the newest
  // /usr/lib/postgresql/<version>/bin; "" when there is none.
  static std::string BinDir() {
    if (const char* env = std::getenv("GPUCOST_PG_BINDIR"); env != nullptr && *env != '\0') {
      return env;
    }
    std::vector<std::filesystem::path> found;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
      if (std::filesystem::exists(e.path() / "bin" / "initdb", ec) &&
          std::filesystem::exists(e.path() / "bin" / "postgres", ec)) {
        found.push_back(e.path() / "bin");
      }
    }
    if (found.empty()) return "";
    // Newest major version: compare numerically, "9.6" < "15".
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
      return std::atof(a.parent_path().filename().c_str()) <
             std::atof(b.parent_path().filename().c_str());
    });
    return found.back().string();
  }
  static bool Available() { return !BinDir().empty(); }


  // initdb, start, wait (up to `limit`) until it accepts connections. False with error() set.
  bool Start(std::chrono::seconds limit = std::chrono::seconds(60)) {
    bin_ = BinDir();
    if (bin_.empty()) return Failed("no PostgreSQL binaries under /usr/lib/postgresql");
    std::string pattern = (std::filesystem::temp_directory_path() / "gpucost-pg-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) return Failed("mkdtemp failed");
    dir_ = pattern;
    if (::getuid() == 0) {
      const passwd* pw = ::getpwnam("postgres");
      if (pw == nullptr) return Failed("running as root and there is no `postgres` user");
      uid_ = pw->pw_uid;
      gid_ = pw->pw_gid;
      if (::chown(dir_.c_str(), uid_, gid_) != 0) return Failed("chown of the temp folder failed");
    }
    const std::string data = (dir_ / "data").string();
    if (!FromTemplate(data)) {
      const int initdb = Wait(Spawn({bin_ + "/initdb", "-D", data, "-U", "postgres", "-A", "trust",
                                     "-E", "UTF8", "--locale=C", "--no-sync"},
                                    (dir_ / "initdb.log").string()));
      if (initdb != 0) return Failed("initdb failed: " + ReadFile(dir_ / "initdb.log"));
      KeepAsTemplate(data);
    }
    port_ = FreePort();
    // Durability is not what these tests are about: no fsync, so they run fast.
    pid_ = Spawn({bin_ + "/postgres", "-D", data, "-p", std::to_string(port_), "-c",
                  "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + dir_.string(),
                  "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                  "-c", "max_connections=40", "-c", "shared_buffers=32MB"},
                 (dir_ / "postgres.log").string());
    if (pid_ <= 0) return Failed("cannot start postgres");
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return Failed("postgres exited: " + Log());
      }
      if (Client({"pg_isready", "-q"}) == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return Failed("postgres did not accept connections in time: " + Log());
  }

  // Creates the database `name` and returns its URI; "" (and error()) when that fails.
  std::string CreateDatabase(const std::string& name) {
    if (Client({"createdb", name}) != 0) {
      Failed("createdb " + name + " failed: " + ReadFile(dir_ / "client.log"));
      return "";
    }
    return Uri(name);
  }
  // Runs `sql` in database `name` with psql; true when it succeeded.
  bool Psql(const std::string& name, const std::string& sql) {
    return Client({"psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", name, "-c", sql}) == 0;
  }

  std::string Uri(const std::string& name) const {
    return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + name;
  }
  int port() const { return port_; }
  const std::string& error() const { return error_; }
  std::string Log() const { return ReadFile(dir_ / "postgres.log"); }

  // Immediate shutdown (SIGQUIT, as `pg_ctl stop -m immediate`), then the folder goes.
  void Stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGQUIT);
      for (int i = 0; i < 100 && ::waitpid(pid_, nullptr, WNOHANG) != pid_; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (i == 99) {
          ::kill(pid_, SIGKILL);
          ::waitpid(pid_, nullptr, 0);
        }
      }
      pid_ = -1;
    }
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
      dir_.clear();
    }
  }

 private:
  // Each test is a process of its own and starts its own server: initdb, a second of the
  // start's, runs once per build. Its fresh cluster is kept (copied while no server runs on it)
  // in the folder GPUCOST_PG_TEMPLATE_DIR names, one per PostgreSQL version, and later starts
  // copy it, which takes a third of that (docs/perf.md, "CI"). Without the folder, initdb each
  // time.
  std::filesystem::path TemplatePath() const {
#ifdef GPUCOST_PG_TEMPLATE_DIR
    // One per PostgreSQL version (/usr/lib/postgresql/15/bin: "15") and per initdb flags below
    // ("-1": change it with them).
    std::error_code ec;
    const std::filesystem::path bin = std::filesystem::weakly_canonical(bin_, ec);
    return std::filesystem::path(GPUCOST_PG_TEMPLATE_DIR) /
           ("pg-" + (ec ? std::filesystem::path(bin_) : bin).parent_path().filename().string() +
            "-1");
#else
    return {};
#endif
  }
  bool FromTemplate(const std::string& data) {
    const std::filesystem::path from = TemplatePath();
    std::error_code ec;
    if (from.empty() || !std::filesystem::exists(from / "PG_VERSION", ec)) return false;
    std::filesystem::copy(from, data, std::filesystem::copy_options::recursive, ec);
    if (!ec && OwnedByServer(data)) return true;
    std::filesystem::remove_all(data, ec);
    return false;
  }
  // The copy is made beside the template and renamed into place, so that a test started at the
  // same time never copies half of one; of two made at once, one stays.
  void KeepAsTemplate(const std::string& data) const {
    const std::filesystem::path to = TemplatePath();
    std::error_code ec;
    if (to.empty() || std::filesystem::exists(to, ec)) return;
    std::filesystem::create_directories(to.parent_path(), ec);
    const std::filesystem::path part = to.string() + ".part-" + std::to_string(::getpid());
    std::filesystem::copy(data, part, std::filesystem::copy_options::recursive, ec);
    if (ec) {
      std::filesystem::remove_all(part, ec);
      return;
    }
    std::filesystem::rename(part, to, ec);
    if (ec) std::filesystem::remove_all(part, ec);
  }
  // The server refuses a data folder that is not its user's own, or that others may read.
  bool OwnedByServer(const std::string& data) const {
    std::error_code ec;
    std::filesystem::permissions(data, std::filesystem::perms::owner_all, ec);
    if (ec) return false;
    if (::getuid() != 0) return true;
    if (::lchown(data.c_str(), uid_, gid_) != 0) return false;
    for (const auto& e : std::filesystem::recursive_directory_iterator(data, ec)) {
      if (::lchown(e.path().c_str(), uid_, gid_) != 0) return false;
    }
    return !ec;
  }

  bool Failed(std::string why) {
    error_ = std::move(why);
    return false;
  }

  static std::string ReadFile(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  // A client tool of the same version against this server; its exit status.
  int Client(std::vector<std::string> args) {
    args[0] = bin_ + "/" + args[0];
    args.insert(args.begin() + 1,
                {"-h", "127.0.0.1", "-p", std::to_string(port_), "-U", "postgres"});
    return Wait(Spawn(std::move(args), (dir_ / "client.log").string()));
  }

  // Starts `args` with stdout and stderr in `log`, as the postgres user when we are root.
  pid_t Spawn(std::vector<std::string> args, const std::string& log) const {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const bool drop = ::getuid() == 0;
    const uid_t uid = uid_;
    const gid_t gid = gid_;
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    // The child: only async-signal-safe calls from here on.
    if (drop && (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0)) {
      ::_exit(126);
    }
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }

  static int Wait(pid_t pid) {
    if (pid <= 0) return -1;
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  std::string bin_;
  std::filesystem::path dir_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string error_;
};

}  // namespace gpucost::testing_util
