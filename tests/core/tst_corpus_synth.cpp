// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/jit.h>
#include <torch/script.h>

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include "core/common/error.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/data/corpus_synth.h"
#include "core/data/corpus_writer.h"
#include "core/infill/infill_plan.h"
#include "core/prompts/native_prompts.h"
#include "core/tasks/holes.h"
#include "core/tasks/task.h"

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

// What TorchScript's own compiler makes of an expression tree's reference: the operators it
// calls and the (consumer, producer) pairs among them, a tensor-by-tensor product named "mul" and
// a product by a constant "scale".
struct ReferenceGraph {
    std::set<std::string> ops;
    std::set<std::pair<std::string, std::string>> pairs;
    bool readsEveryInput = true;
};

ReferenceGraph referenceGraph(const std::string& reference) {
    auto unit = torch::jit::compile(reference);
    const auto graph = torch::jit::toGraphFunction(unit->get_function("reference")).graph();
    auto name = [](const torch::jit::Node* n) -> std::string {
        std::string kind = n->kind().toUnqualString();
        if (kind == "mul" && n->inputs().size() == 2 &&
            n->inputs()[1]->type()->kind() != c10::TypeKind::TensorType)
            return "scale";
        if (kind == "maximum")
            return "max";
        if (kind == "minimum")
            return "min";
        return kind;
    };
    ReferenceGraph out;
    for (const torch::jit::Value* in : graph->inputs())
        out.readsEveryInput = out.readsEveryInput && !in->uses().empty();
    for (const torch::jit::Node* n : graph->nodes()) {
        if (n->kind().ns() != c10::namespaces::aten)
            continue;
        out.ops.insert(name(n));
        for (const torch::jit::Value* in : n->inputs())
            if (in->node()->kind().ns() == c10::namespaces::aten)
                out.pairs.insert({name(n), name(in->node())});
    }
    return out;
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
            } else if (f.name.rfind("expr_tree_", 0) == 0) {
                QCOMPARE(splits[f.name], (std::set<std::string>{"train", "heldout_composition",
                                                                "heldout_primitive"}));
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

    // The expression trees' splits, read from what TorchScript compiles their references to:
    // training trees never call a held-out primitive (sin; softsign, the only division) nor
    // hold a held-out parent-child pair; held-out compositions hold such a pair of trained
    // primitives; held-out primitives call one.
    void expressionTreeSplits() {
        dice::SynthOptions options;
        // The trees' own count, apart from the other families'.
        options.variantsPerFamily = 3;
        options.treeVariants = 40;
        const std::set<std::pair<std::string, std::string>> heldPairs = {
            {"sigmoid", "mul"}, {"tanh", "sub"}, {"relu", "max"},
            {"square", "tanh"}, {"mul", "erf"},  {"erf", "mul"}};
        std::map<std::string, int> counts;
        std::set<std::string> trainedOps;
        std::map<std::string, int> perFamily;
        for (const auto& t : dice::synthesizeTasks(options)) {
            ++perFamily[t.family];
            if (t.family.rfind("expr_tree_", 0) != 0)
                continue;
            const auto g = referenceGraph(t.task.reference);
            const bool heldPrimitive = g.ops.count("sin") || g.ops.count("div");
            bool heldPair = false;
            for (const auto& pair : g.pairs)
                heldPair = heldPair || (heldPairs.count(pair) &&
                                        // mul's operands are both its inputs: either order.
                                        (pair.first != "erf" || pair.second == "mul"));
            const std::string split = dice::toString(t.split);
            ++counts[split];
            const std::string what = t.task.name + ": " + t.task.reference;
            if (split == "train") {
                QVERIFY2(!heldPrimitive && !heldPair, what.c_str());
                trainedOps.insert(g.ops.begin(), g.ops.end());
            } else if (split == "heldout_composition") {
                QVERIFY2(!heldPrimitive && heldPair, what.c_str());
            } else {
                QCOMPARE(split, std::string("heldout_primitive"));
                QVERIFY2(heldPrimitive, what.c_str());
            }
            QVERIFY2(g.readsEveryInput, what.c_str());
        }
        QCOMPARE(counts["train"], 2 * 30);
        QCOMPARE(counts["heldout_composition"], 2 * 6);
        QCOMPARE(counts["heldout_primitive"], 2 * 4);
        for (const auto& [family, n] : perFamily)
            QCOMPARE(n, family.rfind("expr_tree_", 0) == 0 ? 40 : 3);
        // Training covers every trained primitive the held-out compositions are made of.
        for (const char* op : {"relu", "tanh", "sigmoid", "abs", "square", "neg", "erf", "scale",
                               "add", "sub", "mul", "max", "min"})
            QVERIFY2(trainedOps.count(op), op);
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
            else if (archetype == "dim_reduction")
                QCOMPARE(out.sizes().vec(), (std::vector<int64_t>{inShape[0], inShape[2]}));
            else if (archetype == "pool" || archetype == "conv")
                QVERIFY2(out.dim() == 4 && out.size(0) == inShape[0] && out.size(1) == inShape[1] &&
                             out.size(2) <= inShape[2] && out.size(3) <= inShape[3],
                         t.task.name.c_str());
            else if (archetype == "matmul")
                QCOMPARE(out.sizes().vec(),
                         (std::vector<int64_t>{
                             inShape.front(),
                             t.task.shape(t.task.parameters.front(), "small").front()}));
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
        int infills = 0, inOrder = 0;
        std::set<std::string> ids;
        for (const auto& t : dice::synthesizeTasks(options)) {
            const auto examples = dice::corpusExamples(t);
            QCOMPARE(examples.front().kind, std::string("generate"));
            QCOMPARE(examples.front().answer, t.solution);
            const auto whole = dice::makeSkeleton(t.solution);
            for (size_t i = 1; i < examples.size(); ++i) {
                const auto& e = examples[i];
                QVERIFY2(ids.insert(e.id).second, e.id.c_str());
                QCOMPARE(e.kind, std::string("infill"));
                const auto at = e.prompt.find("Skeleton:\n");
                QVERIFY(at != std::string::npos);
                std::string skeleton = e.prompt.substr(at + 10);
                auto holes = dice::findHoles(skeleton);
                QVERIFY(!holes.empty());
                // The hole asked is the first one left, as the Infill area fills in order; the
                // holes after it, given their bodies, give the candidate back.
                QCOMPARE(holes[0].name, e.hole);
                skeleton = dice::fillHole(skeleton, holes[0], e.answer);
                inOrder += holes.size() > 1;
                for (holes = dice::findHoles(skeleton); !holes.empty();
                     holes = dice::findHoles(skeleton)) {
                    QVERIFY(whole.has_value());
                    const auto k =
                        std::find(whole->holes.begin(), whole->holes.end(), holes[0].name) -
                        whole->holes.begin();
                    QVERIFY(static_cast<size_t>(k) < whole->holes.size());
                    skeleton = dice::fillHole(skeleton, holes[0], whole->bodies[k]);
                }
                QCOMPARE(skeleton, t.solution);
                ++infills;
                const auto back = dice::corpusExampleFromJson(dice::toJsonLine(e));
                QCOMPARE(back.prompt, e.prompt);
                QCOMPARE(back.answer, e.answer);
            }
        }
        QVERIFY(infills > 100);
        QVERIFY(inOrder > 20);
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::corpusExampleFromJson("{\"id\": 3}"));
    }

    // The built-in tasks' examples ask exactly what the product asks: the generation prompt of
    // dice generate --task and the Generate area, and the Infill area's prompt for each hole of
    // the skeleton it shows. Their answers are the shipped solution without its comment lines.
    void builtinExamplesAskAsTheProductDoes() {
        const auto tasks = dice::builtinTrainingTasks();
        QCOMPARE(tasks.size(), std::size_t(46));
        const auto examples = dice::builtinExamples();
        std::set<std::string> families;
        for (const auto& t : tasks) {
            QVERIFY(t.split == dice::CorpusSplit::Train);
            families.insert(t.family);
            std::vector<dice::CorpusExample> mine;
            for (const auto& e : examples)
                if (e.task == t.task.name)
                    mine.push_back(e);
            QVERIFY2(!mine.empty(), t.task.name.c_str());
            const std::string plain = dice::withoutCommentLines(t.solution);
            QCOMPARE(mine.front().kind, std::string("generate"));
            QCOMPARE(mine.front().prompt,
                     dice::nativeGenerationPrompt(dice::findTask(t.task.name)));
            QCOMPARE(mine.front().answer, plain);
            QVERIFY2(plain.rfind("#pragma dice device", 0) == 0, t.task.name.c_str());
            const auto skeleton = dice::makeSkeleton(t.solution);
            QVERIFY2(skeleton.has_value(), t.task.name.c_str());
            std::map<std::string, std::string> proposals;
            for (std::size_t i = 0; i < skeleton->holes.size(); ++i) {
                const std::string& hole = skeleton->holes[i];
                const auto asked = dice::promptForHole(
                    dice::contextForHole(skeleton->text, hole, proposals), hole, &t.task);
                const auto found = std::find_if(mine.begin(), mine.end(), [&](const auto& e) {
                    return e.kind == "infill" && e.hole == hole && e.prompt == asked.text;
                });
                QVERIFY2(found != mine.end(), (t.task.name + "/" + hole).c_str());
                proposals[hole] = found->answer;
            }
            std::string filled = skeleton->text;
            const auto holes = dice::findHoles(filled);
            for (auto h = holes.rbegin(); h != holes.rend(); ++h)
                filled = dice::fillHole(filled, *h, proposals[h->name]);
            QCOMPARE(dice::withoutCommentLines(filled), plain);
        }
        QCOMPARE(families.size(), tasks.size());
    }

    // Comment lines go, code with a comment at its end and the host part's pragmas stay.
    void commentLinesGo() {
        const std::string text = "// header\n"
                                 "// more\n"
                                 "#pragma dice device\n"
                                 "#define N 4\n"
                                 "    // why\n"
                                 "int x; // kept\n"
                                 "\n"
                                 "// gone\n"
                                 "\n"
                                 "#pragma dice host\n"
                                 "# a host comment\n"
                                 "def forward(x: Tensor) -> Tensor:\n"
                                 "    # indented\n"
                                 "    return x // 2\n";
        QCOMPARE(dice::withoutCommentLines(text), std::string("#pragma dice device\n"
                                                              "#define N 4\n"
                                                              "int x; // kept\n"
                                                              "\n"
                                                              "#pragma dice host\n"
                                                              "def forward(x: Tensor) -> Tensor:\n"
                                                              "    return x // 2\n"));
    }
};

QTEST_GUILESS_MAIN(TestCorpusSynth)
#include "tst_corpus_synth.moc"
