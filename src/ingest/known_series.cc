#include "ingest/known_series.h"

#include "ingest/exposition_chars.h"

namespace gpucost::exposition_internal {
namespace {

// The first '"', '}' or '\\' in [p, end), or end: what ends or escapes a label set's parts.
inline const char* FindSeriesDelimiter(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i close = _mm_set1_epi8('}');
  const __m128i slash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hit =
        _mm_or_si128(_mm_cmpeq_epi8(chunk, quote),
                     _mm_or_si128(_mm_cmpeq_epi8(chunk, close), _mm_cmpeq_epi8(chunk, slash)));
    const int mask = _mm_movemask_epi8(hit);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '}' && *p != '\\') ++p;
  return p;
}

}  // namespace

const char* SeriesTextEnd(const char* p, const char* end) {
  if (*p != '{') {
    ++p;
    while (p < end && kChars.metric_char[U(*p)]) ++p;
    if (p == end) return nullptr;
    if (*p != '{') {
      if (!IsSpace(*p)) return nullptr;
      const char* q = p;
      SkipSpace(q, end);
      return q < end && *q == '{' ? nullptr : p;  // `name {...}`: not a form taken
    }
  }
  bool quoted = false;
  for (p = FindSeriesDelimiter(p + 1, end); p < end; p = FindSeriesDelimiter(p, end)) {
    if (*p == '"') {
      quoted = !quoted;
      ++p;
    } else if (*p == '\\') {
      p += quoted ? 2 : 1;  // inside quotes it escapes the next character
    } else if (quoted) {
      ++p;  // a '}' inside a value
    } else {
      return p + 1;
    }
  }
  return nullptr;
}

const char* KnownSeriesEnd(const char* p, const char* end, const KnownSeries& known_series,
                           const KnownSeries::Entry*& out) {
  const char* q = end;
  for (int tokens = 0; tokens < 2; ++tokens) {
    while (q > p && IsSpace(q[-1])) --q;
    while (q > p && !IsSpace(q[-1])) --q;  // q: the start of the last token left
    const char* series_end = q;
    while (series_end > p && IsSpace(series_end[-1])) --series_end;
    if (series_end == q || series_end == p) return nullptr;  // no space before it
    if (series_end[-1] != '}') continue;
    out = known_series.Find(std::string_view(p, static_cast<size_t>(series_end - p)));
    if (out != nullptr) return series_end;
  }
  return nullptr;
}

}  // namespace gpucost::exposition_internal
