// A real single-node-host Slurm (Debian 12's slurmctld, slurmd, slurmdbd, slurm-client 22.05, munge
// and MariaDB) for integration tests, all in a temp folder, on free loopback ports, in the
// foreground, independent of any system-wide daemon or configuration:
//
//   munged     its own key and socket in the folder;
//   mariadbd   its own datadir (mariadb-install-db), socket and port on 127.0.0.1, no grant tables;
//   slurmdbd   storing accounting in that MariaDB;
//   slurmctld  cluster `gpucl`, two partitions with different TRESBillingWeights;
//   slurmd ×2  nodes `gpu1` and `gpu2` (both on this host, each on its own port), each with
//              `Gres=gpu:a100:4,gpu:l4:2`.
//
// The clients (sacct, sbatch, ...) find the configuration through SLURM_CONF, which Start() sets in
// this process's environment (children inherit it), and munge's socket through `AuthInfo=socket=`
// (slurmctld, slurmd, srun, sbatch, scontrol) and `AccountingStoragePass=` (the connection to
// slurmdbd that sacct, sacctmgr and sreport open; AuthInfo does not reach that one).
//
// Slurm 22.05's gres/gpu plugin drops a GPU without `File=` from the node ("Removing file-less GPU
// from final GRES list"), so each GPU is a symlink to /dev/null in the folder: a character device,
// as slurmd checks, and no real device. Heterogeneous jobs need sched/backfill, and their
// components never share a node, hence two nodes. Every daemon runs as the test's user (SlurmUser,
// SlurmdUser): as root, jobs run as root; as anyone else, slurmd can start only that user's own
// jobs, which are all the test submits, so the cluster needs no root.
//
// The guard stops every daemon (SIGTERM, then SIGKILL) and removes the folder, also when an
// assertion fails. One per test suite.
#pragma once

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.h"
#include "core/strings.h"
#include "core/subprocess.h"

extern char** environ;

namespace gpucost::testing_util {

class RealSlurm {
 public:
  static constexpr const char* kCluster = "gpucl";
  // Each node's GPUs, by type.
  static constexpr int kA100PerNode = 4;
  static constexpr int kL4PerNode = 2;

  RealSlurm() = default;
  ~RealSlurm() { Stop(); }
  RealSlurm(const RealSlurm&) = delete;
  RealSlurm& operator=(const RealSlurm&) = delete;

  // The programs it runs; "" when all are there, else what is missing.
  static std::string Missing() {
    std::string missing;
    for (const char* p :
         {"/usr/sbin/munged", "/usr/sbin/mariadbd", "/usr/bin/mariadb-install-db",
          "/usr/bin/mariadb", "/usr/sbin/slurmdbd", "/usr/sbin/slurmctld", "/usr/sbin/slurmd",
          "/usr/bin/sbatch", "/usr/bin/sacct", "/usr/bin/sacctmgr", "/usr/bin/sreport",
          "/usr/bin/scontrol", "/usr/bin/squeue", "/usr/bin/scancel", "/usr/bin/sinfo"}) {
      if (::access(p, X_OK) != 0) missing += StrCat(missing.empty() ? "" : " ", p);
    }
    return missing;
  }

