// SPDX-License-Identifier: GPL-3.0-or-later
// c10d's headers declare their backends only under USE_C10D_GLOO and USE_C10D_NCCL, which the
// build sets where the LibTorch it found has them (CMakeLists.txt: DICE_C10D_GLOO, DICE_C10D_NCCL).
#if DICE_C10D_GLOO && !defined(USE_C10D_GLOO)
#define USE_C10D_GLOO
#endif
#if DICE_C10D_NCCL && !defined(USE_C10D_NCCL)
#define USE_C10D_NCCL
#endif

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#if DICE_C10D_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#if DICE_C10D_NCCL
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "core/distributed/communicator.h"

#include "core/common/error.h"

#include <cstdlib>

namespace dice {

namespace {

template <class Work>
class PendingWork : public PendingCollective {
public:
    explicit PendingWork(c10::intrusive_ptr<Work> work)
        : m_work(std::move(work)) {}
    void wait() override {
        if (m_work) {
            m_work->wait();
            m_work.reset();
        }
    }

private:
    c10::intrusive_ptr<Work> m_work;
};

template <class Work>
std::unique_ptr<PendingCollective> pending(c10::intrusive_ptr<Work> work) {
    return std::make_unique<PendingWork<Work>>(std::move(work));
}

template <class Group>
class GroupCommunicator : public Communicator {
public:
    GroupCommunicator(c10::intrusive_ptr<c10d::Store> store, c10::intrusive_ptr<Group> group,
                      int rank, int size, std::string backend, c10::Device device)
        : m_store(std::move(store))
        , m_group(std::move(group))
        , m_rank(rank)
        , m_size(size)
        , m_backend(std::move(backend))
        , m_device(device) {}

    int rank() const override { return m_rank; }
    int size() const override { return m_size; }
    std::string backend() const override { return m_backend; }
    c10::Device device() const override { return m_device; }

    std::unique_ptr<PendingCollective> allReduceSum(at::Tensor tensor) override {
        std::vector<at::Tensor> tensors{std::move(tensor)};
        return pending(m_group->allreduce(tensors));
    }

    void allGather(const at::Tensor& piece, at::Tensor gathered) override {
        std::vector<at::Tensor> inputs{piece.contiguous()};
        std::vector<std::vector<at::Tensor>> outputs(1);
        const std::int64_t rows = piece.dim() == 0 ? 1 : piece.size(0);
        for (int r = 0; r < m_size; ++r)
            outputs[0].push_back(gathered.narrow(0, r * rows, rows));
        m_group->allgather(outputs, inputs)->wait();
    }

    void broadcast(at::Tensor tensor, int root) override {
        std::vector<at::Tensor> tensors{std::move(tensor)};
        c10d::BroadcastOptions options;
        options.rootRank = root;
        m_group->broadcast(tensors, options)->wait();
    }

