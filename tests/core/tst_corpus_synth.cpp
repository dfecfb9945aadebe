// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/jit.h>
#include <torch/script.h>

#include "core/common/error.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/data/corpus_synth.h"
#include "core/data/corpus_writer.h"
#include "core/tasks/holes.h"

#include <QtTest>

#include <map>
#include <set>

namespace {

std::string devicePart(const std::string& solution) {
    const auto begin = solution.find("#pragma dice device");
    const auto end = solution.find("#pragma dice host");
    if (begin == std::string::npos || end == std::string::npos)
        return {};
    const auto body = solution.find('\n', begin) + 1;
    return solution.substr(body, end - body);
}

torch::Tensor makeInput(const dice::Task& task, const dice::TensorSpec& spec) {
    const auto shape = task.shape(spec, "small");
    if (spec.init.kind == dice::InitSpec::Kind::Uniform)
        return torch::rand(shape, torch::kFloat64) * (spec.init.b - spec.init.a) + spec.init.a;
    return torch::randn(shape, torch::kFloat64) * spec.init.b + spec.init.a;
}

} // namespace

class TestCorpusSynth : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void coversTheFamiliesAndSplits() {
        const auto families = dice::synthFamilies();
        QVERIFY(families.size() >= 30);
        int level1 = 0, level2 = 0;
        for (const auto& f : families)
            (f.level == 1 ? level1 : level2)++;
        QVERIFY(level1 >= 20);
        QVERIFY(level2 >= 8);

        dice::SynthOptions options;
        options.variantsPerFamily = 10;
        const auto tasks = dice::synthesizeTasks(options);
        QCOMPARE(tasks.size(), families.size() * 10);
        const auto heldOut = dice::defaultHeldOutFamilies();
        std::map<std::string, std::set<std::string>> splits;
        std::set<std::string> names;
        std::set<std::string> dtypes;
        for (const auto& t : tasks) {
            splits[t.family].insert(dice::toString(t.split));
            QVERIFY2(names.insert(t.task.name).second, t.task.name.c_str());
            dtypes.insert(dice::toString(t.task.inputs.front().dtype));
        }
        for (const auto& f : families) {
            const bool held = std::find(heldOut.begin(), heldOut.end(), f.name) != heldOut.end();
            if (held) {
                QCOMPARE(splits[f.name], (std::set<std::string>{"heldout_family"}));
            } else {
                QVERIFY(splits[f.name].count("train"));
                QVERIFY(splits[f.name].count("heldout_variant"));
            }
        }
        QVERIFY(dtypes.count("float16") && dtypes.count("bfloat16") && dtypes.count("float32"));
    }

    void isDeterministic() {
        dice::SynthOptions options;
        options.variantsPerFamily = 3;
        const auto a = dice::synthesizeTasks(options);
        const auto b = dice::synthesizeTasks(options);
        options.seed = 2;
        const auto c = dice::synthesizeTasks(options);
        int differ = 0;
        for (size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].solution, b[i].solution);
            QCOMPARE(dice::taskFileText(a[i].task), dice::taskFileText(b[i].task));
            differ += dice::taskFileText(a[i].task) != dice::taskFileText(c[i].task);
        }
        QVERIFY(differ > static_cast<int>(a.size()) / 2);
        options.heldOutFamilies = {"no_such_family"};
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::synthesizeTasks(options));
    }

    // Every reference is TorchScript that compiles and computes the right shape; the task files
    // read back as written.
    void referencesRun() {
        dice::SynthOptions options;
        options.variantsPerFamily = 4;
        torch::manual_seed(3);
        for (const auto& t : dice::synthesizeTasks(options)) {
            const auto back = dice::parseTask(dice::taskFileText(t.task), t.task.name + ".json");
            QCOMPARE(back.reference, t.task.reference);
            auto unit = torch::jit::compile(t.task.reference);
            std::vector<torch::jit::IValue> args;
            for (const auto& spec : t.task.inputs)
                args.push_back(makeInput(t.task, spec).to(torch::kFloat32));
            for (const auto& spec : t.task.parameters)
                args.push_back(makeInput(t.task, spec).to(torch::kFloat32));
            const auto out = unit->get_function("reference")(args).toTensor();
            QVERIFY2(torch::isfinite(out).all().item().toBool(), t.task.name.c_str());
            const auto inShape = t.task.shape(t.task.inputs.front(), "small");
            const std::string archetype = t.task.tags.size() > 1 ? t.task.tags[1] : "";
            if (archetype == "reduction")
                QCOMPARE(out.sizes().vec(), std::vector<int64_t>{inShape.front()});
            else
                QCOMPARE(out.sizes().vec(), inShape);
        }
    }

    // The device code of every distinct solution compiles with NVRTC, without a warning.
    void solutionsCompile() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::SynthOptions options;
        options.variantsPerFamily = 12;
        dice::NvrtcCompiler compiler;
        dice::CompileOptions compileOptions;
        compileOptions.architecture = "sm_90";
        // One per family, dtype and implementation (vectorised or not, block size): the constants
        // drawn between variants do not change what compiles.
        std::set<std::string> seen;
        int compiled = 0;
        for (const auto& t : dice::synthesizeTasks(options)) {
            const std::string device = devicePart(t.solution);
            QVERIFY2(!device.empty(), t.task.name.c_str());
            const std::string key = t.family + "/" + dice::toString(t.task.inputs.front().dtype) +
                                    "/" + std::to_string(device.find("_vec(") != std::string::npos);
            if (!seen.insert(key).second)
                continue;
            const auto result = compiler.compile(device, t.task.name + ".cu", compileOptions);
            QVERIFY2(result.ok, (t.task.name + ":\n" + result.log).c_str());
            QVERIFY2(result.warningCount() == 0, (t.task.name + ":\n" + result.log).c_str());
            ++compiled;
        }
        QVERIFY(compiled >= 49);
    }

    void infillExamplesSpliceBack() {
        dice::SynthOptions options;
        options.variantsPerFamily = 2;
        int infills = 0;
        for (const auto& t : dice::synthesizeTasks(options)) {
            const auto examples = dice::corpusExamples(t);
            QCOMPARE(examples.front().kind, std::string("generate"));
            QCOMPARE(examples.front().answer, t.solution);
            for (size_t i = 1; i < examples.size(); ++i) {
                const auto& e = examples[i];
                QCOMPARE(e.kind, std::string("infill"));
                const auto at = e.prompt.find("Skeleton:\n");
                QVERIFY(at != std::string::npos);
                const std::string skeleton = e.prompt.substr(at + 10);
                const auto holes = dice::findHoles(skeleton);
                QCOMPARE(holes.size(), size_t(1));
                QCOMPARE(holes[0].name, e.hole);
                QCOMPARE(dice::fillHole(skeleton, holes[0], e.answer), t.solution);
                ++infills;
                const auto back = dice::corpusExampleFromJson(dice::toJsonLine(e));
                QCOMPARE(back.prompt, e.prompt);
                QCOMPARE(back.answer, e.answer);
            }
        }
        QVERIFY(infills > 100);
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::corpusExampleFromJson("{\"id\": 3}"));
    }
};

QTEST_GUILESS_MAIN(TestCorpusSynth)
#include "tst_corpus_synth.moc"
