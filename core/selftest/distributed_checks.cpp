// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/selftest/distributed_checks.h"

#include "core/common/error.h"
#include "core/cuda/cuda_driver.h"
#include "core/cuda/device_info.h"
#include "core/distributed/communicator.h"
#include "core/distributed/rank_environment.h"
#include "core/distributed/rank_launcher.h"

#include <algorithm>
#include <thread>

namespace dice {

namespace {

// Ranks as threads of this process, each with its own process group on its own device: every
// rank sums its rank + 1 over a tensor, gathers every rank's text and takes rank 0's broadcast.
// Returns the first failure, or nothing.
std::string runRanks(const std::vector<c10::Device>& devices) {
    const int size = static_cast<int>(devices.size());
    const int port = freeTcpPort();
    std::vector<std::string> failures(devices.size());
    std::vector<std::thread> threads;
    for (int r = 0; r < size; ++r)
        threads.emplace_back([&, r] {
            try {
                auto comm = Communicator::connect(rankOnThisHost(r, size, port),
                                                  devices[static_cast<std::size_t>(r)],
                                                  std::chrono::seconds(120));
                const auto options = at::TensorOptions().device(comm->device());
                at::Tensor sum = at::full({1 << 20}, static_cast<float>(r + 1), options);
                comm->allReduceSumNow(sum);
                const float expected = static_cast<float>(size * (size + 1) / 2);
                if (!sum.eq(expected).all().item<bool>())
                    throw Error("the all-reduce did not sum every rank's tensor");
                const auto texts = comm->allGatherText(std::string(r + 1, 'x'));
                for (int k = 0; k < size; ++k)
                    if (texts[static_cast<std::size_t>(k)] != std::string(k + 1, 'x'))
                        throw Error("the gathered texts are not every rank's, in rank order");
                at::Tensor value = at::full({3}, static_cast<float>(r == 0 ? 7 : -1), options);
                comm->broadcast(value, 0);
                if (!value.eq(7.0f).all().item<bool>())
                    throw Error("the broadcast did not bring rank 0's tensor");
                comm->barrier();
            } catch (const std::exception& e) {
                failures[static_cast<std::size_t>(r)] =
                    "rank " + std::to_string(r) + ": " + e.what();
            }
        });
    for (auto& t : threads)
        t.join();
    for (const auto& f : failures)
        if (!f.empty())
            return f;
    return std::string();
}

void checkGloo(CheckResult& result) {
    std::string why;
    if (!Communicator::available(c10::Device(c10::kCPU), &why))
        throw SkipCheck{why};
    const std::string failure = runRanks({c10::Device(c10::kCPU), c10::Device(c10::kCPU)});
    if (!failure.empty())
        throw Error(failure);
    result.data["ranks"] = 2;
    result.message = "two Gloo ranks on the CPU: all-reduce, gathered texts and broadcast agree";
}

void checkNccl(CheckResult& result) {
    const auto& driver = cu::Driver::instance();
    if (!driver.available())
        throw SkipCheck{driver.unavailableReason()};
    std::string why;
    if (!Communicator::available(c10::Device(c10::kCUDA, 0), &why))
        throw SkipCheck{why};
    const auto gpus = queryDevices();
    if (gpus.empty())
        throw SkipCheck{"no GPU"};
    // One rank per GPU, as dice train rl --nproc starts them (threads here).
    std::vector<c10::Device> devices;
    for (std::size_t i = 0; i < std::min<std::size_t>(gpus.size(), 8); ++i)
        devices.emplace_back(c10::kCUDA, static_cast<c10::DeviceIndex>(i));
    const std::string failure = runRanks(devices);
    if (!failure.empty())
        throw Error(failure);
    result.data["ranks"] = devices.size();
    result.message = std::to_string(devices.size()) +
                     " NCCL rank(s), one per GPU: all-reduce, gathered texts and broadcast agree";
}

} // namespace

void addDistributedChecks(std::vector<SelfTestCheck>& checks) {
    checks.push_back({"cpu.gloo", "cpu",
                      "two ranks of a data-parallel run on the CPU talk through Gloo", checkGloo});
    checks.push_back({"gpu.nccl", "gpu",
                      "one rank per GPU of a data-parallel run talks through NCCL", checkNccl});
}

} // namespace dice
