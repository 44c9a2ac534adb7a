#include "ingest/exposition_line.h"

#include <algorithm>
#include <cstring>

#include "core/strings.h"
#include "ingest/exposition_chars.h"
#include "ingest/exposition_numbers.h"

namespace gpucost::exposition_internal {
namespace {

// ", found 'x'" / ", found the end of the line", for error messages.
std::string Found(const char* p, const char* end) {
  if (p >= end) return ", found the end of the line";
  const unsigned char c = U(*p);
  if (c >= 0x20 && c < 0x7f) return StrCat(", found '", static_cast<char>(c), "'");
  char hex[8];
  std::snprintf(hex, sizeof(hex), "0x%02x", c);
  return StrCat(", found byte ", hex);
}

// Shortens user text quoted in messages so one bad line cannot produce a huge message.
std::string_view Clip(std::string_view s) { return s.size() > 64 ? s.substr(0, 64) : s; }

bool ParseTypeName(std::string_view s, MetricType& out) {
  static constexpr std::pair<std::string_view, MetricType> kTypes[] = {
      {"counter", MetricType::kCounter},     {"gauge", MetricType::kGauge},
      {"histogram", MetricType::kHistogram}, {"gaugehistogram", MetricType::kGaugeHistogram},
      {"summary", MetricType::kSummary},     {"info", MetricType::kInfo},
      {"stateset", MetricType::kStateSet},   {"untyped", MetricType::kUntyped},
      {"unknown", MetricType::kUnknown},
  };
  for (const auto& [name, type] : kTypes) {
    if (s == name) {
      out = type;
      return true;
    }
  }
  return false;
}

}  // namespace

LineParser::LineParser(ExpositionFormat format, ExpositionHandler& handler, bool remember_series)
    : format_(format), handler_(handler), remember_series_(remember_series) {
  labels_.reserve(32);
  exemplar_labels_.reserve(8);
}

LineResult LineParser::Fail(std::string message) {
  error_ = std::move(message);
  return LineResult::kError;
}

LineResult LineParser::Parse(std::string_view line, uint64_t line_no) {
  line_ = line;
  line_no_ = line_no;
  scratch_ready_ = false;
  const char* p = line.data();
  const char* end = p + line.size();
  if (p == end) return LineResult::kOk;
  if (kChars.metric_start[U(*p)] || *p == '{') return ParseSample(p, end);
  SkipSpace(p, end);
  if (p == end) return LineResult::kOk;  // a blank line
  if (*p == '#') return ParseComment(p, end);
  return ParseSample(p, end);
}

bool LineParser::ParseQuoted(const char*& p, const char* end, std::string_view& out) {
  const char* start = p + 1;
  const char* stop = FindQuoteOrBackslash(start, end);
  if (stop == end) return false;
  if (*stop == '"') {
    out = std::string_view(start, static_cast<size_t>(stop - start));
    p = stop + 1;
    return true;
  }
  const char* slash = stop;
  if (!scratch_ready_) {
    scratch_.clear();
    scratch_.reserve(line_.size());
    scratch_ready_ = true;
  }
  const size_t first = scratch_.size();
  scratch_.append(start, static_cast<size_t>(slash - start));
  const char* q = slash;
  while (q < end) {
    const char c = *q;
    if (c == '"') {
      out = std::string_view(scratch_.data() + first, scratch_.size() - first);
      p = q + 1;
      return true;
    }
    if (c == '\\') {
      if (q + 1 >= end) return false;
      const char e = q[1];
      if (e == 'n') {
        scratch_.push_back('\n');
      } else if (e == '\\' || e == '"') {
        scratch_.push_back(e);
      } else {  // Prometheus keeps unknown escapes as written
        scratch_.push_back('\\');
        scratch_.push_back(e);
      }
      q += 2;
      continue;
    }
    scratch_.push_back(c);
    ++q;
  }
  return false;
}

bool LineParser::ParseLabels(const char*& p, const char* end, std::vector<LabelView>& out,
                             std::string_view* metric_name) {
  ++p;  // '{'
  bool first = true;
  while (true) {
    SkipSpace(p, end);
    if (p >= end) {
      Fail("label set is missing its closing '}'");
      return false;
    }
    if (*p == '}') {
      ++p;
      return true;
    }
    std::string_view name;
    if (*p == '"') {
      if (!ParseQuoted(p, end, name)) {
        Fail("quoted name is missing its closing quote");
        return false;
      }
      SkipSpace(p, end);
      if (p < end && (*p == ',' || *p == '}')) {
        if (metric_name == nullptr || !first || !metric_name->empty()) {
          Fail(StrCat("quoted name \"", Clip(name), "\" has no value; only the first item may be ",
                      "a bare quoted metric name"));
          return false;
        }
        *metric_name = name;
        first = false;
        if (*p == ',') ++p;
        continue;
      }
    } else {
      const char* start = p;
      if (!kChars.label_start[U(*p)]) {
        Fail(StrCat("expected a label name", Found(p, end)));
        return false;
      }
      ++p;
      while (p < end && kChars.label_char[U(*p)]) ++p;
      name = std::string_view(start, static_cast<size_t>(p - start));
      SkipSpace(p, end);
    }
    first = false;
    if (p >= end || *p != '=') {
      Fail(StrCat("expected '=' after label name \"", Clip(name), "\"", Found(p, end)));
      return false;
    }
    ++p;
    SkipSpace(p, end);
    if (p >= end || *p != '"') {
      Fail(StrCat("label value for \"", Clip(name), "\" must start with a quote", Found(p, end)));
      return false;
    }
    std::string_view value;
    if (!ParseQuoted(p, end, value)) {
      Fail(StrCat("label value for \"", Clip(name), "\" is missing its closing quote"));
      return false;
    }
    out.push_back(LabelView{name, value});
    SkipSpace(p, end);
    if (p < end && *p == ',') {
      ++p;
      continue;
    }
    if (p < end && *p == '}') {
      ++p;
      return true;
    }
    Fail(StrCat("expected ',' or '}' after the value of label \"", Clip(name), "\"", Found(p, end)));
    return false;
  }
}

bool LineParser::CheckDuplicateLabels(const std::vector<LabelView>& labels) {
  // Past a few dozen labels the signature below fills up and every label would be compared with
  // every one before it (200,000 labels on one line took 20 s): sort the names instead.
  if (labels.size() > 48) {
    std::vector<std::string_view> names;
    names.reserve(labels.size());
    for (const LabelView& l : labels) names.push_back(l.name);
    std::sort(names.begin(), names.end());
    const auto twice = std::adjacent_find(names.begin(), names.end());
    if (twice == names.end()) return true;
    Fail(StrCat("label name \"", Clip(*twice), "\" appears more than once"));
    return false;
  }
  // A 64-bit signature of each name makes the common case (all distinct) one pass; only a
  // signature collision pays for the string comparisons.
  uint64_t seen = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const std::string_view n = labels[i].name;
    const uint64_t bit = uint64_t{1} << ((n.size() * 7 + (n.empty() ? 0 : U(n.back()))) & 63);
    if ((seen & bit) != 0) {
      for (size_t j = 0; j < i; ++j) {
        if (labels[j].name == n) {
          Fail(StrCat("label name \"", Clip(n), "\" appears more than once"));
          return false;
        }
      }
    }
    seen |= bit;
  }
  return true;
}

