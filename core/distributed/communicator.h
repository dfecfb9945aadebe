// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// LibTorch types: include only from files that include LibTorch first.
#include "core/distributed/rank_environment.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// The ranks of a data-parallel run talking to each other through LibTorch's c10d: Gloo between
// CPU processes, NCCL between GPUs. Every rank must call the same collectives in the same order;
// the classes built on this one (gradient buckets, the sharded optimiser, the trainer) keep to
// that by deciding everything they do from data every rank holds alike.
namespace dice {

// A collective started and not yet waited for.
class PendingCollective {
public:
    virtual ~PendingCollective() = default;
    virtual void wait() = 0;
};

class Communicator {
public:
    virtual ~Communicator() = default;

    // Joins the run `env` describes (rank 0 serves the rendezvous at MASTER_ADDR:MASTER_PORT)
    // with the backend for `device`: NCCL for a CUDA device, Gloo for the CPU. Throws
    // dice::Error when this build's LibTorch lacks that backend or the others do not come
    // within `timeout`.
    static std::unique_ptr<Communicator>
    connect(const RankEnvironment& env, const c10::Device& device, std::chrono::seconds timeout);
    // Whether this build can join a run on that kind of device, and if not, why.
    static bool available(const c10::Device& device, std::string* why = nullptr);

    virtual int rank() const = 0;
    virtual int size() const = 0;
    // "gloo" or "nccl".
    virtual std::string backend() const = 0;
    // The device collectives run on; tensors passed in must be there.
    virtual c10::Device device() const = 0;

    // The element-wise sum over ranks, in place.
    virtual std::unique_ptr<PendingCollective> allReduceSum(at::Tensor tensor) = 0;
    void allReduceSumNow(at::Tensor tensor) { allReduceSum(std::move(tensor))->wait(); }
    // Every rank's `piece` (the same shape on every rank) into `gathered`, rank by rank along the
    // first dimension: gathered has size() times piece's first dimension.
    virtual void allGather(const at::Tensor& piece, at::Tensor gathered) = 0;
    // rank root's tensor to every rank, in place.
    virtual void broadcast(at::Tensor tensor, int root) = 0;
    virtual void barrier() = 0;

    // Every rank's text, in rank order.
    std::vector<std::string> allGatherText(const std::string& text);
    // Whether any rank said yes.
    bool any(bool yes);
};

} // namespace dice
