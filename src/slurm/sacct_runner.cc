#include "slurm/sacct_runner.h"

#include "core/strings.h"
#include "slurm/local_time.h"

namespace gpucost::slurm {

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
  // --duplicates: without it sacct prints only the last run of a requeued job, and the GPUs
  // its earlier runs held (state REQUEUED) would be charged to nobody.
  std::vector<std::string> argv = {options.binary,
                                   "--parsable2",
                                   "--noheader",
                                   "--allusers",
                                   "--duplicates",
                                   "--noconvert",
                                   StrCat("--starttime=", start),
                                   StrCat("--endtime=", end),
                                   StrCat("--format=", Join(SacctFields(), ","))};
  if (!options.clusters.empty()) argv.push_back(StrCat("--clusters=", Join(options.clusters, ",")));
  return argv;
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
