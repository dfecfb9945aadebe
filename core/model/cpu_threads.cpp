// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/model/cpu_threads.h"

#include <algorithm>
#include <thread>

namespace dice {

int setCpuThreads(int threads) {
    if (threads <= 0)
        threads = static_cast<int>(std::thread::hardware_concurrency());
    if (threads > 0 && at::get_num_threads() != threads)
        at::set_num_threads(threads);
    return at::get_num_threads();
}

int defaultCpuThreads(std::int64_t parameters) {
    if (parameters <= kOneThreadParameters)
        return 1;
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

} // namespace dice
