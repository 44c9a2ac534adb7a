#include "slurm/sacct_parser.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

#include "core/strings.h"
#include "core/time.h"
#include "inventory/inventory_builder.h"
#include "inventory/ksm_reader.h"
#include "slurm/hostlist.h"
#include "slurm/local_time.h"

namespace gpucost::slurm {
namespace {

// Repeats of one kind of problem are listed one by one up to this many, then counted on the
// last listed one, so a broken column in a million-line file stays a short list.
constexpr uint64_t kListedPerKind = 10;

class LineWarnings {
 public:
  explicit LineWarnings(std::vector<InputWarning>& out) : out_(out) {}
  void Warn(const std::string& kind, const std::string& source, uint64_t line, std::string message) {
    uint64_t& n = listed_[kind];
    if (n >= kListedPerKind) {
      ++out_[last_[kind]].count;
      return;
    }
    ++n;
    last_[kind] = out_.size();
    out_.push_back(InputWarning{source, line, std::move(message), 1});
  }

 private:
  std::vector<InputWarning>& out_;
  std::map<std::string, uint64_t> listed_;
  std::map<std::string, size_t> last_;
};

// One job written twice (overlapping sacct dumps put together) is held once: the same cluster,
// JobIDRaw and Start. A row that says when the job ended wins over one that does not (the job was
// still running when the earlier dump was taken), and of two Ends the later (the newer dump), so
// that the order of the rows does not matter; otherwise the first row is kept.
void DropRepeatedJobs(std::vector<SacctJob>& jobs, LineWarnings& warn, const std::string& source) {
  std::map<std::tuple<std::string, std::string, int64_t>, size_t> seen;
  std::vector<SacctJob> kept;
  kept.reserve(jobs.size());
  for (SacctJob& job : jobs) {
    const auto [at, fresh] =
        seen.try_emplace({job.cluster, job.job_id_raw, UnixMs(job.start)}, kept.size());
    if (fresh) {
      kept.push_back(std::move(job));
      continue;
    }
    SacctJob& first = kept[at->second];
    const bool replace = job.end && (!first.end || *job.end > *first.end);
    warn.Warn("repeated-job", source, job.line,
              StrCat("job ", job.job_id, " started at ", FormatRfc3339(job.start), " is on line ",
                     first.line, " too; held once, as on line ", replace ? job.line : first.line));
    if (replace) first = std::move(job);
  }
  jobs = std::move(kept);
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsUnknownTime(std::string_view s) { return s.empty() || s == "Unknown" || s == "None"; }

std::vector<std::string_view> SplitFields(std::string_view line, char delimiter) {
  return Split(line, delimiter);
}

enum Field : uint8_t {
  kJobId, kJobIdRaw, kCluster, kUser, kAccount, kPartition, kQos, kAllocTres, kStart, kEnd,
  kElapsed, kState, kNodeList, kJobName, kNTasks, kTresUsageInTot, kTresUsageInAve, kFieldCount
};

struct FieldSpec {
  std::string_view name;  // lower case, as matched against the header
  std::string_view display;
  bool required;
};

constexpr FieldSpec kFields[kFieldCount] = {
    {"jobid", "JobID", true},         {"jobidraw", "JobIDRaw", false},
    {"cluster", "Cluster", false},    {"user", "User", false},
    {"account", "Account", false},    {"partition", "Partition", false},
    {"qos", "QOS", false},            {"alloctres", "AllocTRES", true},
    {"start", "Start", true},         {"end", "End", true},
    {"elapsed", "Elapsed", false},    {"state", "State", false},
    {"nodelist", "NodeList", true},   {"jobname", "JobName", false},
    {"ntasks", "NTasks", false},      {"tresusageintot", "TRESUsageInTot", false},
    {"tresusageinave", "TRESUsageInAve", false},
};

constexpr int kAbsent = -1;

struct Header {
  size_t columns = 0;
  int index[kFieldCount];
};

Result<Header> MakeHeader(const std::vector<std::string>& names) {
  Header h;
  h.columns = names.size();
  std::fill(std::begin(h.index), std::end(h.index), kAbsent);
  for (size_t c = 0; c < names.size(); ++c) {
    const std::string lower = ToLower(Trim(names[c]));
    for (int f = 0; f < kFieldCount; ++f) {
      if (lower == kFields[f].name && h.index[f] == kAbsent) h.index[f] = static_cast<int>(c);
    }
  }
  std::vector<std::string> missing;
  for (int f = 0; f < kFieldCount; ++f) {
    if (kFields[f].required && h.index[f] == kAbsent) missing.emplace_back(kFields[f].display);
  }
  if (!missing.empty()) {
    return Status::ParseError(StrCat("sacct output lacks required field", missing.size() > 1 ? "s " : " ",
                                     Join(missing, ", "), " (run sacct with --format=JobID,JobIDRaw,",
                                     "Cluster,User,Account,Partition,QOS,AllocTRES,Start,End,",
                                     "Elapsed,State,NodeList,JobName --parsable2)"));
  }
  return h;
}

std::vector<std::string> ToStrings(const std::vector<std::string_view>& parts) {
  std::vector<std::string> out;
  for (std::string_view p : parts) out.emplace_back(Trim(p));
  if (!out.empty() && out.back().empty()) out.pop_back();  // -p: trailing delimiter
  return out;
}

// Splits "2736118_0" / "77+1" into the job's parts. Returns false when the id is malformed;
// `pending_array` is set for a pending array's "123_[1-5%2]".
bool ParseJobId(std::string_view id, SacctJob& job, bool& pending_array) {
  pending_array = false;
  if (const size_t plus = id.find('+'); plus != std::string_view::npos) {
    const std::string_view base = id.substr(0, plus);
    const std::string_view offset = id.substr(plus + 1);
    if (!AllDigits(base) || !AllDigits(offset) || offset.size() > 6) return false;
    job.het_job_id = std::string(base);
    std::from_chars(offset.data(), offset.data() + offset.size(), job.het_job_offset);
    return true;
  }
  if (const size_t us = id.find('_'); us != std::string_view::npos) {
    const std::string_view base = id.substr(0, us);
    const std::string_view task = id.substr(us + 1);
    if (!AllDigits(base)) return false;
    if (task.starts_with('[')) {
      pending_array = true;
      return true;
    }
    if (!AllDigits(task)) return false;
    job.array_job_id = std::string(base);
    job.array_task_id = std::string(task);
    return true;
  }
  return AllDigits(id);
}

std::string NormalizeState(std::string_view s) {
  s = Trim(s);
  const size_t space = s.find(' ');
  std::string_view word = s.substr(0, space);
  while (word.ends_with('+')) word.remove_suffix(1);
  std::string out(word);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; });
  return out;
}

// The gres/gpuutil value of a TRESUsageIn* string ("cpu=01:09:20,gres/gpuutil=66,mem=2810884K"),
// nullopt when absent; -1 when present but not a number.
std::optional<double> GpuUtilIn(std::string_view tres) {
  for (std::string_view item : Split(tres, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || ToLower(Trim(item.substr(0, eq))) != "gres/gpuutil") continue;
    const std::string_view v = Trim(item.substr(eq + 1));
    double d = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
    if (ec != std::errc() || p != v.data() + v.size() || d < 0 || !(d == d)) return -1;
    return d;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Duration> ParseSlurmElapsed(std::string_view text) {
  text = Trim(text);
  int64_t days = 0;
  if (const size_t dash = text.find('-'); dash != std::string_view::npos) {
    const std::string_view d = text.substr(0, dash);
    if (!AllDigits(d) || d.size() > 6) return std::nullopt;
    std::from_chars(d.data(), d.data() + d.size(), days);
    text = text.substr(dash + 1);
  }
  const std::vector<std::string_view> parts = Split(text, ':');
  if (parts.size() < 2 || parts.size() > 3 || (days > 0 && parts.size() != 3)) return std::nullopt;
  int64_t v[3] = {0, 0, 0};
  const size_t first = 3 - parts.size();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!AllDigits(parts[i]) || parts[i].size() > 6) return std::nullopt;
    std::from_chars(parts[i].data(), parts[i].data() + parts[i].size(), v[first + i]);
  }
  if (v[2] > 59 || (parts.size() == 3 && v[1] > 59)) return std::nullopt;
  return std::chrono::seconds(((days * 24 + v[0]) * 60 + v[1]) * 60 + v[2]);
}

Result<SacctParse> ParseSacct(std::string_view text, const SacctFormat& format,
                              std::string source) {
  GPUCOST_ASSIGN_OR_RETURN(LocalTimeZone tz, LocalTimeZone::Make(format.time_zone));
  const Instant not_after = format.not_after.value_or(
      std::chrono::floor<std::chrono::seconds>(SystemClock().Now() + std::chrono::hours(24)));
  SacctParse out;
  LineWarnings warn(out.warnings);
  std::optional<Header> header;
  std::vector<std::string> lower_fields;
  if (!format.fields.empty()) {
    auto h = MakeHeader(format.fields);
    if (!h.ok()) return std::move(h).status();
    header = *h;
    for (const std::string& f : format.fields) lower_fields.push_back(ToLower(Trim(f)));
  }
  auto malformed = [&](uint64_t line, std::string_view field, std::string message) {
    ++out.malformed_lines;
    warn.Warn(StrCat("field:", field), source, line, StrCat(field, ": ", message, "; line skipped"));
  };

  // Step rows carry the usage TRES: gres/gpuutil is kept per step and joined to its job below.
  std::map<std::string, std::vector<StepGpuUtil>> step_utils;  // job id as written -> steps
  std::vector<std::string> cells;
  auto cell = [&](Field f) -> const std::string& {
    static const std::string kEmpty;
    const int i = header->index[f];
    return i == kAbsent ? kEmpty : cells[static_cast<size_t>(i)];
  };
  auto ReadStepUtil = [&](const std::string& id, size_t dot, uint64_t line) {
    std::optional<double> tot = GpuUtilIn(cell(kTresUsageInTot));
    std::optional<double> ave = GpuUtilIn(cell(kTresUsageInAve));
    if (!tot && !ave) return;
    if (tot.value_or(0) < 0 || ave.value_or(0) < 0) {
      warn.Warn("field:gpuutil", source, line, "TRESUsageIn*: gres/gpuutil is not a number; step ignored");
      return;
    }
    if (IsUnknownTime(cell(kStart))) return;
    StepGpuUtil st;
    st.step_id = id;
    if (tot) {
      st.percent_total = *tot;
    } else {
      double ntasks = 1;
      const std::string& nt = cell(kNTasks);
      if (!nt.empty() && std::from_chars(nt.data(), nt.data() + nt.size(), ntasks).ec != std::errc()) {
        ntasks = 1;
      }
      st.percent_total = *ave * std::max(1.0, ntasks);
    }
    auto start = tz.ToInstant(cell(kStart));
    if (!start.ok()) {
      warn.Warn("field:Start", source, line, StrCat("Start: ", start.status().message(), "; step ignored"));
      return;
    }
    st.start = *start;
    if (!IsUnknownTime(cell(kEnd))) {
      auto end = tz.ToInstant(cell(kEnd));
      if (!end.ok() || *end < st.start) {
        warn.Warn("field:End", source, line, StrCat("End: \"", cell(kEnd), "\" is not a time after Start; step ignored"));
        return;
      }
      st.end = *end;
    }
    step_utils[id.substr(0, dot)].push_back(std::move(st));
  };

  uint64_t line_no = 0;
  size_t pos = Utf8BomBytes(text);  // a byte order mark is not the header's first field
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (Trim(line).empty() || Trim(line).starts_with('#')) continue;
    cells = ToStrings(SplitFields(line, format.delimiter));
    if (!header) {
      auto h = MakeHeader(cells);
      if (!h.ok()) return h.status().WithContext(StrCat(source, ":", line_no));
      header = *h;
      continue;
    }
    if (!lower_fields.empty() && cells.size() == lower_fields.size() &&
        ToLower(cells[0]) == lower_fields[0] && ToLower(cells.back()) == lower_fields.back()) {
      continue;  // a header line although the field list was given
    }
    ++out.lines;
    // Cells were trimmed of one trailing empty cell; a real empty last field under --parsable2
    // leaves one cell too few, which is restored here.
    if (cells.size() + 1 == header->columns && line.ends_with(format.delimiter)) cells.emplace_back();
    if (cells.size() != header->columns) {
      ++out.malformed_lines;
      warn.Warn("columns", source, line_no,
                StrCat("line has ", cells.size(), " fields, the header names ", header->columns,
                       "; line skipped"));
      continue;
    }
    auto get = cell;

    SacctJob job;
    job.line = line_no;
    job.job_id = get(kJobId);
    if (job.job_id.empty()) {
      malformed(line_no, "JobID", "empty");
      continue;
    }
    if (const size_t dot = job.job_id.find('.'); dot != std::string::npos) {
      ++out.steps_skipped;  // 123.batch, 123.extern, 123.0: the allocation row covers them
      ReadStepUtil(job.job_id, dot, line_no);
      continue;
    }
    bool pending_array = false;
    if (!ParseJobId(job.job_id, job, pending_array)) {
      malformed(line_no, "JobID", StrCat("\"", job.job_id, "\" is not a job id"));
      continue;
    }
    job.state = NormalizeState(get(kState));
    // A running or completed job has started: one without a Start is a damaged row, not a
    // pending job (a job cancelled while pending has none, rightly).
    const bool started =
        job.state == "RUNNING" || job.state == "COMPLETED" || job.state == "COMPLETING";
    if (started && IsUnknownTime(get(kStart)) && !get(kAllocTres).empty()) {
      malformed(line_no, "Start", StrCat("\"", get(kStart), "\" for a ", job.state, " job"));
      continue;
    }
    if (pending_array || job.state == "PENDING" || IsUnknownTime(get(kStart)) ||
        get(kAllocTres).empty()) {
      ++out.pending_skipped;
      continue;
    }
    job.job_id_raw = get(kJobIdRaw).empty() ? job.job_id : get(kJobIdRaw);
    job.cluster = get(kCluster);
    job.user = get(kUser);
    job.account = get(kAccount);
    job.partition = get(kPartition);
    job.qos = get(kQos);
    job.job_name = get(kJobName);

    auto tres = ParseGpuTres(get(kAllocTres));
    if (!tres.ok()) {
      malformed(line_no, "AllocTRES", std::string(tres.status().message()));
      continue;
    }
    job.gpus = std::move(*tres);
    job.alloc_tres = get(kAllocTres);
    if (job.gpus.empty()) {
      ++out.no_gpu_skipped;
      continue;
    }
    if (!job.gpus.note.empty()) {
      warn.Warn("tres-note", source, line_no, StrCat("AllocTRES: ", job.gpus.note));
    }
    auto start = tz.ToInstant(get(kStart));
    if (!start.ok()) {
      malformed(line_no, "Start", std::string(start.status().message()));
      continue;
    }
    job.start = *start;
    // As for telemetry: a time outside 2000-2100 is a corrupt row (End=9999-12-31 took minutes
    // of attribution, then failed).
    if (!kPlausibleSampleTimes.Contains(job.start)) {
      malformed(line_no, "Start",
                StrCat("\"", get(kStart), "\" is outside 2000-01-01 to 2100-01-01"));
      continue;
    }
    if (job.start > not_after) {
      malformed(
          line_no, "Start",
          StrCat("\"", get(kStart), "\" is in the future (after ", FormatRfc3339(not_after), ")"));
      continue;
    }
    if (!IsUnknownTime(get(kEnd))) {
      auto end = tz.ToInstant(get(kEnd));
      if (!end.ok()) {
        malformed(line_no, "End", std::string(end.status().message()));
        continue;
      }
      if (*end > kPlausibleSampleTimes.end) {
        malformed(line_no, "End",
                  StrCat("\"", get(kEnd), "\" is outside 2000-01-01 to 2100-01-01"));
        continue;
      }
      if (*end > not_after) {
        malformed(
            line_no, "End",
            StrCat("\"", get(kEnd), "\" is in the future (after ", FormatRfc3339(not_after), ")"));
        continue;
      }
      if (*end < job.start) {
        malformed(line_no, "End", StrCat("\"", get(kEnd), "\" is before Start \"", get(kStart), "\""));
        continue;
      }
      job.end = *end;
    }
    if (!get(kElapsed).empty()) {
      job.elapsed = ParseSlurmElapsed(get(kElapsed));
      if (!job.elapsed) {
        warn.Warn("field:Elapsed", source, line_no,
                  StrCat("Elapsed: \"", get(kElapsed), "\" is not [DD-[HH:]]MM:SS; ignored"));
      }
    }
    auto nodes = ExpandHostList(get(kNodeList));
    if (!nodes.ok()) {
      malformed(line_no, "NodeList", std::string(nodes.status().message()));
      continue;
    }
    if (nodes->empty()) {
      malformed(line_no, "NodeList", "empty for a job holding GPUs");
      continue;
    }
    job.nodes = std::move(*nodes);
    // Spread over its nodes, more GPUs a node than any node reports (kubernetes' bound).
    if (static_cast<double>(job.gpus.total()) >
        kMaxNodeDevices * static_cast<double>(job.nodes.size())) {
      malformed(line_no, "AllocTRES",
                StrCat(job.gpus.total(), " GPUs on ", job.nodes.size(), " node(s): more than ",
                       static_cast<int64_t>(kMaxNodeDevices), " a node"));
      continue;
    }
    out.jobs.push_back(std::move(job));
  }
  DropRepeatedJobs(out.jobs, warn, source);
  if (!header) {
    return Status::ParseError(StrCat(source, ": no sacct header line (or give the field list)"));
  }
  for (SacctJob& job : out.jobs) {
    auto it = step_utils.find(job.job_id);
    if (it != step_utils.end()) job.step_gpu_util = std::move(it->second);
  }
  return out;
}

}  // namespace gpucost::slurm