  // Starts everything and waits until both nodes are idle. False with error() set.
  bool Start(std::chrono::seconds limit = std::chrono::seconds(60)) {
    deadline_ = std::chrono::steady_clock::now() + limit;
    std::string pattern =
        (std::filesystem::temp_directory_path() / "gpucost-slurm-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) return Failed("mkdtemp failed");
    dir_ = pattern;
    ::chmod(dir_.c_str(), 0755);  // munged wants the path to its socket searchable by all
    for (const char* d : {"munge", "db", "state", "spool/gpu1", "spool/gpu2", "log", "dev"}) {
      std::filesystem::create_directories(dir_ / d);
    }
    ::chmod((dir_ / "munge").c_str(), 0711);
    return StartMunge() && StartMariaDb() && WriteSlurmConfig() && StartSlurmDbd() &&
           AddAccounts() && StartSlurmctld() && WaitNodesIdle();
  }

  // Cancels every job and waits (up to 20 s) until none is left: a job's processes live under
  // slurmstepd, which outlives slurmd. Then SIGTERM to every daemon at once (slurmd first), and
  // each is reaped (SIGKILL after 10 s).
  void Stop() {
    if (!daemons_.empty() && Client({"scancel", "--user", UserName()}).ok()) {
      deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      WaitFor("every job to end", [&] {
        auto q = Client({"squeue", "-h", "-o", "%i"});
        return q.ok() && q->find_first_not_of(" \n") == std::string::npos;
      });
    }
    for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) ::kill(it->pid, SIGTERM);
    for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) {
      bool gone = false;
      for (int i = 0; i < 200 && !gone; ++i) {
        gone = ::waitpid(it->pid, nullptr, WNOHANG) == it->pid;
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (!gone) {
        ::kill(it->pid, SIGKILL);
        ::waitpid(it->pid, nullptr, 0);
      }
    }
    daemons_.clear();
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
      dir_.clear();
    }
  }

  const std::filesystem::path& dir() const { return dir_; }
  std::string conf() const { return (dir_ / "slurm.conf").string(); }
  const std::string& error() const { return error_; }

  // A Slurm client run with this cluster's configuration; its stdout, or an error with stderr.
  Result<std::string> Client(const std::vector<std::string>& argv) const {
    GPUCOST_ASSIGN_OR_RETURN(CommandOutput out, RunCommand(argv, {"SLURM_CONF=" + conf()}));
    return std::move(out.out);
  }

