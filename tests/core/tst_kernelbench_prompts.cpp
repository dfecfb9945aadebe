// SPDX-License-Identifier: GPL-3.0-or-later
// DICE's prompts, the generation presets and the handling of model answers. The golden prompts
// in tests/fixtures/kernelbench were rendered by DICE's own Python prompt code (see the README
// there), so a difference of one space fails here.
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/prompts/answer.h"
#include "core/prompts/decoding_presets.h"
#include "core/prompts/kernelbench_prompts.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <filesystem>

using namespace dice::kernelbench;

namespace {

const std::string kFixtures = DICE_TEST_FIXTURES "/kernelbench/";
const std::string kPrompts = DICE_SOURCE_DIR "/resources/prompts";
const std::string kProblems = DICE_SOURCE_DIR "/../shared/data/kernelbench";

std::string fixture(const std::string& name) {
    return dice::readTextFile(kFixtures + name);
}

std::string withoutFinalNewline(std::string text) {
    if (!text.empty() && text.back() == '\n')
        text.pop_back();
    return text;
}

// Where two texts first differ, for a readable failure.
QByteArray firstDifference(const std::string& actual, const std::string& expected) {
    size_t i = 0;
    while (i < actual.size() && i < expected.size() && actual[i] == expected[i])
        ++i;
    const auto around = [i](const std::string& s) {
        return QByteArray::fromStdString(s.substr(i, 40)).toPercentEncoding(" ");
    };
    return "differs at byte " + QByteArray::number(qulonglong(i)) + ": got \"" + around(actual) +
           "\", expected \"" + around(expected) + "\"";
}

InfillSkeleton scaledTanhSkeleton() {
    return {fixture("scaled_tanh_model.py"), withoutFinalNewline(fixture("scaled_tanh_prefix.py")),
            withoutFinalNewline(fixture("scaled_tanh_suffix.py"))};
}

} // namespace