bool LineParser::IsCreatedSample(std::string_view name) {
  constexpr std::string_view kSuffix = "_created";
  if (name.size() <= kSuffix.size() || !name.ends_with(kSuffix)) return false;
  key_.assign(name.substr(0, name.size() - kSuffix.size()));
  auto it = types_.find(key_);
  if (it == types_.end()) {
    key_.append("_total");  // text-format counters are typed under their "_total" name
    it = types_.find(key_);
    if (it == types_.end()) return false;
  }
  switch (it->second) {
    case MetricType::kCounter:
    case MetricType::kHistogram:
    case MetricType::kSummary:
    case MetricType::kGaugeHistogram:
      return true;
    default:
      return false;
  }
}

const KnownSeries::Entry* LineParser::Learn(std::string_view text, std::string_view name) {
  // Only a series seen before with others in between is remembered: one whose samples are all
  // together (a file written series by series) gains nothing from the table that the readers'
  // memo of the series just read does not give, and would only fill it.
  const uint64_t h = Hash64(text);
  if (seen_.empty()) seen_.assign(kSeenWords, 0);
  const uint64_t bit = h >> (64 - kSeenBits);
  uint64_t& word = seen_[bit / 64];
  const uint64_t mask = uint64_t{1} << (bit % 64);
  const bool again = (word & mask) != 0 && h != last_hash_;
  word |= mask;
  last_hash_ = h;
  if (!again || !KeepRemembering()) return nullptr;
  return known_.Add(text, h, name, labels_);
}

bool LineParser::KeepRemembering() {
  if (known_.size() < next_check_) return true;
  // The table pays where each series comes back many times (many scrapes of a cluster); where
  // series come back a few times only (a few scrapes of a large one), remembering them costs more
  // than it saves.
  if (remembered_hits_ >= 4 * known_.size()) {
    next_check_ *= 2;
    return true;
  }
  remember_series_ = false;
  known_ = KnownSeries();
  seen_ = {};
  last_known_ = nullptr;
  return false;
}

