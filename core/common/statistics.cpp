// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dice {

double median(std::vector<double> samples) {
    if (samples.empty())
        return 0;
    std::sort(samples.begin(), samples.end());
    const std::size_t mid = samples.size() / 2;
    return samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
}

double mean(const std::vector<double>& samples) {
    if (samples.empty())
        return 0;
    return std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
}

double sampleStandardDeviation(const std::vector<double>& samples) {
    if (samples.size() < 2)
        return 0;
    const double centre = mean(samples);
    double sum = 0;
    for (double s : samples)
        sum += (s - centre) * (s - centre);
    return std::sqrt(sum / (samples.size() - 1));
}

} // namespace dice
