// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/distributed/gradient_buckets.h"

#include "core/distributed/communicator.h"

namespace dice {

GradientBuckets::GradientBuckets(std::vector<at::Tensor> parameters, Communicator& communicator,
                                 std::int64_t bucketBytes)
    : m_parameters(std::move(parameters))
    , m_communicator(communicator) {
    const std::size_t count = m_parameters.size();
    m_bucketOf.assign(count, 0);
    m_slotOf.assign(count, 0);
    m_arrived.assign(count, false);
    // Last parameters first: the backward pass reaches the output layers first.
    Bucket current;
    std::int64_t bytes = 0;
    std::int64_t elements = 0;
    for (std::size_t k = count; k-- > 0;) {
        const at::Tensor& p = m_parameters[k];
        current.parameters.push_back(k);
        current.offsets.push_back(elements);
        elements += p.numel();
        bytes += p.numel() * static_cast<std::int64_t>(p.element_size());
        if (bytes >= bucketBytes || k == 0) {
            current.flat = at::zeros({elements}, p.options().requires_grad(false));
            m_buckets.push_back(std::move(current));
            current = Bucket();
            bytes = 0;
            elements = 0;
        }
    }
    for (std::size_t b = 0; b < m_buckets.size(); ++b)
        for (std::size_t s = 0; s < m_buckets[b].parameters.size(); ++s) {
            m_bucketOf[m_buckets[b].parameters[s]] = b;
            m_slotOf[m_buckets[b].parameters[s]] = s;
        }
    for (std::size_t k = 0; k < count; ++k) {
        at::Tensor p = m_parameters[k];
        if (p.requires_grad())
            p.register_hook([this, k](const at::Tensor& gradient) { onGradient(k, gradient); });
    }
}

GradientBuckets::~GradientBuckets() = default;

void GradientBuckets::arm() {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_armed = true;
    m_startedDuringBackward = 0;
}

void GradientBuckets::onGradient(std::size_t parameter, const at::Tensor& gradient) {
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_armed || m_arrived[parameter])
        return;
    Bucket& bucket = m_buckets[m_bucketOf[parameter]];
    const at::Tensor& p = m_parameters[parameter];
    at::Tensor slot = bucket.flat.narrow(0, bucket.offsets[m_slotOf[parameter]], p.numel());
    // The hook runs before autograd adds this gradient to .grad, which holds the window's earlier
    // micro-batches.
    at::NoGradGuard noGrad;
    if (p.grad().defined())
        at::add_out(slot, p.grad().reshape({-1}), gradient.reshape({-1}));
    else
        slot.copy_(gradient.reshape({-1}));
    m_arrived[parameter] = true;
    ++bucket.ready;
    const std::size_t before = m_nextToStart;
    startReadyBuckets();
    m_startedDuringBackward += static_cast<int>(m_nextToStart - before);
}

void GradientBuckets::startReadyBuckets() {
    while (m_nextToStart < m_buckets.size() &&
           m_buckets[m_nextToStart].ready == m_buckets[m_nextToStart].parameters.size())
        start(m_buckets[m_nextToStart++]);
}

void GradientBuckets::start(Bucket& bucket) {
    bucket.pending = m_communicator.allReduceSum(bucket.flat);
}

void GradientBuckets::finish() {
    const std::lock_guard<std::mutex> lock(m_mutex);
    at::NoGradGuard noGrad;
    for (; m_nextToStart < m_buckets.size(); ++m_nextToStart) {
        Bucket& bucket = m_buckets[m_nextToStart];
        for (std::size_t s = 0; s < bucket.parameters.size(); ++s) {
            const std::size_t k = bucket.parameters[s];
            if (m_arrived[k])
                continue;
            const at::Tensor& p = m_parameters[k];
            at::Tensor slot = bucket.flat.narrow(0, bucket.offsets[s], p.numel());
            if (p.grad().defined())
                slot.copy_(p.grad().reshape({-1}));
            else
                slot.zero_();
        }
        start(bucket);
    }
    for (Bucket& bucket : m_buckets) {
        bucket.pending->wait();
        bucket.pending.reset();
        for (std::size_t s = 0; s < bucket.parameters.size(); ++s) {
            at::Tensor p = m_parameters[bucket.parameters[s]];
            const at::Tensor sum = bucket.flat.narrow(0, bucket.offsets[s], p.numel()).view_as(p);
            if (p.grad().defined())
                p.mutable_grad().copy_(sum);
            else
                p.mutable_grad() = sum.clone();
        }
        bucket.ready = 0;
    }
    m_arrived.assign(m_arrived.size(), false);
    m_nextToStart = 0;
    m_armed = false;
}

} // namespace dice
