// SPDX-License-Identifier: GPL-3.0-or-later
// The paper's KernelBench table end to end on the CPU: a real (tiny, random) checkpoint answers
// real level-1 problems, each answer is judged and kept in the run store, and a second run
// resumes from the store instead of generating again.
#include "core/bench/paper_bench.h"
#include "core/common/file_util.h"
#include "core/store/run_store.h"
#include "core/tokenizer/bpe_trainer.h"
#include "core/tokenizer/tokenizer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>

using namespace dice;

namespace {

const char* const kKernelBench = DICE_SOURCE_DIR "/../shared/data/kernelbench";

std::string makeModel(const QTemporaryDir& dir) {
    const std::string folder = dir.filePath("tiny").toStdString();
    std::filesystem::create_directories(folder);
    BpeTrainerOptions options;
    options.vocabSize = 300;
    BpeTrainer trainer(options);
    trainer.addText(readTextFile(DICE_SOURCE_DIR "/resources/prompts/model_new_ex_add.py"));
    const std::string tokenizerJson = trainer.train();
    writeFileAtomically(folder + "/tokenizer.json", tokenizerJson);
    const auto tokenizer = Tokenizer::fromJson(tokenizerJson, "trained");
    auto config = nlohmann::json::parse(readTextFile(DICE_TEST_FIXTURES "/qwen3-tiny/config.json"));
    config["mask_token_id"] = *tokenizer.tokenId("<|MASK|>");
    config["max_position_embeddings"] = 16384;
    writeFileAtomically(folder + "/config.json", config.dump());
    std::filesystem::copy_file(DICE_TEST_FIXTURES "/qwen3-tiny/model.safetensors",
                               folder + "/model.safetensors");
    return folder;
}

} // namespace

class TestPaperBench : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The importer's names (resources/python/kernelbench_import.py), so that native answers meet
    // their imported tasks.
    void taskNamesFollowTheImporter() {
        QCOMPARE(kernelbench::kernelBenchTaskName(1, "level1/19_ReLU.py"),
                 std::string("kb_l1_019_relu"));
        QCOMPARE(kernelbench::kernelBenchTaskName(2, "1_Conv2D_ReLU_BiasAdd.py"),
                 std::string("kb_l2_001_conv2d_relu_biasadd"));
        QCOMPARE(kernelbench::kernelBenchTaskName(1, "1_Square_matrix_multiplication_.py"),
                 std::string("kb_l1_001_square_matrix_multiplication"));
        QCOMPARE(kernelbench::kernelBenchTaskName(1, "97_ScaledDotProductAttention.py"),
                 std::string("kb_l1_097_scaleddotproductattention"));
    }

    void answersAreJudgedStoredAndResumed() {
        if (!std::filesystem::is_directory(std::string(kKernelBench) + "/level1"))
            QSKIP("the KernelBench data is not beside the repository");
        QTemporaryDir dir;
        kernelbench::PaperBenchOptions options;
        options.model = makeModel(dir);
        options.problems = kKernelBench;
        options.levels = {1};
        options.limit = 2;
        options.preset.sampler.maxTokens = 24;
        options.store = dir.filePath("runs.sqlite3").toStdString();
        options.session.cpuThreads = 1;

        int seen = 0;
        const auto first = kernelbench::runPaperBench(options, [&](const auto&) { ++seen; });
        QCOMPARE(seen, 2);
        QCOMPARE(first.problems.size(), std::size_t(2));
        QVERIFY(!first.cancelled);
        QVERIFY(first.generationMs > 0);
        QCOMPARE(first.problems[0].task, std::string("kb_l1_001_square_matrix_multiplication"));
        QCOMPARE(first.problems[1].task, std::string("kb_l1_002_standard_matrix_multiplication"));
        for (const auto& p : first.problems) {
            QVERIFY(!p.resumed);
            QVERIFY(p.runId > 0);
            // The whole budget is decoded, as in the paper's evaluation.
            QCOMPARE(p.answerTokens, std::int64_t(24));
            // A random model writes no code block: the answer is judged, not dropped.
            QCOMPARE(toString(p.result.verdict), std::string("invalid_candidate"));
        }
        QCOMPARE(first.metrics.raw.back().tasks, 2);
        QCOMPARE(first.metrics.raw.back().exec, 0.0);

        RunStore store(options.store);
        const auto runs = store.list();
        QCOMPARE(runs.size(), std::size_t(2));
        QVERIFY(runs[0].options.contains("answer"));
        QCOMPARE(runs[0].options["answer_tokens"].get<int>(), 24);

        const auto second = kernelbench::runPaperBench(options);
        QCOMPARE(second.problems.size(), std::size_t(2));
        QCOMPARE(second.generationMs, 0.0);
        for (std::size_t i = 0; i < 2; ++i) {
            QVERIFY(second.problems[i].resumed);
            QCOMPARE(second.problems[i].runId, first.problems[i].runId);
        }
        QCOMPARE(store.list().size(), std::size_t(2));

        // Another seed is another table.
        options.seed = 1;
        options.limit = 1;
        std::atomic<bool> stop{true};
        options.cancel = &stop;
        const auto stopped = kernelbench::runPaperBench(options);
        QVERIFY(stopped.cancelled);
        QVERIFY(stopped.problems.empty());
        QCOMPARE(store.list().size(), std::size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestPaperBench)
#include "tst_paper_bench.moc"
