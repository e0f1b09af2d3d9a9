// The statistics of the timing tests (timing_test.cpp): medians, and the
// comparison of two cases sampled in the same rounds. Robust statistics
// only (medians, trimmed means), since a shared two-core machine adds rare,
// very long outliers to any latency sample.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace authd::test {

inline double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// Two cases timed in the same rounds, compared by their per-round
// differences: a drift of the machine over the run (another process
// starting, the database growing) moves both samples of a round alike and
// cancels out.
struct PairedComparison {
  double difference = 0;      // ms, first minus second: the 20% trimmed mean
  double standard_error = 0;  // ms, of that mean
  double bound = 0;           // ms: what |difference| may reach
};

// The 20% trimmed mean of the differences (the middle 60% of them,
// averaged), not their median: a cost that only part of one case's
// requests pay (a lock wait, a flush that one more write sometimes
// triggers) moves the median of the differences only once it hits more
// than half of them, but moves the trimmed mean in proportion; the
// trimming still drops the outliers of a shared machine. Its standard
// error comes from the winsorized spread (Tukey and McLaughlin). The bound
// is four standard errors, never less than 10 microseconds: with no real
// difference, a mean beyond four standard errors is a 1-in-15,000 event,
// while one PostgreSQL round trip over loopback (about 45 us on the test
// machine) is many standard errors wide with the thousands of rounds the
// /forgot test takes. The 10 us floor absorbs effects of the address
// itself rather than of its account: on SQLite, events of the key that
// sorts last in the index append to its rightmost page, a few microseconds
// cheaper than inserts in the middle.
inline PairedComparison compare_paired(const std::vector<double>& first,
                                       const std::vector<double>& second) {
  std::vector<double> d;
  for (std::size_t i = 0; i < first.size() && i < second.size(); ++i)
    d.push_back(first[i] - second[i]);
  std::sort(d.begin(), d.end());
  const std::size_t n = d.size();
  const std::size_t cut = n / 5;
  double sum = 0;
  for (std::size_t i = cut; i < n - cut; ++i) sum += d[i];
  PairedComparison result;
  result.difference = sum / static_cast<double>(n - 2 * cut);
  // Winsorized: the cut values replaced by the nearest kept one.
  double mean = 0;
  for (std::size_t i = 0; i < n; ++i) mean += std::clamp(d[i], d[cut], d[n - cut - 1]);
  mean /= static_cast<double>(n);
  double squares = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double w = std::clamp(d[i], d[cut], d[n - cut - 1]) - mean;
    squares += w * w;
  }
  double spread = std::sqrt(squares / static_cast<double>(n - 1));
  result.standard_error = spread / (0.6 * std::sqrt(static_cast<double>(n)));
  result.bound = std::max(4.0 * result.standard_error, 0.010);
  return result;
}

inline void expect_same_time(const std::string& what, const PairedComparison& c) {
  EXPECT_LE(std::abs(c.difference), c.bound)
      << what << ": trimmed mean difference " << c.difference * 1000 << " us, bound "
      << c.bound * 1000 << " us (standard error " << c.standard_error * 1000 << " us)";
}

}  // namespace authd::test