LineResult LineParser::ParseSample(const char* p, const char* end) {
  labels_.clear();
  SampleView s;
  s.line = line_no_;
  const char* const series_start = p;
  const KnownSeries::Entry* known = nullptr;
  const char* series_end = nullptr;
  if (remember_series_) {
    series_end = FollowingSeriesEnd(p, end, last_known_, known);
    if (series_end == nullptr) series_end = KnownSeriesEnd(p, end, known_, known);
    if (series_end == nullptr) series_end = SeriesTextEnd(p, end);
  }
  const std::string_view series_text =
      series_end == nullptr ? std::string_view()
                            : std::string_view(p, static_cast<size_t>(series_end - p));
  if (known == nullptr && series_end != nullptr) known = known_.Find(series_text);
  if (remember_series_) {
    ++remembered_lines_;
    if (known != nullptr) ++remembered_hits_;
  }
  if (known != nullptr) {
    s.name = known->name;
    p = series_end;
  } else if (*p != '{') {
    const char* start = p;
    if (!kChars.metric_start[U(*p)]) return Fail(StrCat("expected a metric name", Found(p, end)));
    ++p;
    while (p < end && kChars.metric_char[U(*p)]) ++p;
    s.name = std::string_view(start, static_cast<size_t>(p - start));
    if (p < end && *p != '{') {
      const char* after_name = p;
      SkipSpace(p, end);
      if (p == end || *p != '{') p = after_name;  // no label set: the space belongs to the value
    }
    if (p < end && *p == '{' && !ParseLabels(p, end, labels_, nullptr)) return LineResult::kError;
  } else {
    if (!ParseLabels(p, end, labels_, &s.name)) return LineResult::kError;
    if (s.name.empty()) return Fail("label set has no metric name");
  }
  if (known == nullptr && labels_.size() > 1 && !CheckDuplicateLabels(labels_)) {
    return LineResult::kError;
  }
  const bool learn =
      known == nullptr && series_end != nullptr && p == series_end && p > series_start;

  if (p >= end || !IsSpace(*p)) {
    if (p >= end) return Fail(StrCat("metric \"", Clip(s.name), "\" has no value"));
    return Fail(StrCat("expected a space before the value of \"", Clip(s.name), "\"", Found(p, end)));
  }
  SkipSpace(p, end);
  const char* vend = TokenEnd(p, end);
  const std::string_view value_text(p, static_cast<size_t>(vend - p));
  if (value_text.empty()) return Fail(StrCat("metric \"", Clip(s.name), "\" has no value"));
  if (!ParseSampleValue(value_text, s.value)) {
    return Fail(StrCat("invalid value \"", Clip(value_text), "\" for metric \"", Clip(s.name), "\""));
  }
  p = vend;
  SkipSpace(p, end);
  if (p < end && *p != '#') {
    const char* tend = TokenEnd(p, end);
    const std::string_view ts_text(p, static_cast<size_t>(tend - p));
    if (!ParseTimestampMs(ts_text, format_, s.timestamp_ms)) {
      return Fail(StrCat("invalid timestamp \"", Clip(ts_text), "\" for metric \"", Clip(s.name), "\"",
                         format_ == ExpositionFormat::kText ? " (the text format needs integer milliseconds)"
                                                            : ""));
    }
    s.has_timestamp = true;
    p = tend;
    SkipSpace(p, end);
  }
  if (p < end) {
    if (*p != '#') return Fail(StrCat("unexpected text after the timestamp of \"", Clip(s.name), "\""));
    if (ParseExemplar(p, end) != LineResult::kOk) return LineResult::kError;
  }
  if (known != nullptr) {
    last_hash_ = known->hash;
  } else if (learn) {
    known = Learn(series_text, s.name);
  } else {
    last_hash_ = 0;
  }
  if (remember_series_) {
    if (last_known_ != nullptr && known != nullptr) last_known_->next = known;
    last_known_ = known;
    // The next line most likely is known->next, whose entry was fetched while this line was
    // read: fetch its text, and the entry after it, while this sample is handled.
    if (const KnownSeries::Entry* next = known != nullptr ? known->next : nullptr) {
      __builtin_prefetch(next->text.data());
      __builtin_prefetch(next->next);
    }
  }
  if (known != nullptr) {
    s.name = known->name;
    s.labels = known->labels;
    s.series = known->id;
  } else {
    s.labels = labels_;
  }
  if (s.name.ends_with("_created")) s.is_created = IsCreatedSample(s.name);
  ++samples_;
  handler_.OnSample(s);
  return LineResult::kOk;
}

