// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/common/error.h"
#include "core/diffusion/network.h"
#include "core/diffusion/sdar_sampler.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <set>

using dice::DecodeStep;
using dice::RemaskStrategy;
using dice::SamplerOptions;

namespace {

std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// Logits of a cell as a pure function of everything before the block, the block's tokens and the
// cell: the "model" both the cached network and the reference decoder below evaluate.
std::uint64_t prefixHash(const std::vector<std::int64_t>& tokens, std::size_t length) {
    std::uint64_t h = 0x1234;
    for (std::size_t i = 0; i < length; ++i)
        h = mix(h ^ static_cast<std::uint64_t>(tokens[i] + 1));
    return h;
}

float cellLogit(std::uint64_t prefix, const std::int64_t* block, std::int64_t B, std::int64_t cell,
                std::int64_t v) {
    std::uint64_t h = mix(prefix ^ static_cast<std::uint64_t>(cell * 1000003));
    for (std::int64_t j = 0; j < B; ++j)
        h = mix(h ^ static_cast<std::uint64_t>(block[j] + 7));
    h = mix(h ^ static_cast<std::uint64_t>(v));
    return static_cast<float>(static_cast<double>(h >> 11) / 9007199254740992.0 * 8.0 - 4.0);
}

// A network whose cache holds token ids: prefill stores them, commit appends the block, denoising
// leaves the cache alone. Logits come from cellLogit over the cached tokens and the block. With a
// memory of `memory` positions for all rows, it admits and reserves as a paged cache does, and a
// row that outgrows its reservation is an error.
class ContextNetwork : public dice::DiffusionNetwork {
public:
    explicit ContextNetwork(std::int64_t vocab, std::int64_t memory = 0)
        : m_vocab(vocab)
        , m_memory(memory) {}
    std::int64_t logitsWidth() const override { return m_vocab; }
    void allocate(std::int64_t rows, std::int64_t capacity) override {
        m_rows.assign(static_cast<size_t>(rows), {});
        m_reserved.assign(static_cast<size_t>(rows), 0);
        m_capacity = capacity;
    }
    bool admits(std::int64_t tokens) const override {
        return m_memory == 0 || reservedTotal() + tokens <= m_memory;
    }
    void reserve(std::int64_t row, std::int64_t tokens) override {
        m_rows[static_cast<size_t>(row)].clear();
        m_reserved[static_cast<size_t>(row)] = 0;
        if (m_memory > 0 && reservedTotal() + tokens > m_memory)
            throw dice::Error("reserved past the memory");
        m_reserved[static_cast<size_t>(row)] = tokens;
        peakReserved = std::max(peakReserved, reservedTotal());
    }
    void release(std::int64_t row) override {
        m_rows[static_cast<size_t>(row)].clear();
        m_reserved[static_cast<size_t>(row)] = 0;
    }
    void prefill(const at::Tensor& tokens, const std::vector<std::int64_t>& lengths, std::int64_t,
                 std::int64_t firstRow) override {
        ++prefills;
        for (std::int64_t r = 0; r < tokens.size(0); ++r) {
            auto& row = m_rows[static_cast<size_t>(firstRow + r)];
            row.clear();
            for (std::int64_t i = 0; i < lengths[static_cast<size_t>(r)]; ++i)
                row.push_back(tokens[r][i].item<std::int64_t>());
        }
    }
    at::Tensor blockPass(const at::Tensor& tokens, const std::vector<std::uint8_t>& commit,
                         bool wantLogits) override {
        ++passes;
        const std::int64_t n = tokens.size(0), B = tokens.size(1);
        widest = std::max(widest, n);
        auto logits = at::zeros({n, B, m_vocab});
        for (std::int64_t r = 0; r < n; ++r) {
            auto& row = m_rows[static_cast<size_t>(r)];
            std::vector<std::int64_t> block(static_cast<size_t>(B));
            for (std::int64_t j = 0; j < B; ++j)
                block[static_cast<size_t>(j)] = tokens[r][j].item<std::int64_t>();
            if (static_cast<std::int64_t>(row.size()) + B > m_capacity)
                throw dice::Error("block past the capacity");
            if (m_memory > 0 &&
                static_cast<std::int64_t>(row.size()) + B > m_reserved[static_cast<size_t>(r)])
                throw dice::Error("block past the row's reservation");
            if (wantLogits) {
                const auto h = prefixHash(row, row.size());
                auto acc = logits.accessor<float, 3>();
                for (std::int64_t j = 0; j < B; ++j)
                    for (std::int64_t v = 0; v < m_vocab; ++v)
                        acc[r][j][v] = cellLogit(h, block.data(), B, j, v);
            }
            if (commit[static_cast<size_t>(r)])
                row.insert(row.end(), block.begin(), block.end());
        }
        return wantLogits ? logits : at::Tensor();
    }
    void moveRow(std::int64_t from, std::int64_t to) override {
        m_rows[static_cast<size_t>(to)] = m_rows[static_cast<size_t>(from)];
        m_reserved[static_cast<size_t>(to)] = m_reserved[static_cast<size_t>(from)];
        m_reserved[static_cast<size_t>(from)] = 0;
    }
    int prefills = 0;
    int passes = 0;
    std::int64_t widest = 0;       // most rows of one pass
    std::int64_t peakReserved = 0; // most positions reserved at once

private:
    std::int64_t reservedTotal() const {
        std::int64_t total = 0;
        for (auto r : m_reserved)
            total += r;
        return total;
    }
    std::int64_t m_vocab;
    std::int64_t m_memory;
    std::int64_t m_capacity = 0;
    std::vector<std::vector<std::int64_t>> m_rows;
    std::vector<std::int64_t> m_reserved;
};

// A network whose logits depend on the absolute position only: cell p has a peak on token
// peakToken(p) whose raw softmax probability is confidence(p); the mask token (vocab - 1) is never
// the peak.
class ScriptedNetwork : public dice::DiffusionNetwork {
public:
    ScriptedNetwork(std::int64_t vocab, std::function<double(std::int64_t)> confidence)
        : m_vocab(vocab)
        , m_confidence(std::move(confidence)) {}
    static std::int64_t peakToken(std::int64_t p) { return (p * 5 + 1) % 11; }
    std::int64_t logitsWidth() const override { return m_vocab; }
    void allocate(std::int64_t rows, std::int64_t) override { m_lengths.assign(rows, 0); }
    void prefill(const at::Tensor& tokens, const std::vector<std::int64_t>& lengths, std::int64_t,
                 std::int64_t firstRow) override {
        for (std::int64_t r = 0; r < tokens.size(0); ++r)
            m_lengths[static_cast<size_t>(firstRow + r)] = lengths[static_cast<size_t>(r)];
    }
    at::Tensor blockPass(const at::Tensor& tokens, const std::vector<std::uint8_t>& commit,
                         bool) override {
        const std::int64_t n = tokens.size(0), B = tokens.size(1);
        auto logits = at::zeros({n, B, m_vocab});
        auto acc = logits.accessor<float, 3>();
        for (std::int64_t r = 0; r < n; ++r) {
            const std::int64_t start = m_lengths[static_cast<size_t>(r)];
            for (std::int64_t j = 0; j < B; ++j) {
                const double c = m_confidence(start + j);
                // Softmax over vocab - 1 candidates (the mask's logit becomes -inf in the sampler).
                acc[r][j][peakToken(start + j)] =
                    static_cast<float>(std::log(c * static_cast<double>(m_vocab - 2) / (1 - c)));
            }
            if (commit[static_cast<size_t>(r)])
                m_lengths[static_cast<size_t>(r)] += B;
        }
        return logits;
    }
    void moveRow(std::int64_t from, std::int64_t to) override {
        m_lengths[static_cast<size_t>(to)] = m_lengths[static_cast<size_t>(from)];
    }

private:
    std::int64_t m_vocab;
    std::function<double(std::int64_t)> m_confidence;
    std::vector<std::int64_t> m_lengths;
};

// The reference decoder: no cache, every step evaluates the model on the whole canvas as it is.
// Greedy decoding with raw-softmax confidences and the static or sequential strategy, then the
// answer truncated after the first stop id or at the budget.
std::vector<std::int64_t> referenceDecode(const std::vector<std::int64_t>& prompt,
                                          const SamplerOptions& o, std::int64_t vocab) {
    const std::int64_t B = o.blockLength, P = static_cast<std::int64_t>(prompt.size());
    const std::int64_t L = (P + o.maxTokens + B - 1) / B * B;
    std::vector<std::int64_t> x(static_cast<size_t>(L), o.maskId);
    std::copy(prompt.begin(), prompt.end(), x.begin());
    const auto k = dice::stepSchedule(B, o.steps);
    auto answerDone = [&] {
        for (std::int64_t p = P; p < L; ++p) {
            if (x[static_cast<size_t>(p)] == o.maskId)
                return false;
            if (std::count(o.stopIds.begin(), o.stopIds.end(), x[static_cast<size_t>(p)]))
                return true;
        }
        return true;
    };
    for (std::int64_t b = P / B * B; b < L && !answerDone(); b += B) {
        for (std::int64_t s = 0;; ++s) {
            std::vector<std::int64_t> masked;
            for (std::int64_t j = 0; j < B; ++j)
                if (x[static_cast<size_t>(b + j)] == o.maskId)
                    masked.push_back(j);
            if (masked.empty())
                break;
            const auto h = prefixHash(x, static_cast<size_t>(b));
            std::vector<std::int64_t> token(static_cast<size_t>(B));
            std::vector<double> conf(static_cast<size_t>(B));
            for (std::int64_t j = 0; j < B; ++j) {
                double best = -1e30, sum = 0;
                std::int64_t arg = 0;
                for (std::int64_t v = 0; v < vocab; ++v) {
                    if (v == o.maskId)
                        continue;
                    const double l = cellLogit(h, x.data() + b, B, j, v);
                    if (l > best)
                        best = l, arg = v;
                }
                for (std::int64_t v = 0; v < vocab; ++v)
                    if (v != o.maskId)
                        sum += std::exp(cellLogit(h, x.data() + b, B, j, v) - best);
                token[static_cast<size_t>(j)] = arg;
                conf[static_cast<size_t>(j)] = 1.0 / sum;
            }
            auto order = masked;
            if (o.strategy == RemaskStrategy::LowConfidenceStatic)
                std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t c) {
                    return conf[static_cast<size_t>(a)] > conf[static_cast<size_t>(c)];
                });
            const std::int64_t n = std::min<std::int64_t>(k[static_cast<size_t>(s)],
                                                          static_cast<std::int64_t>(order.size()));
            for (std::int64_t i = 0; i < n; ++i)
                x[static_cast<size_t>(b + order[static_cast<size_t>(i)])] =
                    token[static_cast<size_t>(order[static_cast<size_t>(i)])];
        }
    }
    std::vector<std::int64_t> answer(x.begin() + P, x.begin() + P + o.maxTokens);
    for (size_t i = 0; i < answer.size(); ++i)
        if (std::count(o.stopIds.begin(), o.stopIds.end(), answer[i])) {
            answer.resize(i + 1);
            break;
        }
    return answer;
}

