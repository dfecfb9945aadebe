// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/common/file_util.h"
#include "core/data/corpus_writer.h"
#include "core/model/model_config.h"
#include "core/model/qwen3_model.h"
#include "core/tokenizer/tokenizer.h"
#include "core/train/bd3_batch.h"
#include "core/train/sft_data.h"
#include "core/train/sft_trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

namespace {

const std::string kTokenizer = std::string(DICE_TEST_FIXTURES) + "/tokenizer-train/tokenizer.json";

// A small corpus whose answers follow from their prompts, so that a tiny model can learn it.
std::string writeCorpus(const QTemporaryDir& dir) {
    const std::vector<std::pair<std::string, std::string>> pairs = {
        {"relu", "y = max(x, 0)"}, {"square", "y = x * x"}, {"negate", "y = -x"},
        {"double", "y = x + x"},   {"abs", "y = abs(x)"},   {"half", "y = x / 2"},
        {"cube", "y = x * x * x"}, {"zero", "y = 0 * x"},
    };
    std::string lines;
    int i = 0;
    for (const auto& [name, body] : pairs) {
        for (const char* split : {"train", "train", "heldout_variant"}) {
            dice::CorpusExample e;
            e.id = name + std::to_string(i++);
            e.task = name;
            e.family = name;
            e.split = split;
            e.kind = "generate";
            e.prompt = "Write the kernel " + name + ".";
            e.answer = "def " + name + "(x):\n    " + body + "\n    return y\n";
            lines += dice::toJsonLine(e) + "\n";
        }
    }
    const std::string path = dir.filePath("corpus.jsonl").toStdString();
    dice::writeFileAtomically(path, lines);
    return path;
}

dice::SftOptions tinyOptions(const std::string& corpus, const std::string& output) {
    const auto tokenizer = dice::Tokenizer::load(kTokenizer);
    dice::SftOptions o;
    o.corpus = corpus;
    o.tokenizer = kTokenizer;
    o.output = output;
    dice::ModelConfig& c = o.config;
    c.modelType = "sdar";
    c.hiddenSize = 32;
    c.numLayers = 2;
    c.numHeads = 2;
    c.numKvHeads = 1;
    c.headDim = 16;
    c.intermediateSize = 64;
    c.vocabSize = (tokenizer.vocabSize() + 63) / 64 * 64;
    c.ropeTheta = 10000.0;
    c.maxPositionEmbeddings = 512;
    c.blockSize = 4;
    c.maskTokenId = *tokenizer.tokenId("<|MASK|>");
    c.eosTokenIds = {*tokenizer.tokenId("<|im_end|>")};
    c.padTokenId = *tokenizer.tokenId("<|endoftext|>");
    c.torchDtype = "float32";
    o.batchSize = 6;
    o.learningRate = 1e-2;
    o.minLearningRate = 1e-3;
    o.warmupSteps = 5;
    o.evalEvery = 0;
    o.saveEvery = 0;
    o.threads = 1;
    o.saveDType = dice::ModelDType::Float32;
    return o;
}

std::vector<double> losses(const std::string& output) {
    std::ifstream in(output + "/metrics.jsonl");
    std::vector<double> out;
    std::string line;
    while (std::getline(in, line))
        out.push_back(nlohmann::json::parse(line)["loss"].get<double>());
    return out;
}

} // namespace

class TestSftTrainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The BD3 mask checked cell by cell against its definition.
    void attentionMaskFollowsTheRules() {
        const std::int64_t n = 6, L = 8, block = 4;
        const auto mask = dice::bd3AttentionMask(n, L, block);
        QCOMPARE(mask.sizes().vec(), (std::vector<std::int64_t>{16, 16}));
        auto m = mask.accessor<bool, 2>();
        for (std::int64_t q = 0; q < 2 * L; ++q) {
            for (std::int64_t k = 0; k < 2 * L; ++k) {
                const bool qNoisy = q < L, kNoisy = k < L;
                const std::int64_t qi = q % L, ki = k % L;
                const bool qReal = qi < n, kReal = ki < n;
                bool expected = false;
                if (qReal && kReal) {
                    if (qNoisy && kNoisy)
                        expected = qi / block == ki / block;
                    else if (qNoisy && !kNoisy)
                        expected = ki / block < qi / block;
                    else if (!qNoisy && !kNoisy)
                        expected = ki / block <= qi / block;
                } else {
                    expected = q == k && !qReal;
                }
                QVERIFY2(m[q][k] == expected, qPrintable(QString("query %1 key %2").arg(q).arg(k)));
            }
        }
    }

    void batchMasksOnlyTheAnswer() {
        dice::SftSequence s;
        s.id = "s";
        s.ids = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
        s.promptLength = 4;
        dice::SftSequence t = s;
        t.ids.resize(7);
        std::mt19937_64 rng(5);
        for (int round = 0; round < 50; ++round) {
            const auto b = dice::makeBd3Batch({&s, &t}, 4, 99, 0, rng);
            QCOMPARE(b.length, std::int64_t(10));
            auto tok = b.tokens.accessor<std::int64_t, 2>();
            auto w = b.weights.accessor<float, 2>();
            auto pos = b.positions.accessor<std::int64_t, 2>();
            for (int row = 0; row < 2; ++row) {
                const auto& seq = row == 0 ? s : t;
                int masked = 0;
                for (std::int64_t i = 0; i < 10; ++i) {
                    QCOMPARE(pos[row][i], i);
                    QCOMPARE(pos[row][10 + i], i);
                    if (i >= static_cast<std::int64_t>(seq.ids.size())) {
                        QCOMPARE(w[row][i], 0.0f);
                        continue;
                    }
                    QCOMPARE(tok[row][10 + i], seq.ids[i]);
                    if (i < seq.promptLength)
                        QCOMPARE(tok[row][i], seq.ids[i]);
                    const bool isMasked = tok[row][i] == 99;
                    masked += isMasked;
                    QCOMPARE(w[row][i] > 0, isMasked);
                }
                QVERIFY(masked >= 1);
            }
        }
    }

    void learningRateSchedule() {
        QCOMPARE(dice::scheduledLearningRate(0, 100, 10, 1.0, 0.1), 0.1);
        QCOMPARE(dice::scheduledLearningRate(9, 100, 10, 1.0, 0.1), 1.0);
        QVERIFY(std::abs(dice::scheduledLearningRate(10, 100, 10, 1.0, 0.1) - 1.0) < 1e-12);
        QVERIFY(std::abs(dice::scheduledLearningRate(55, 100, 10, 1.0, 0.1) - 0.55) < 1e-12);
        QVERIFY(std::abs(dice::scheduledLearningRate(100, 100, 10, 1.0, 0.1) - 0.1) < 1e-12);
    }

    void configWritesAndReadsBack() {
        auto o = tinyOptions("", "");
        o.config.eosTokenIds = {5, 6};
        const auto back = dice::parseModelConfig(dice::modelConfigToJson(o.config), "config.json");
        QCOMPARE(back.modelType, std::string("sdar"));
        QCOMPARE(back.hiddenSize, o.config.hiddenSize);
        QCOMPARE(back.numKvHeads, o.config.numKvHeads);
        QCOMPARE(back.headDim, o.config.headDim);
        QCOMPARE(back.vocabSize, o.config.vocabSize);
        QCOMPARE(*back.maskTokenId, *o.config.maskTokenId);
        QCOMPARE(back.eosTokenIds, (std::vector<std::int64_t>{5, 6}));
        QCOMPARE(back.blockSize, std::int64_t(4));
        QCOMPARE(back.ropeTheta, 10000.0);
    }

    void lossFallsAndTheModelLoads() {
        QTemporaryDir dir;
        const auto corpus = writeCorpus(dir);
        auto o = tinyOptions(corpus, dir.filePath("run").toStdString());
        o.steps = 60;
        o.evalEvery = 60;
        const auto report = dice::trainSft(o);
        QCOMPARE(report.steps, std::int64_t(60));
        QCOMPARE(report.trainSequences, size_t(16));
        QCOMPARE(report.evalSequences, size_t(8));
        const auto l = losses(o.output);
        QCOMPARE(l.size(), size_t(60));
        double first = 0, last = 0;
        for (int i = 0; i < 10; ++i) {
            first += l[i] / 10;
            last += l[l.size() - 1 - i] / 10;
        }
        QVERIFY2(last < 0.6 * first, qPrintable(QString("%1 -> %2").arg(first).arg(last)));
        QVERIFY(report.evalLoss > 0);
        dice::LoadOptions load;
        const auto model = dice::Qwen3Model::load(report.modelFolder, load);
        QCOMPARE(model->config().hiddenSize, std::int64_t(32));
        QVERIFY(QFile::exists(QString::fromStdString(report.modelFolder + "/tokenizer.json")));
    }

    // A run stopped half way and resumed ends with exactly the weights of a run that never
    // stopped: the data order, the masks and the optimizer state all come back.
    void resumesAfterAStop() {
        QTemporaryDir dir;
        const auto corpus = writeCorpus(dir);
        auto straight = tinyOptions(corpus, dir.filePath("straight").toStdString());
        straight.steps = 12;
        dice::trainSft(straight);

        auto stopped = tinyOptions(corpus, dir.filePath("stopped").toStdString());
        stopped.steps = 12;
        stopped.saveEvery = 4;
        std::atomic<bool> cancel{false};
        stopped.log = [&](const std::string& line) {
            if (line.rfind("step 10/", 0) == 0)
                cancel = true; // the run stops before its eleventh step
        };
        stopped.cancel = &cancel;
        const auto first = dice::trainSft(stopped);
        QVERIFY(first.cancelled);
        QCOMPARE(first.steps, std::int64_t(10));
        stopped.cancel = nullptr;
        stopped.log = {};
        // As if the run had been killed after step 11 and half way through logging step 12.
        {
            std::ofstream log(stopped.output + "/metrics.jsonl", std::ios::app);
            log << "{\"step\":11,\"loss\":1.0}\n{\"step\":12,\"lo";
        }
        const auto second = dice::trainSft(stopped);
        QCOMPARE(second.firstStep, std::int64_t(10));
        QCOMPARE(second.steps, std::int64_t(12));
        // The metrics name each step once, in order, as the run that never stopped does.
        const auto steps = [](const std::string& folder) {
            std::vector<std::int64_t> out;
            std::ifstream in(folder + "/metrics.jsonl");
            for (std::string line; std::getline(in, line);)
                out.push_back(nlohmann::json::parse(line).at("step").get<std::int64_t>());
            return out;
        };
        QCOMPARE(steps(stopped.output), steps(straight.output));

        dice::LoadOptions load;
        const auto a = dice::Qwen3Model::load(straight.output + "/model", load);
        const auto b = dice::Qwen3Model::load(stopped.output + "/model", load);
        const auto wa = a->namedWeights();
        const auto wb = b->namedWeights();
        QCOMPARE(wa.size(), wb.size());
        for (size_t i = 0; i < wa.size(); ++i)
            QVERIFY2(torch::equal(wa[i].second, wb[i].second), wa[i].first.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSftTrainer)
#include "tst_sft_trainer.moc"