    void barrier() override { m_group->barrier()->wait(); }

private:
    // The group talks through the store for as long as it lives.
    c10::intrusive_ptr<c10d::Store> m_store;
    c10::intrusive_ptr<Group> m_group;
    int m_rank;
    int m_size;
    std::string m_backend;
    c10::Device m_device;
};

} // namespace

bool Communicator::available(const c10::Device& device, std::string* why) {
    std::string reason;
    if (device.is_cuda()) {
#if !DICE_C10D_NCCL
        reason = "this build's LibTorch has no NCCL process group, which several GPUs need";
#endif
    } else {
#if !DICE_C10D_GLOO
        reason = "this build's LibTorch has no Gloo process group (or its headers were missing "
                 "when it was built), which several CPU processes need";
#endif
    }
    if (why)
        *why = reason;
    return reason.empty();
}

std::unique_ptr<Communicator> Communicator::connect(const RankEnvironment& env,
                                                    const c10::Device& device,
                                                    std::chrono::seconds timeout) {
    std::string why;
    if (!available(device, &why))
        throw Error(why);
    c10d::TCPStoreOptions storeOptions;
    storeOptions.port = static_cast<std::uint16_t>(env.masterPort);
    storeOptions.isServer = env.rank == 0;
    storeOptions.numWorkers = static_cast<std::size_t>(env.size);
    storeOptions.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
    c10::intrusive_ptr<c10d::Store> store;
    try {
        store = c10::make_intrusive<c10d::TCPStore>(env.masterAddress, storeOptions);
    } catch (const std::exception& e) {
        throw Error("rank " + std::to_string(env.rank) + " could not meet the others at " +
                    env.masterAddress + ":" + std::to_string(env.masterPort) + ": " +
                    std::string(e.what()).substr(0, 300));
    }
    try {
        if (device.is_cuda()) {
#if DICE_C10D_NCCL
            c10::cuda::set_device(device.index());
            auto options = c10d::ProcessGroupNCCL::Options::create();
            options->timeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
            auto group =
                c10::make_intrusive<c10d::ProcessGroupNCCL>(store, env.rank, env.size, options);
            return std::make_unique<GroupCommunicator<c10d::ProcessGroupNCCL>>(
                store, group, env.rank, env.size, "nccl", device);
#endif
        } else {
#if DICE_C10D_GLOO
            auto options = c10d::ProcessGroupGloo::Options::create(
                std::chrono::duration_cast<std::chrono::milliseconds>(timeout));
            // Gloo binds to an address of this host: the interface the user names, the loopback
            // when the run stays on one host, else the address the host name resolves to.
            if (const char* name = std::getenv("GLOO_SOCKET_IFNAME"); name && *name)
                options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(name));
            else if (env.masterAddress == "127.0.0.1" || env.masterAddress == "localhost")
                options->devices.push_back(
                    c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
            else
                options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
            auto group =
                c10::make_intrusive<c10d::ProcessGroupGloo>(store, env.rank, env.size, options);
            return std::make_unique<GroupCommunicator<c10d::ProcessGroupGloo>>(
                store, group, env.rank, env.size, "gloo", device);
#endif
        }
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error("rank " + std::to_string(env.rank) +
                    " could not set up its process group: " + std::string(e.what()).substr(0, 300));
    }
    throw Error("no process group for " + device.str());
}

std::vector<std::string> Communicator::allGatherText(const std::string& text) {
    const auto options = at::TensorOptions().device(device());
    at::Tensor length =
        at::tensor({static_cast<std::int64_t>(text.size())}, at::kLong).to(device());
    at::Tensor lengths = at::zeros({size()}, options.dtype(at::kLong));
    allGather(length, lengths);
    const at::Tensor counts = lengths.cpu();
    std::int64_t longest = 0;
    for (int r = 0; r < size(); ++r)
        longest = std::max(longest, counts[r].item<std::int64_t>());
    // Collectives need one shape on every rank: each text is padded to the longest.
    at::Tensor mine = at::zeros({std::max<std::int64_t>(longest, 1)}, at::kByte);
    std::copy(text.begin(), text.end(), mine.data_ptr<std::uint8_t>());
    at::Tensor all = at::zeros({size() * mine.size(0)}, options.dtype(at::kByte));
    allGather(mine.to(device()), all);
    const at::Tensor bytes = all.cpu();
    std::vector<std::string> texts;
    for (int r = 0; r < size(); ++r) {
        const auto* start = bytes.data_ptr<std::uint8_t>() + r * mine.size(0);
        texts.emplace_back(reinterpret_cast<const char*>(start),
                           static_cast<std::size_t>(counts[r].item<std::int64_t>()));
    }
    return texts;
}

bool Communicator::any(bool yes) {
    at::Tensor flag = at::tensor({yes ? 1 : 0}, at::kInt).to(device());
    allReduceSumNow(flag);
    return flag.cpu().item<int>() > 0;
}

} // namespace dice