SamplerOptions greedyOptions() {
    SamplerOptions o;
    o.temperature = 0;
    o.rawConfidence = true;
    o.strategy = RemaskStrategy::LowConfidenceStatic;
    o.blockLength = 4;
    o.steps = 4;
    o.maxTokens = 22;
    o.maskId = 31;
    return o;
}

// Commit order within each block: the answer positions of each Denoise event.
std::vector<std::vector<std::int64_t>> commitOrder(const std::vector<DecodeStep>& events) {
    std::vector<std::vector<std::int64_t>> out;
    for (const auto& e : events)
        if (e.kind == DecodeStep::Kind::Denoise)
            out.push_back(e.positions);
    return out;
}

const std::vector<double> kBlockConfidences = {0.30, 0.95, 0.50, 0.75};

} // namespace

class TestSdarSampler : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void schedule() {
        QCOMPARE(dice::stepSchedule(4, 4), (std::vector<std::int64_t>{1, 1, 1, 1}));
        QCOMPARE(dice::stepSchedule(8, 3), (std::vector<std::int64_t>{3, 3, 2}));
        QCOMPARE(dice::stepSchedule(5, 2), (std::vector<std::int64_t>{3, 2}));
        QCOMPARE(dice::stepSchedule(1, 1), (std::vector<std::int64_t>{1}));
        QVERIFY(dice::parseRemaskStrategy("dynamic") == RemaskStrategy::LowConfidenceDynamic);
        QVERIFY(dice::parseRemaskStrategy("entropy_bounded") == RemaskStrategy::EntropyBounded);
        QVERIFY(!dice::parseRemaskStrategy("random"));
    }

    void strategyCommitOrder_data() {
        QTest::addColumn<int>("strategy");
        QTest::addColumn<QString>("expected");
        // Cells of every block have confidences 0.30, 0.95, 0.50, 0.75 (answer starts at 0);
        // "1,3|2" means cells 1 and 3 in the first step, then cell 2.
        QTest::newRow("static") << int(RemaskStrategy::LowConfidenceStatic) << "1|3|2|0";
        QTest::newRow("sequential") << int(RemaskStrategy::Sequential) << "0|1|2|3";
        // Threshold 0.7: cells 1 and 3 pass at once, then one per step by confidence.
        QTest::newRow("dynamic") << int(RemaskStrategy::LowConfidenceDynamic) << "1,3|2|0";
        // Entropies (nats) 2.99, 0.37, 2.39, 1.41; bound 1.2: 0.37 alone (0.37 + 1.41 > 1.2),
        // then one cell per step in ascending entropy.
        QTest::newRow("entropy") << int(RemaskStrategy::EntropyBounded) << "1|3|2|0";
    }

    void strategyCommitOrder() {
        QFETCH(int, strategy);
        QFETCH(QString, expected);
        std::vector<std::vector<std::int64_t>> steps;
        for (const auto& step : expected.split('|')) {
            steps.emplace_back();
            for (const auto& cell : step.split(','))
                steps.back().push_back(cell.toLongLong());
        }
        ScriptedNetwork net(32, [](std::int64_t p) { return kBlockConfidences[p % 4]; });
        auto o = greedyOptions();
        o.strategy = static_cast<RemaskStrategy>(strategy);
        o.threshold = 0.7;
        o.ebThreshold = 1.2;
        o.maxTokens = 8;
        std::vector<DecodeStep> events;
        const auto r =
            dice::generate(net, {{}}, o, [&](const DecodeStep& e) { events.push_back(e); });
        const auto order = commitOrder(events);
        QCOMPARE(order.size(), 2 * steps.size());
        for (size_t blk = 0; blk < 2; ++blk)
            for (size_t i = 0; i < steps.size(); ++i) {
                std::vector<std::int64_t> want;
                for (auto p : steps[i])
                    want.push_back(p + 4 * static_cast<std::int64_t>(blk));
                QCOMPARE(order[blk * steps.size() + i], want);
            }
        // Each committed token is the cell's peak.
        QCOMPARE(r[0].tokens.size(), size_t(8));
        for (std::int64_t p = 0; p < 8; ++p)
            QCOMPARE(r[0].tokens[static_cast<size_t>(p)], ScriptedNetwork::peakToken(p));
    }

    void entropyBoundCommitsSeveral() {
        // Confident cells have small entropies: a generous bound takes the whole block at once.
        ScriptedNetwork net(32, [](std::int64_t) { return 0.999; });
        auto o = greedyOptions();
        o.strategy = RemaskStrategy::EntropyBounded;
        o.ebThreshold = 0.35;
        o.maxTokens = 8;
        const auto r = dice::generate(net, {{}}, o);
        QCOMPARE(r[0].denoisingSteps, std::int64_t(2));
    }

    void passesPerBlock_data() {
        QTest::addColumn<int>("strategy");
        QTest::addColumn<double>("confidence");
        QTest::addColumn<int>("steps");
        QTest::addColumn<int>("passesPerBlock");
        QTest::newRow("static S=4") << int(RemaskStrategy::LowConfidenceStatic) << 0.99 << 4 << 5;
        QTest::newRow("static S=2") << int(RemaskStrategy::LowConfidenceStatic) << 0.99 << 2 << 3;
        QTest::newRow("dynamic all confident")
            << int(RemaskStrategy::LowConfidenceDynamic) << 0.99 << 4 << 2;
        QTest::newRow("dynamic none confident")
            << int(RemaskStrategy::LowConfidenceDynamic) << 0.2 << 4 << 5;
        QTest::newRow("sequential S=1") << int(RemaskStrategy::Sequential) << 0.5 << 1 << 2;
    }

    void passesPerBlock() {
        QFETCH(int, strategy);
        QFETCH(double, confidence);
        QFETCH(int, steps);
        QFETCH(int, passesPerBlock);
        ScriptedNetwork net(32, [confidence](std::int64_t) { return confidence; });
        auto o = greedyOptions();
        o.strategy = static_cast<RemaskStrategy>(strategy);
        o.steps = steps;
        o.maxTokens = 12;
        // The prompt fills two blocks, so no block mixes prompt and answer.
        std::vector<DecodeStep> events;
        const auto r = dice::generate(net, {{1, 2, 3, 4, 5, 6, 7, 8}}, o,
                                      [&](const DecodeStep& e) { events.push_back(e); });
        // Prefill, then three blocks; the last one needs no commit pass.
        QCOMPARE(r[0].forwardPasses, std::int64_t(1 + 3 * passesPerBlock - 1));
        std::map<int, int> perBlock;
        for (const auto& e : events)
            if (e.kind == DecodeStep::Kind::Denoise || e.kind == DecodeStep::Kind::Commit)
                ++perBlock[e.block];
        QCOMPARE(perBlock.size(), size_t(3));
        for (const auto& [block, count] : perBlock) {
            QVERIFY(count >= 1 && count <= steps + 1);
            QCOMPARE(count, block < 2 ? passesPerBlock : passesPerBlock - 1);
        }
    }

    // The draw the fused kernel is checked against on a GPU: top-p keeps the tokens whose mass
    // before them in descending order is at most p, top-k those at or above the k-th logit, and
    // the token is where the uniform falls in the kept distribution in vocabulary order.
    void drawKeepsTheReferenceSets() {
        using dice::SamplerOptions;
        // Probabilities 0.05, 0.5, 0.15, 0.3 over ids 0..3; id 4 is the mask token.
        const std::vector<float> probabilities = {0.05f, 0.5f, 0.15f, 0.3f, 0.0f};
        auto logits = at::empty({1, 1, 5}, at::TensorOptions().dtype(at::kFloat));
        for (int i = 0; i < 5; ++i)
            logits[0][0][i] = i == 4 ? 3.0f : std::log(probabilities[static_cast<size_t>(i)]);
        SamplerOptions o;
        o.maskId = 4;
        o.topP = 0.7;
        // Kept: ids 1 (0.5) and 3 (0.3, with 0.5 before it); id 2 has 0.8 before it.
        auto draw = dice::drawCells(logits, {0.6}, o, true);
        QCOMPARE(draw.tokens[0], std::int64_t(1));
        QVERIFY(std::abs(draw.confidence[0] - 0.625f) < 1e-5f);
        const double entropy = -(0.625 * std::log(0.625) + 0.375 * std::log(0.375));
        QVERIFY(std::abs(draw.entropy[0] - entropy) < 1e-5);
        draw = dice::drawCells(logits, {0.7}, o, false);
        QCOMPARE(draw.tokens[0], std::int64_t(3));
        QVERIFY(std::abs(draw.confidence[0] - 0.375f) < 1e-5f);
        o.topP = 1.0;
        o.topK = 3;
        // Kept: 1, 3, 2; the cumulative distribution in id order is 0.526 (id 1), 0.684, 1.
        draw = dice::drawCells(logits, {0.6}, o, false);
        QCOMPARE(draw.tokens[0], std::int64_t(2));
        draw = dice::drawCells(logits, {0.99}, o, false);
        QCOMPARE(draw.tokens[0], std::int64_t(3));
        QVERIFY(std::abs(draw.confidence[0] - 0.3f / 0.95f) < 1e-5f);
        // The mask token is never drawn, however likely.
        o.topK = 0;
        draw = dice::drawCells(logits, {0.999999}, o, false);
        QVERIFY(draw.tokens[0] != 4);
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::drawCells(logits, {1.0}, o, false));
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::drawCells(logits, {0.5, 0.5}, o, false));
    }

    void filteredConfidenceWithTopOneDecodesBlockInOneStep() {
        // The reference's pitfall, kept as its behaviour: with top_k = 1 the filtered distribution
        // is one-hot, every confidence is 1 and "dynamic" commits the whole block at once.
        ScriptedNetwork net(32, [](std::int64_t) { return 0.3; });
        auto o = greedyOptions();
        o.temperature = 1.0;
        o.topK = 1;
        o.rawConfidence = false;
        o.strategy = RemaskStrategy::LowConfidenceDynamic;
        o.maxTokens = 8;
        std::vector<DecodeStep> events;
        dice::generate(net, {{}}, o, [&](const DecodeStep& e) { events.push_back(e); });
        const auto order = commitOrder(events);
        QCOMPARE(order.size(), size_t(2));
        for (const auto& e : events)
            if (e.kind == DecodeStep::Kind::Denoise)
                for (auto c : e.confidences)
                    QCOMPARE(c, 1.0f);
        // With raw confidences the same settings decode one cell per step.
        o.rawConfidence = true;
        events.clear();
        dice::generate(net, {{}}, o, [&](const DecodeStep& e) { events.push_back(e); });
        QCOMPARE(commitOrder(events).size(), size_t(8));
    }

    void scheduleClampedToMasksLeft() {
        // B = 8, S = 4 (k = 2 per step): a dynamic step that commits 7 cells leaves one mask,
        // and the next step commits exactly that one.
        ScriptedNetwork net(32, [](std::int64_t p) { return p % 8 == 5 ? 0.2 : 0.99; });
        auto o = greedyOptions();
        o.strategy = RemaskStrategy::LowConfidenceDynamic;
        o.blockLength = 8;
        o.steps = 4;
        o.maxTokens = 8;
        std::vector<DecodeStep> events;
        const auto r =
            dice::generate(net, {{}}, o, [&](const DecodeStep& e) { events.push_back(e); });
        const auto order = commitOrder(events);
        QCOMPARE(order.size(), size_t(2));
        QCOMPARE(order[0].size(), size_t(7));
        QCOMPARE(order[1], (std::vector<std::int64_t>{5}));
        std::set<std::int64_t> seen;
        for (const auto& step : order)
            for (auto p : step)
                QVERIFY(seen.insert(p).second);
        QCOMPARE(r[0].tokens.size(), size_t(8));
    }

    void cachedDecodingEqualsRecomputation_data() {
        QTest::addColumn<int>("strategy");
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("steps");
        QTest::newRow("static B4 S4") << int(RemaskStrategy::LowConfidenceStatic) << 4 << 4;
        QTest::newRow("static B8 S3") << int(RemaskStrategy::LowConfidenceStatic) << 8 << 3;
        QTest::newRow("sequential B4 S2") << int(RemaskStrategy::Sequential) << 4 << 2;
        QTest::newRow("autoregressive") << int(RemaskStrategy::LowConfidenceStatic) << 1 << 1;
    }

    void cachedDecodingEqualsRecomputation() {
        QFETCH(int, strategy);
        QFETCH(int, block);
        QFETCH(int, steps);
        auto o = greedyOptions();
        o.strategy = static_cast<RemaskStrategy>(strategy);
        o.blockLength = block;
        o.steps = steps;
        o.stopIds = {5, 9};
        const std::vector<std::vector<std::int64_t>> prompts = {
            {3, 1, 4, 1, 5, 9, 2}, {2, 7}, {}, {1, 6, 1, 8, 0, 3, 3, 9, 8, 8, 7}, {30, 29, 28, 27}};
        // The whole batch at once: sequences leave it at different times.
        ContextNetwork batchNet(32);
        const auto together = dice::generate(batchNet, prompts, o);
        for (size_t i = 0; i < prompts.size(); ++i) {
            const auto expected = referenceDecode(prompts[i], o, 32);
            QCOMPARE(together[i].tokens, expected);
            ContextNetwork single(32);
            QCOMPARE(dice::generate(single, {prompts[i]}, o)[0].tokens, expected);
        }
        // Sequences stopped at different times, so rows left the batch and others moved.
        std::set<std::int64_t> passes;
        bool stopped = false;
        for (const auto& r : together) {
            stopped = stopped || r.reason == dice::FinishReason::Stop;
            passes.insert(r.forwardPasses);
        }
        QVERIFY(stopped);
        QVERIFY(passes.size() >= 3);
    }

    void autoregressiveIsBlockOfOne() {
        ContextNetwork net(32);
        auto o = greedyOptions();
        o.blockLength = 1;
        o.steps = 1;
        o.maxTokens = 6;
        std::vector<DecodeStep> events;
        const auto r =
            dice::generate(net, {{4, 4, 4}}, o, [&](const DecodeStep& e) { events.push_back(e); });
        // Prefill of the whole prompt, then per token one denoising and one commit pass.
        QCOMPARE(events.front().kind, DecodeStep::Kind::Prefill);
        QCOMPARE(events.front().blockLength, 3);
        QCOMPARE(r[0].forwardPasses, std::int64_t(1 + 6 * 2 - 1));
        QCOMPARE(r[0].denoisingSteps, std::int64_t(6));
        QCOMPARE(r[0].tokens.size(), size_t(6));
    }

    void eventsDescribeEveryStep() {
        ContextNetwork net(32);
        auto o = greedyOptions();
        o.maxTokens = 9;
        std::vector<DecodeStep> events;
        const auto r = dice::generate(net, {{1, 2, 3, 4, 5, 6}}, o,
                                      [&](const DecodeStep& e) { events.push_back(e); });
        // The prompt's tail (2 tokens) shares the first block: it starts at answer position -2.
        const DecodeStep* firstDenoise = nullptr;
        int denoise = 0;
        std::vector<int> committedAt(9, -1);
        for (const auto& e : events) {
            if (e.kind != DecodeStep::Kind::Denoise)
                continue;
            if (!firstDenoise)
                firstDenoise = &e;
            QCOMPARE(e.globalStep, denoise++);
            QCOMPARE(e.positions.size(), e.tokens.size());
            QCOMPARE(e.positions.size(), e.confidences.size());
            for (size_t i = 0; i < e.positions.size(); ++i) {
                const auto p = e.positions[i];
                QVERIFY(p >= e.blockStart && p < e.blockStart + e.blockLength && p >= 0);
                if (p < 9) {
                    QCOMPARE(committedAt[static_cast<size_t>(p)], -1);
                    committedAt[static_cast<size_t>(p)] = e.globalStep;
                    QCOMPARE(e.tokens[i], r[0].tokens[static_cast<size_t>(p)]);
                }
            }
        }
        QVERIFY(firstDenoise);
        QCOMPARE(firstDenoise->blockStart, std::int64_t(-2));
        QCOMPARE(firstDenoise->block, 0);
        QCOMPARE(std::int64_t(denoise), r[0].denoisingSteps);
        for (size_t p = 0; p < 9; ++p)
            QCOMPARE(std::int64_t(committedAt[p]), r[0].commitStep[p]);
        QCOMPARE(events.back().kind, DecodeStep::Kind::Finished);
        QCOMPARE(events.back().forwardPasses, r[0].forwardPasses);
    }

    void seedsAreDeterministicAndPerSequence() {
        SamplerOptions o;
        o.temperature = 1.0;
        o.maxTokens = 16;
        o.maskId = 31;
        o.seed = 42;
        const std::vector<std::vector<std::int64_t>> prompts = {{1, 2, 3}, {4, 5, 6, 7, 8}};
        ContextNetwork a(32), b(32), c(32), d(32);
        const auto first = dice::generate(a, prompts, o);
        const auto second = dice::generate(b, prompts, o);
        QCOMPARE(first[0].tokens, second[0].tokens);
        QCOMPARE(first[1].tokens, second[1].tokens);
        // Seeds are per sequence index: the first sequence alone gets the tokens it got in the
        // batch.
        const auto alone = dice::generate(c, {prompts[0]}, o);
        QCOMPARE(alone[0].tokens, first[0].tokens);
        o.seed = 43;
        QVERIFY(dice::generate(d, prompts, o)[0].tokens != first[0].tokens);
    }

    void continuousBatchingKeepsEverySequenceAsItWas() {
        // Seven prompts (some with full blocks to prefill, some without), uneven budgets and a
        // stop id, sampled at temperature 1 with dynamic remasking: with a pool of 1, 2 or 3 rows,
        // rows freed by finished sequences are refilled, and every sequence's answer, trace, tail
        // and finish are those of the run with all seven at once.
        SamplerOptions o;
        o.temperature = 1.0;
        o.strategy = RemaskStrategy::LowConfidenceDynamic;
        o.threshold = 0.3;
        o.maskId = 31;
        o.seed = 7;
        o.stopIds = {5};
        o.budgets = {6, 20, 3, 13, 9, 17, 1};
        const std::vector<std::vector<std::int64_t>> prompts = {
            {1, 2, 3}, {4, 5, 6, 7, 8}, {},    {9, 10, 11, 12, 13, 14, 15, 16, 17},
            {2},       {3, 3, 3, 3},    {8, 9}};
        ContextNetwork all(32);
        const auto reference = dice::generate(all, prompts, o);
        QCOMPARE(all.widest, std::int64_t(7));
        bool someStopped = false;
        for (const auto& r : reference)
            someStopped = someStopped || r.reason == dice::FinishReason::Stop;
        QVERIFY(someStopped);
        for (const std::int64_t pool : {1, 2, 3}) {
            o.maxActive = pool;
            ContextNetwork net(32);
            std::vector<int> finishedOrder;
            const auto pooled = dice::generate(net, prompts, o, [&](const DecodeStep& e) {
                if (e.kind == DecodeStep::Kind::Finished)
                    finishedOrder.push_back(e.sequence);
            });
            QCOMPARE(net.widest, pool);
            QCOMPARE(finishedOrder.size(), prompts.size());
            for (std::size_t i = 0; i < prompts.size(); ++i) {
                const auto at =
                    ("pool " + std::to_string(pool) + ", sequence " + std::to_string(i));
                QVERIFY2(pooled[i].tokens == reference[i].tokens, at.c_str());
                QVERIFY2(pooled[i].commitStep == reference[i].commitStep, at.c_str());
                QVERIFY2(pooled[i].tailTokens == reference[i].tailTokens, at.c_str());
                QVERIFY2(pooled[i].tailCommitStep == reference[i].tailCommitStep, at.c_str());
                QVERIFY2(pooled[i].reason == reference[i].reason, at.c_str());
                QVERIFY2(pooled[i].forwardPasses == reference[i].forwardPasses, at.c_str());
            }
        }
        // A cache of 40 positions for a pool of 3 rows: sequences of 12, 28, 4, 24, 12, 24 and 4
        // positions join in order as memory frees, never more than fits, each as it was.
        o.maxActive = 3;
        ContextNetwork limited(32, 40);
        const auto waited = dice::generate(limited, prompts, o);
        QCOMPARE(limited.peakReserved, std::int64_t(40));
        for (std::size_t i = 0; i < prompts.size(); ++i) {
            QVERIFY(waited[i].tokens == reference[i].tokens);
            QVERIFY(waited[i].commitStep == reference[i].commitStep);
            QVERIFY(waited[i].reason == reference[i].reason);
        }
        // A sequence that does not fit even alone is an error, not a wait.
        ContextNetwork tiny(32, 20);
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::generate(tiny, prompts, o));

        // A cancellation while prompts wait ends those too, with nothing decoded.
        o.maxActive = 2;
        std::atomic<bool> cancel{false};
        o.cancel = &cancel;
        ContextNetwork net(32);
        int denoise = 0;
        const auto stopped = dice::generate(net, prompts, o, [&](const DecodeStep& e) {
            if (e.kind == DecodeStep::Kind::Denoise && ++denoise == 3)
                cancel = true;
        });
        for (std::size_t i = 2; i < prompts.size(); ++i) {
            QVERIFY(stopped[i].reason == dice::FinishReason::Cancelled);
            QVERIFY(stopped[i].tokens.empty());
        }
        o.cancel = nullptr;
        o.budgets = {4};
        ContextNetwork wrong(32);
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::generate(wrong, prompts, o));
    }

    void samplingFollowsTheFilteredDistribution() {
        // One cell, logits fixed: top-k 2 samples only the two best tokens, in proportion.
        class Fixed : public dice::DiffusionNetwork {
        public:
            std::int64_t logitsWidth() const override { return 8; }
            void allocate(std::int64_t, std::int64_t) override {}
            void prefill(const at::Tensor&, const std::vector<std::int64_t>&, std::int64_t,
                         std::int64_t) override {}
            at::Tensor blockPass(const at::Tensor& tokens, const std::vector<std::uint8_t>&,
                                 bool) override {
                const auto row = at::tensor({0.f, 2.f, 0.f, 1.f, 0.f, 0.f, 0.5f, 0.f});
                return row.expand({tokens.size(0), tokens.size(1), 8}).clone();
            }
            void moveRow(std::int64_t, std::int64_t) override {}
        } net;
        SamplerOptions o;
        o.blockLength = 1;
        o.steps = 1;
        o.maxTokens = 1;
        o.maskId = 7;
        o.topK = 2;
        std::map<std::int64_t, int> counts;
        const std::vector<std::vector<std::int64_t>> prompts(400, std::vector<std::int64_t>{});
        for (const auto& r : dice::generate(net, prompts, o))
            ++counts[r.tokens.at(0)];
        QCOMPARE(counts.size(), size_t(2));
        // p(1) = e^2 / (e^2 + e^1) = 0.731; 400 draws: within 6 standard deviations.
        const double share = counts[1] / 400.0;
        QVERIFY2(std::abs(share - 0.731) < 6 * std::sqrt(0.731 * 0.269 / 400),
                 std::to_string(share).c_str());
        // top-p 0.4 keeps only the best token (its probability is 0.47).
        o.topK = 0;
        o.topP = 0.4;
        for (const auto& r : dice::generate(net, {{}, {}, {}}, o))
            QCOMPARE(r.tokens.at(0), std::int64_t(1));
    }

    void idsBeyondTheVocabularyAreNotSampled() {
        class Padded : public dice::DiffusionNetwork {
        public:
            std::int64_t logitsWidth() const override { return 16; }
            void allocate(std::int64_t, std::int64_t) override {}
            void prefill(const at::Tensor&, const std::vector<std::int64_t>&, std::int64_t,
                         std::int64_t) override {}
            at::Tensor blockPass(const at::Tensor& tokens, const std::vector<std::uint8_t>&,
                                 bool) override {
                auto l = at::zeros({tokens.size(0), tokens.size(1), 16});
                l.narrow(-1, 12, 4).fill_(5.0);
                l.narrow(-1, 3, 1).fill_(1.0);
                return l;
            }
            void moveRow(std::int64_t, std::int64_t) override {}
        } net;
        SamplerOptions o;
        o.temperature = 0;
        o.maskId = 11;
        o.maxTokens = 8;
        o.vocabLimit = 12;
        const auto limited = dice::generate(net, {{}}, o);
        for (auto t : limited[0].tokens)
            QCOMPARE(t, std::int64_t(3));
        o.maskBeyondVocab = false;
        const auto unlimited = dice::generate(net, {{}}, o);
        for (auto t : unlimited[0].tokens)
            QVERIFY(t >= 12);
    }

    void cancellationStopsBeforeTheNextPass() {
        ContextNetwork net(32);
        auto o = greedyOptions();
        o.maxTokens = 64;
        std::atomic<bool> cancel{false};
        o.cancel = &cancel;
        int denoise = 0;
        const auto r = dice::generate(net, {{1, 2}, {3}}, o, [&](const DecodeStep& e) {
            if (e.kind == DecodeStep::Kind::Denoise && ++denoise == 4)
                cancel = true;
        });
        for (const auto& seq : r) {
            QVERIFY(seq.reason == dice::FinishReason::Cancelled);
            QVERIFY(seq.tokens.size() < 64);
        }
        // Two passes with both sequences denoising, then nothing.
        QCOMPARE(net.passes, 2);
    }

    void rejectsBadOptions() {
        ContextNetwork net(32);
        auto o = greedyOptions();
        o.steps = 5;
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::generate(net, {{1}}, o));
        o = greedyOptions();
        o.maskId = 40;
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::generate(net, {{1}}, o));
        o = greedyOptions();
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::generate(net, {{1, 99}}, o));
    }
};

QTEST_GUILESS_MAIN(TestSdarSampler)
#include "tst_sdar_sampler.moc"
