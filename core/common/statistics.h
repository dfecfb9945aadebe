// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

// Summaries of measured samples (timings), one definition for every caller so that a median in a
// result file means the same thing wherever it was computed.
namespace dice {

// The middle sample, or the mean of the two middle ones for an even count; 0 without samples.
double median(std::vector<double> samples);
// 0 without samples.
double mean(const std::vector<double>& samples);
// The sample standard deviation (n - 1 in the denominator); 0 for fewer than two samples.
double sampleStandardDeviation(const std::vector<double>& samples);

} // namespace dice