class TestKernelBenchPrompts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void endToEndEvaluationPromptMatchesDice() {
        const auto examples = loadPromptExamples(kPrompts);
        const std::string actual =
            endToEndPrompt(fixture("scaled_tanh_model.py"), examples, PromptStyle::Evaluation);
        const std::string expected = fixture("scaled_tanh.end_to_end.eval.txt");
        QVERIFY2(actual == expected, firstDifference(actual, expected));
    }

    void endToEndRolloutPromptMatchesDice() {
        const auto examples = loadPromptExamples(kPrompts);
        const std::string actual =
            endToEndPrompt(fixture("scaled_tanh_model.py"), examples, PromptStyle::Rollout);
        const std::string expected = fixture("scaled_tanh.end_to_end.rollout.txt");
        QVERIFY2(actual == expected, firstDifference(actual, expected));
    }

    void infillPromptMatchesDice() {
        const auto examples = loadPromptExamples(kPrompts);
        const std::string actual = infillPrompt(scaledTanhSkeleton(), examples);
        const std::string expected = fixture("scaled_tanh.infill.txt");
        QVERIFY2(actual == expected, firstDifference(actual, expected));
    }

    void promptsAreOneUserMessageWithoutThinking() {
        const auto examples = loadPromptExamples(kPrompts);
        const auto messages = endToEndMessages("class Model: pass\n", examples);
        QCOMPARE(messages.size(), size_t(1));
        QCOMPARE(messages[0].role, std::string("user"));
        const std::string text = endToEndPrompt("class Model: pass\n", examples);
        QVERIFY(text.rfind("<|im_start|>user\nYou write custom CUDA kernels", 0) == 0);
        QVERIFY(text.size() > 40);
        QCOMPARE(text.substr(text.size() - 33), std::string("<|im_end|>\n<|im_start|>assistant\n"));
        QVERIFY(text.find("<think>") == std::string::npos);
        const auto infill = infillMessages(scaledTanhSkeleton(), examples);
        QCOMPARE(infill.size(), size_t(1));
        QCOMPARE(infill[0].role, std::string("user"));
    }

    void realProblemAppearsOnceInThePrompt() {
        const std::string path = kProblems + "/level2/1_Conv2D_ReLU_BiasAdd.py";
        if (!std::filesystem::exists(path))
            QSKIP("the KernelBench problems are not in ../shared/data/kernelbench");
        const std::string problem = dice::readTextFile(path);
        const auto examples = loadPromptExamples(kPrompts);
        const std::string message = endToEndMessage(problem, examples);
        const size_t at = message.find(problem);
        QVERIFY(at != std::string::npos);
        QVERIFY(message.find(problem, at + 1) == std::string::npos);
        QVERIFY(message.find("You are given the following architecture: \n\n    ```\n    " +
                             problem) != std::string::npos);
        QVERIFY(message.find(examples.modelNew) < at);
    }

    void exampleSkeletonSplitsTheExampleAnswer() {
        // DICE's worked example: the example prefix and suffix are the two ends of the example
        // ModelNew, and the CUDA source string is what lies between them.
        const auto examples = loadPromptExamples(kPrompts);
        QVERIFY(examples.modelNew.rfind(examples.infillPrefix, 0) == 0);
        QVERIFY(examples.modelNew.size() >= examples.infillSuffix.size() + 1);
        QCOMPARE(
            examples.modelNew.substr(examples.modelNew.size() - examples.infillSuffix.size() - 1),
            examples.infillSuffix + "\n");
        const auto splice =
            spliceInfill(examples.modelNew, examples.infillPrefix, examples.infillSuffix);
        QVERIFY(splice.prefixFound);
        QVERIFY(splice.suffixFound);
        QVERIFY(!splice.suffixRewritten);
        QCOMPARE(splice.program, examples.modelNew);
        QVERIFY(splice.middle.rfind("elementwise_add_source = \"\"\"", 0) == 0);
        QVERIFY(splice.middle.find("__global__ void elementwise_add_kernel") != std::string::npos);
    }

    void missingExampleFileNamesTheFile() {
        try {
            loadPromptExamples(kFixtures + "no-such-folder");
            QFAIL("loaded examples from a folder that does not exist");
        } catch (const dice::FileError& e) {
            QVERIFY2(std::string(e.what()).find("model_ex_add.py") != std::string::npos, e.what());
        }
    }

    void presetsAreThePapersSettings() {
        const auto eval = dice::evaluationPreset();
        QCOMPARE(eval.sampler.blockLength, std::int64_t(4));
        QCOMPARE(eval.sampler.steps, std::int64_t(4));
        QVERIFY(eval.sampler.strategy == dice::RemaskStrategy::LowConfidenceStatic);
        QCOMPARE(eval.sampler.temperature, 1.0);
        QCOMPARE(eval.sampler.topK, std::int64_t(1));
        QCOMPARE(eval.sampler.topP, 1.0);
        QCOMPARE(eval.sampler.maxTokens, std::int64_t(4096));
        QVERIFY(!eval.stopAtEndToken);
        const auto rollout = dice::rolloutPreset();
        QCOMPARE(rollout.sampler.blockLength, std::int64_t(4));
        QCOMPARE(rollout.sampler.steps, std::int64_t(4));
        QVERIFY(rollout.sampler.strategy == dice::RemaskStrategy::LowConfidenceDynamic);
        QCOMPARE(rollout.sampler.threshold, 0.9);
        QCOMPARE(rollout.sampler.temperature, 1.0);
        QCOMPARE(rollout.sampler.topK, std::int64_t(0));
        QCOMPARE(rollout.sampler.topP, 1.0);
        QCOMPARE(rollout.sampler.maxTokens, std::int64_t(4096));
        QVERIFY(rollout.stopAtEndToken);
        // The result files' wording of a preset is the reference's.
        const auto json = dice::toJson(eval);
        QCOMPARE(json.at("remasking").get<std::string>(), std::string("low_confidence_static"));
        QCOMPARE(json.at("max_new_tokens").get<int>(), 4096);
        QVERIFY(dice::presetByName("eval").has_value());
        QVERIFY(dice::presetByName("rollout").has_value());
        QVERIFY(!dice::presetByName("greedy").has_value());
    }

    void extractionTakesTheFirstBlock() {
        const auto code = extractFirstCodeBlock(
            "Here is the kernel:\n```python\nimport torch\nclass ModelNew:\n    pass\n```\n"
            "And a test:\n```python\nprint(1)\n```\n");
        QVERIFY(code.found);
        QVERIFY(code.terminated);
        QCOMPARE(code.language, std::string("python"));
        QCOMPARE(code.blocks, 2);
        QCOMPARE(code.code, std::string("import torch\nclass ModelNew:\n    pass"));
    }

    void extractionTakesAnUnterminatedBlockToTheEnd() {
        const auto code =
            extractFirstCodeBlock("```cpp\n__global__ void k() {}\nint main() { return 0; }\n");
        QVERIFY(code.found);
        QVERIFY(!code.terminated);
        QCOMPARE(code.language, std::string("cpp"));
        QCOMPARE(code.code, std::string("__global__ void k() {}\nint main() { return 0; }"));
    }

    void extractionStripsMaskAndSpecialTokens() {
        const auto code = extractFirstCodeBlock(
            "```python\nx = 1<|MASK|><|MASK|>\ny = 2\n```<|im_end|><|endoftext|><MASK><|MASK|>");
        QVERIFY(code.found);
        QCOMPARE(code.code, std::string("x = 1\ny = 2"));
        QCOMPARE(code.masksRemoved, 4);
        QCOMPARE(code.specialsRemoved, 2);
        // A fence the model left half-masked is still a fence once the masks are gone.
        const auto split = extractFirstCodeBlock("``<|MASK|>`\ncode\n`<|MASK|>``");
        QVERIFY(split.found);
        QCOMPARE(split.code, std::string("code"));
    }

    void extractionWithoutAFenceFindsNothing() {
        const auto code = extractFirstCodeBlock("import torch\nclass ModelNew: ...\n");
        QVERIFY(!code.found);
        QVERIFY(code.code.empty());
        QCOMPARE(code.blocks, 0);
    }

    void extractionKeepsCodeOnTheFenceLine() {
        const auto bare = extractFirstCodeBlock("``` \nx = 1\n```");
        QCOMPARE(bare.code, std::string("x = 1"));
        QVERIFY(bare.language.empty());
        const auto inline_ = extractFirstCodeBlock("```x = torch.relu(y)```");
        QCOMPARE(inline_.code, std::string("x = torch.relu(y)"));
    }

    void spliceKeepsAnAnswerThatFollowedTheSkeleton() {
        const auto skeleton = scaledTanhSkeleton();
        const std::string middle = "scaled_tanh_source = \"\"\"\n__global__ void k() {}\n\"\"\"\n";
        const std::string answer = skeleton.prefix + "\n" + middle + "\n" + skeleton.suffix + "\n";
        const auto splice = spliceInfill(answer, skeleton.prefix, skeleton.suffix);
        QVERIFY(splice.prefixFound);
        QVERIFY(splice.suffixFound);
        QVERIFY(!splice.suffixRewritten);
        QCOMPARE(splice.middle + "\n", middle);
        QCOMPARE(splice.program, answer);
    }

    void spliceRestoresARewrittenSuffix() {
        const auto skeleton = scaledTanhSkeleton();
        std::string rewritten = skeleton.suffix;
        const std::string call = "scaled_tanh.scaled_tanh_cuda(x.contiguous(), self.scale)";
        rewritten.replace(rewritten.find(call), call.size(), "torch.tanh(x) * self.scale");
        const std::string middle = "scaled_tanh_source = \"\"\"\n__global__ void k() {}\n\"\"\"";
        const std::string answer = skeleton.prefix + "\n" + middle + "\n\n" + rewritten + "\n";
        const auto splice = spliceInfill(answer, skeleton.prefix, skeleton.suffix);
        QVERIFY(splice.suffixFound);
        QVERIFY(splice.suffixRewritten);
        QCOMPARE(splice.middle, middle);
        QVERIFY(splice.program.find("torch.tanh(x) * self.scale") == std::string::npos);
        QVERIFY(splice.program.find(call) != std::string::npos);
        QVERIFY(splice.note.find("rewrote the fixed suffix") != std::string::npos);
    }

    void spliceFindsTheMiddleWhenTheSuffixStartWasChanged() {
        const auto skeleton = scaledTanhSkeleton();
        // The first suffix line is gone, the class survives: the middle still ends at the
        // first line that belongs to the suffix.
        std::string rewritten = skeleton.suffix.substr(skeleton.suffix.find('\n') + 1);
        const std::string middle = "scaled_tanh_source = \"\"\"\n__global__ void k() {}\n\"\"\"";
        const std::string answer = middle + "\n\n" + rewritten + "\n";
        const auto splice = spliceInfill(answer, skeleton.prefix, skeleton.suffix);
        QVERIFY(!splice.suffixFound);
        QVERIFY(splice.suffixRewritten);
        QCOMPARE(splice.middle, middle);
        QCOMPARE(splice.program, skeleton.prefix + "\n" + middle + "\n\n" + skeleton.suffix + "\n");
    }

    void spliceAcceptsAMiddleOnly() {
        const auto skeleton = scaledTanhSkeleton();
        const std::string middle = "scaled_tanh_source = \"\"\"\n__global__ void k() {}\n\"\"\"";
        const auto splice = spliceInfill(middle, skeleton.prefix, skeleton.suffix);
        QVERIFY(!splice.prefixFound);
        QVERIFY(!splice.suffixFound);
        QVERIFY(!splice.suffixRewritten);
        QCOMPARE(splice.middle, middle);
        QCOMPARE(splice.program, skeleton.prefix + "\n" + middle + "\n" + skeleton.suffix + "\n");
    }

    void spliceRestoresARewrittenPrefix() {
        const auto skeleton = scaledTanhSkeleton();
        const std::string middle = "scaled_tanh_source = \"\"\"\n__global__ void k() {}\n\"\"\"";
        const std::string answer = "import torch\nimport torch.nn as nn\nimport os\n" + middle +
                                   "\n" + skeleton.suffix + "\n";
        const auto splice = spliceInfill(answer, skeleton.prefix, skeleton.suffix);
        QVERIFY(!splice.prefixFound);
        QVERIFY(splice.prefixRewritten);
        QVERIFY(splice.program.rfind(skeleton.prefix, 0) == 0);
        QCOMPARE(splice.middle, "import os\n" + middle);
    }

    void dialectIsRecognised() {
        const std::string native = dice::readTextFile(DICE_SOURCE_DIR "/docs/native-dialect.md");
        const size_t start = native.find("// ReLU over any float32 tensor.");
        QVERIFY(start != std::string::npos);
        const std::string relu = native.substr(start, native.find("```", start) - start);
        QVERIFY(detectDialect(relu).dialect == Dialect::Native);
        const auto examples = loadPromptExamples(kPrompts);
        QVERIFY(detectDialect(examples.modelNew).dialect == Dialect::KernelBench);
        QVERIFY(detectDialect(examples.model).dialect == Dialect::Unknown);
        QVERIFY(detectDialect("#pragma dice device\n__global__ void k() {}\n").dialect ==
                Dialect::Unknown);
        QCOMPARE(toString(Dialect::KernelBench), std::string("kernelbench"));
    }
};

QTEST_GUILESS_MAIN(TestKernelBenchPrompts)
#include "tst_kernelbench_prompts.moc"
