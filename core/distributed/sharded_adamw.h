// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// LibTorch types: include only from files that include LibTorch first.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

// AdamW with its moments split over the ranks (ZeRO stage 1): the parameters, laid end to end,
// are cut into one contiguous shard per rank; each rank keeps the two moments of its shard only,
// updates its shard of the parameters from the full gradient (already summed over the ranks), and
// the ranks then gather each other's updated shards. With one rank (or no communicator) it is
// plain AdamW, and it computes every element as LibTorch's torch::optim::AdamW does, so that a
// run gives the same weights whatever the number of ranks (tst_distributed checks both).
namespace dice {

class Communicator;

struct AdamWSettings {
    double learningRate = 1e-6;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double epsilon = 1e-8;
    double weightDecay = 0.0;
};

class ShardedAdamW {
public:
    // communicator may be null: one rank.
    ShardedAdamW(std::vector<at::Tensor> parameters, const AdamWSettings& settings,
                 Communicator* communicator);

    // One update from every parameter's .grad (a missing gradient counts as zero); a collective:
    // every rank calls it.
    void step();
    // Gradients to zero (they stay allocated, as the next backward pass fills them again).
    void zeroGrad();
    std::int64_t steps() const { return m_steps; }

    // The state as one file that does not depend on the number of ranks: every parameter's two
    // moments under "exp_avg.K" and "exp_avg_sq.K" (K its place among the parameters) and the
    // step count. A collective; rank 0 writes.
    void save(const std::string& path);
    // Every rank reads its shard of a file save() wrote, whatever the number of ranks then.
    // Throws dice::FileError when the file does not fit these parameters.
    void load(const std::string& path);

    // Elements of the moments this rank keeps.
    std::int64_t shardElements() const { return m_shardEnd - m_shardStart; }

private:
    // Calls f(parameter, offset in parameter, offset in the range, count) for each parameter
    // that overlaps [start, start + length) of the parameters laid end to end.
    template <class F>
    void forEachPiece(std::int64_t start, std::int64_t length, F&& f) const;
    void gatherParameters();

    std::vector<at::Tensor> m_parameters;
    std::vector<std::int64_t> m_offsets; // where each parameter starts, end to end
    AdamWSettings m_settings;
    Communicator* m_communicator;
    int m_rank = 0;
    int m_ranks = 1;
    std::int64_t m_total = 0;
    std::int64_t m_shardSize = 0; // every rank's shard has this size, the last one padded
    std::int64_t m_shardStart = 0;
    std::int64_t m_shardEnd = 0;
    at::Tensor m_expAvg;   // [shardElements] float32
    at::Tensor m_expAvgSq; // [shardElements] float32
    std::int64_t m_steps = 0;
};

} // namespace dice