  // The logs of every daemon, last 3000 characters each, for failure messages.
  std::string Logs() const {
    std::string all;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir_ / "log", ec)) {
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      std::string text = ss.str();
      if (text.size() > 3000) text = text.substr(text.size() - 3000);
      all += StrCat("==> ", e.path().filename().string(), " <==\n", text, "\n");
    }
    return all;
  }

 private:
  struct Daemon {
    std::string name;
    pid_t pid;
  };

  bool Failed(std::string why) {
    error_ = std::move(why);
    return false;
  }

  bool Spawn(const std::string& name, std::vector<std::string> args) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log = (dir_ / "log" / (name + ".out")).string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return Failed(StrCat("cannot start ", args[0]));
    daemons_.push_back({name, pid});
    return true;
  }

  // True once `ready` holds; false (error set) when a daemon exits or the deadline passes.
  bool WaitFor(const std::string& what, const std::function<bool()>& ready) {
    while (std::chrono::steady_clock::now() < deadline_) {
      for (const Daemon& d : daemons_) {
        if (::waitpid(d.pid, nullptr, WNOHANG) == d.pid) {
          return Failed(StrCat(d.name, " exited while waiting for ", what, "\n", Logs()));
        }
      }
      if (ready()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return Failed(StrCat("timed out waiting for ", what, "\n", Logs()));
  }

  static bool Write(const std::filesystem::path& p, const std::string& text, mode_t mode = 0644) {
    std::ofstream(p) << text;
    return ::chmod(p.c_str(), mode) == 0;
  }

  bool StartMunge() {
    const auto key = dir_ / "munge" / "munge.key";
    std::ifstream random("/dev/urandom", std::ios::binary);
    std::string bytes(1024, '\0');
    random.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!Write(key, bytes, 0600)) return Failed("cannot write the munge key");
    socket_ = (dir_ / "munge" / "munge.sock").string();
    if (!Spawn("munged", {"/usr/sbin/munged", "--foreground", "--force", "--socket=" + socket_,
                          "--key-file=" + key.string(),
                          "--pid-file=" + (dir_ / "munge" / "munged.pid").string(),
                          "--log-file=" + (dir_ / "log" / "munged.log").string(),
                          "--seed-file=" + (dir_ / "munge" / "seed").string()})) {
      return false;
    }
    return WaitFor("munged's socket", [&] { return std::filesystem::exists(socket_); });
  }

  bool StartMariaDb() {
    const std::string data = (dir_ / "db").string();
    auto init = RunCommand(
        {"/usr/bin/mariadb-install-db", "--no-defaults", "--datadir=" + data,
         "--user=" + UserName(), "--auth-root-authentication-method=normal", "--skip-test-db"},
        {});
    if (!init.ok()) return Failed("mariadb-install-db: " + init.status().ToString());
    db_port_ = FreePort();
    // Durability is not what these tests are about: no flush per commit. No grant tables: any
    // user connects, slurmdbd as `slurm`.
    if (!Spawn("mariadbd",
               {"/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + data, "--user=" + UserName(),
                "--socket=" + (dir_ / "mysql.sock").string(), "--port=" + std::to_string(db_port_),
                "--bind-address=127.0.0.1", "--skip-grant-tables", "--skip-name-resolve",
                "--skip-log-bin", "--innodb-flush-log-at-trx-commit=0",
                "--innodb-buffer-pool-size=64M", "--pid-file=" + (dir_ / "mysql.pid").string(),
                "--log-error=" + (dir_ / "log" / "mariadb.log").string()})) {
      return false;
    }
    return WaitFor("MariaDB", [&] {
      return RunCommand({"/usr/bin/mariadb", "--no-defaults", "-h", "127.0.0.1", "-P",
                         std::to_string(db_port_), "-u", "slurm", "-e", "SELECT 1"},
                        {})
          .ok();
    });
  }

  static std::string UserName() {
    const passwd* pw = ::getpwuid(::getuid());
    return pw != nullptr ? pw->pw_name : std::to_string(::getuid());
  }

  bool WriteSlurmConfig() {
    const std::string d = dir_.string();
    dbd_port_ = FreePort();
    const int ctld_port = FreePort();
    const int slurmd_port = FreePort();
    int gpu2_port = FreePort();
    while (gpu2_port == slurmd_port) gpu2_port = FreePort();
    for (int i = 0; i < kA100PerNode + kL4PerNode; ++i) {
      std::filesystem::create_symlink("/dev/null", dir_ / "dev" / StrCat("nvidia", i));
    }
    const std::string node = StrCat("NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=16 ",
                                    "RealMemory=16000 Gres=gpu:a100:", kA100PerNode,
                                    ",gpu:l4:", kL4PerNode, " State=UNKNOWN");
    const std::string slurm_conf = StrCat(
        "ClusterName=", kCluster, "\nSlurmctldHost=localhost(127.0.0.1)\n",
        "SlurmctldPort=", ctld_port, "\nSlurmdPort=", slurmd_port, "\n", "SlurmUser=", UserName(),
        "\nSlurmdUser=", UserName(), "\n",
        "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=", socket_, "\n",
        "StateSaveLocation=", d, "/state\nSlurmdSpoolDir=", d, "/spool/%n\n",
        "SlurmctldPidFile=", d, "/slurmctld.pid\nSlurmdPidFile=", d, "/slurmd-%n.pid\n",
        "SlurmctldLogFile=", d, "/log/slurmctld.log\nSlurmdLogFile=", d, "/log/slurmd-%n.log\n",
        "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n",
        "JobAcctGatherType=jobacct_gather/linux\nJobAcctGatherFrequency=1\n",
        // Heterogeneous jobs need the backfill scheduler; a 1 s pass keeps the queue moving.
        "SchedulerType=sched/backfill\nSchedulerParameters=bf_interval=1\n",
        // Memory is allocated (and so in AllocTRES and billed); 100 MB a CPU unless a job asks.
        "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=100\n",
        "GresTypes=gpu\n",
        "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=127.0.0.1\n",
        "AccountingStoragePort=", dbd_port_, "\nAccountingStoragePass=", socket_, "\n",
        "AccountingStorageTRES=gres/gpu,gres/gpu:a100,gres/gpu:l4\n",
        "AccountingStorageEnforce=associations\n",
        "JobCompType=jobcomp/none\nMpiDefault=none\nReturnToService=2\n",
        // The nodes' CPUs and memory as configured, whatever this machine has.
        "SlurmdParameters=config_overrides\n",
        "MinJobAge=300\nKillWait=1\nInactiveLimit=0\nJobRequeue=1\nDebugFlags=NO_CONF_HASH\n",
        "NodeName=gpu1 ", node, "\nNodeName=gpu2 Port=", gpu2_port, " ", node, "\n",
        "PartitionName=gpu Nodes=gpu1,gpu2 Default=YES MaxTime=INFINITE State=UP ",
        "TRESBillingWeights=\"CPU=1.0,Mem=0.25G,GRES/gpu=2.0\"\n",
        "PartitionName=premium Nodes=gpu1,gpu2 MaxTime=INFINITE State=UP ",
        "TRESBillingWeights=\"CPU=1.0,GRES/gpu:a100=8.0,GRES/gpu:l4=3.0\"\n");
    std::string gres = "AutoDetect=off\n";
    for (const char* n : {"gpu1", "gpu2"}) {
      gres += StrCat("NodeName=", n, " Name=gpu Type=a100 File=", d, "/dev/nvidia[0-",
                     kA100PerNode - 1, "]\n", "NodeName=", n, " Name=gpu Type=l4 File=", d,
                     "/dev/nvidia[", kA100PerNode, "-", kA100PerNode + kL4PerNode - 1, "]\n");
    }
    const std::string dbd_conf =
        StrCat("AuthType=auth/munge\nAuthInfo=socket=", socket_,
               "\nDbdHost=localhost\nDbdAddr=127.0.0.1\n", "DbdPort=", dbd_port_,
               "\nSlurmUser=", UserName(), "\nLogFile=", d, "/log/slurmdbd.log\n", "PidFile=", d,
               "/slurmdbd.pid\nStorageType=accounting_storage/mysql\n",
               "StorageHost=127.0.0.1\nStoragePort=", db_port_, "\nStorageUser=slurm\n",
               "StorageLoc=slurm_acct_db\n");
    // slurmdbd refuses a slurmdbd.conf others can read.
    if (!Write(dir_ / "slurm.conf", slurm_conf) || !Write(dir_ / "gres.conf", gres) ||
        !Write(dir_ / "slurmdbd.conf", dbd_conf, 0600)) {
      return Failed("cannot write the Slurm configuration");
    }
    ::setenv("SLURM_CONF", conf().c_str(), 1);
    return true;
  }

  bool StartSlurmDbd() {
    if (!Spawn("slurmdbd", {"/usr/sbin/slurmdbd", "-D"})) return false;
    return WaitFor("slurmdbd", [&] {
      return Client({"sacctmgr", "-i", "add", "cluster", kCluster}).ok();
    });
  }

  // Accounts ml, vision and infra, the test's user in each.
  bool AddAccounts() {
    auto a = Client(
        {"sacctmgr", "-i", "add", "account", "ml,vision,infra", StrCat("Cluster=", kCluster)});
    if (!a.ok()) return Failed("sacctmgr add account: " + a.status().ToString());
    auto u = Client({"sacctmgr", "-i", "add", "user", UserName(), "Account=ml,vision,infra",
                     StrCat("Cluster=", kCluster)});
    if (!u.ok()) return Failed("sacctmgr add user: " + u.status().ToString());
    return true;
  }

  bool StartSlurmctld() {
    return Spawn("slurmctld", {"/usr/sbin/slurmctld", "-D", "-i"}) &&
           WaitFor("slurmctld",
                   [&] {
                     return Client({"scontrol", "ping"}).ok();
                   }) &&
           Spawn("slurmd-gpu1", {"/usr/sbin/slurmd", "-D", "-N", "gpu1"}) &&
           Spawn("slurmd-gpu2", {"/usr/sbin/slurmd", "-D", "-N", "gpu2"});
  }

  bool WaitNodesIdle() {
    return WaitFor("both nodes idle", [&] {
      auto out = Client({"sinfo", "-h", "-N", "-p", "gpu", "-o", "%N %T"});
      return out.ok() && out->find("gpu1 idle") != std::string::npos &&
             out->find("gpu2 idle") != std::string::npos;
    });
  }

  std::filesystem::path dir_;
  std::string socket_;
  int db_port_ = 0;
  int dbd_port_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<Daemon> daemons_;
  std::string error_;
};

}  // namespace gpucost::testing_util
