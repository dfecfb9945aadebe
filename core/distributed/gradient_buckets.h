// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// LibTorch types: include only from files that include LibTorch first.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

// Gradients summed over the ranks in buckets while the backward pass is still running, as
// PyTorch's DistributedDataParallel does: parameters are grouped, last first (the order their
// gradients come in), into buckets of about bucketBytes; a bucket's sum starts as soon as its
// last gradient is ready, while autograd goes on with the earlier layers. Buckets start in one
// fixed order on every rank, whatever order their gradients came in, because collectives must
// match across ranks.
namespace dice {

class Communicator;
class PendingCollective;

class GradientBuckets {
public:
    GradientBuckets(std::vector<at::Tensor> parameters, Communicator& communicator,
                    std::int64_t bucketBytes);
    ~GradientBuckets();
    GradientBuckets(const GradientBuckets&) = delete;
    GradientBuckets& operator=(const GradientBuckets&) = delete;

    // The next backward pass is the last of this rank's accumulation window: as each parameter's
    // gradient arrives, it is added to what the parameter's .grad already holds and goes to its
    // bucket.
    void arm();
    // Ends the window: starts the buckets no backward started (a rank that had no micro-batch in
    // the window, parameters that got no gradient), waits for every sum, and leaves each
    // parameter's .grad holding the sum over ranks.
    void finish();

    std::size_t bucketCount() const { return m_buckets.size(); }
    // Buckets started from inside a backward pass since the last finish(): the overlap.
    int startedDuringBackward() const { return m_startedDuringBackward; }

private:
    struct Bucket {
        std::vector<std::size_t> parameters;
        std::vector<std::int64_t> offsets; // into flat, per parameter
        at::Tensor flat;
        std::size_t ready = 0;
        std::unique_ptr<PendingCollective> pending;
    };
    void onGradient(std::size_t parameter, const at::Tensor& gradient);
    void startReadyBuckets();
    void start(Bucket& bucket);

    std::vector<at::Tensor> m_parameters;
    Communicator& m_communicator;
    std::vector<Bucket> m_buckets;
    std::vector<std::size_t> m_bucketOf;
    std::vector<std::size_t> m_slotOf;
    std::vector<bool> m_arrived;
    std::size_t m_nextToStart = 0;
    bool m_armed = false;
    int m_startedDuringBackward = 0;
    // Autograd may run hooks on its own threads (one per device).
    std::mutex m_mutex;
};

} // namespace dice