LineResult LineParser::ParseExemplar(const char* p, const char* end) {
  // p at '#': " # {trace_id="a"} 1.0 1520879607.789"
  if (format_ == ExpositionFormat::kText) {
    return Fail("exemplars are not allowed in the Prometheus text format (use OpenMetrics)");
  }
  ++p;
  SkipSpace(p, end);
  if (p >= end || *p != '{') return Fail(StrCat("exemplar must start with '{'", Found(p, end)));
  exemplar_labels_.clear();
  if (!ParseLabels(p, end, exemplar_labels_, nullptr)) {
    error_ = StrCat("invalid exemplar: ", error_);
    return LineResult::kError;
  }
  if (exemplar_labels_.size() > 1 && !CheckDuplicateLabels(exemplar_labels_)) {
    error_ = StrCat("invalid exemplar: ", error_);
    return LineResult::kError;
  }
  SkipSpace(p, end);
  const char* vend = TokenEnd(p, end);
  double v = 0;
  const std::string_view value_text(p, static_cast<size_t>(vend - p));
  if (value_text.empty()) return Fail("exemplar has no value");
  if (!ParseSampleValue(value_text, v)) return Fail(StrCat("invalid exemplar value \"", Clip(value_text), "\""));
  p = vend;
  SkipSpace(p, end);
  if (p < end) {
    const char* tend = TokenEnd(p, end);
    const std::string_view ts_text(p, static_cast<size_t>(tend - p));
    int64_t ts = 0;
    if (!ParseTimestampMs(ts_text, ExpositionFormat::kOpenMetrics, ts)) {
      return Fail(StrCat("invalid exemplar timestamp \"", Clip(ts_text), "\""));
    }
    p = tend;
    SkipSpace(p, end);
    if (p < end) return Fail("unexpected text after the exemplar timestamp");
  }
  return LineResult::kOk;
}

bool LineParser::ParseMetadataName(const char*& p, const char* end, std::string_view& out) {
  if (p < end && *p == '"') return ParseQuoted(p, end, out);
  const char* start = p;
  if (p >= end || !kChars.metric_start[U(*p)]) return false;
  while (p < end && kChars.metric_char[U(*p)]) ++p;
  out = std::string_view(start, static_cast<size_t>(p - start));
  return p == end || IsSpace(*p);
}

LineResult LineParser::ParseComment(const char* p, const char* end) {
  ++p;  // '#'
  const char* after_hash = p;
  SkipSpace(p, end);
  if (p == after_hash) return LineResult::kOk;  // "#comment": no keyword possible
  const char* kw_end = TokenEnd(p, end);
  const std::string_view keyword(p, static_cast<size_t>(kw_end - p));
  MetadataView md{};
  md.line = line_no_;
  if (keyword == "EOF") {
    const char* rest = kw_end;
    SkipSpace(rest, end);
    if (rest == end && format_ != ExpositionFormat::kText) return LineResult::kEof;
    return LineResult::kOk;
  }
  if (keyword == "HELP") {
    md.kind = MetadataKind::kHelp;
  } else if (keyword == "TYPE") {
    md.kind = MetadataKind::kType;
  } else if (keyword == "UNIT" && format_ != ExpositionFormat::kText) {
    md.kind = MetadataKind::kUnit;
  } else {
    return LineResult::kOk;  // an ordinary comment
  }
  p = kw_end;
  SkipSpace(p, end);
  if (p >= end) return Fail(StrCat(keyword, " line is missing the metric name"));
  if (!ParseMetadataName(p, end, md.family)) {
    return Fail(StrCat("invalid metric name in ", keyword, " line", Found(p, end)));
  }
  if (p < end) ++p;  // the one space separating name and text
  if (md.kind == MetadataKind::kHelp) {
    // HELP escapes: \\ and \n (text format), plus \" (OpenMetrics).
    const std::string_view raw(p, static_cast<size_t>(end - p));
    if (raw.find('\\') == std::string_view::npos) {
      md.text = raw;
    } else {
      help_.clear();
      for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '\\' && i + 1 < raw.size()) {
          const char e = raw[++i];
          if (e == 'n') {
            help_.push_back('\n');
          } else if (e == '\\' || e == '"') {
            help_.push_back(e);
          } else {
            help_.push_back('\\');
            help_.push_back(e);
          }
        } else {
          help_.push_back(raw[i]);
        }
      }
      md.text = help_;
    }
  } else {
    SkipSpace(p, end);
    const char* tend = TokenEnd(p, end);
    md.text = std::string_view(p, static_cast<size_t>(tend - p));
    const char* rest = tend;
    SkipSpace(rest, end);
    if (rest != end) return Fail(StrCat("unexpected text after the ", keyword, " of \"", Clip(md.family), "\""));
    if (md.kind == MetadataKind::kType) {
      if (md.text.empty()) return Fail(StrCat("TYPE line for \"", Clip(md.family), "\" is missing the type"));
      if (!ParseTypeName(md.text, md.type)) {
        return Fail(StrCat("unknown metric type \"", Clip(md.text), "\" for \"", Clip(md.family), "\""));
      }
      types_.insert_or_assign(std::string(md.family), md.type);
    }
  }
  handler_.OnMetadata(md);
  return LineResult::kOk;
}

}  // namespace gpucost::exposition_internal
