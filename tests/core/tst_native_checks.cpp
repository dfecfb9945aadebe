// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/script.h>
#include <torch/torch.h>

#include "core/common/error.h"
#include "core/common/statistics.h"
#include "core/eval/candidate_fault.h"
#include "core/eval/native_inputs.h"
#include "core/eval/native_output_checks.h"
#include "core/eval/native_timing.h"
#include "core/tasks/task.h"

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <set>

// The native evaluator's pieces that need no GPU, on CPU tensors: how outputs are judged, how
// the poison and the guard bands work, how inputs are drawn, and the timing figures.
using namespace dice;
using namespace dice::native;

namespace {

const c10::Device kCpu(c10::kCPU);

Task taskWith(std::vector<TensorSpec> inputs, std::vector<TensorSpec> parameters = {}) {
    Task t;
    t.name = "t";
    t.inputs = std::move(inputs);
    t.parameters = std::move(parameters);
    t.presets["small"] = {{"B", 4}, {"D", 8}, {"F", 25}};
    t.presets["bench"] = {{"B", 64}, {"D", 32}, {"F", 25}};
    t.reference = "def reference(x: Tensor) -> Tensor:\n    return x\n";
    return t;
}

TensorSpec spec(const std::string& name, DType dtype, std::vector<std::string> dims,
                InitSpec::Kind kind = InitSpec::Kind::Normal, double a = 0, double b = 1) {
    TensorSpec s;
    s.name = name;
    s.dtype = dtype;
    for (auto& d : dims)
        s.shape.push_back({std::move(d)});
    s.init.kind = kind;
    s.init.a = a;
    s.init.b = b;
    return s;
}

Comparison compare(const at::Tensor& out, const at::Tensor& ref, const Task& task = taskWith({}),
                   const EvalOptions& options = {}) {
    return compareOutputs({out}, {ref}, task, options);
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// Bits of the first element, whatever the element size.
std::uint64_t bitsOf(const at::Tensor& t) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, t.data_ptr(), t.element_size());
    return bits;
}

// A safetensors file by hand: the little-endian header length, the JSON header, the data.
void writeSafetensors(const std::string& path, const std::string& name,
                      const std::vector<float>& values) {
    const std::string header = "{\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[" +
                               std::to_string(values.size()) + "],\"data_offsets\":[0," +
                               std::to_string(values.size() * 4) + "]}}";
    std::ofstream out(path, std::ios::binary);
    std::uint64_t length = header.size();
    for (int i = 0; i < 8; ++i)
        out.put(static_cast<char>((length >> (8 * i)) & 0xFF));
    out << header;
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size() * sizeof(float)));
}

KernelRecord record(const std::string& name, std::uint64_t start, std::uint64_t end) {
    KernelRecord r;
    r.name = name;
    r.startNs = start;
    r.endNs = end;
    return r;
}

} // namespace

class TestNativeChecks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Without a table entry float32 allows 1e-4 + 1e-4 |ref|, the 16-bit floats 1e-2 + 1e-2 |ref|;
    // the task's table and the options' override replace them.
    void floatOutputsAreJudgedByTheirDtypesTolerance() {
        const auto ref = torch::ones({4});
        QVERIFY(compare(ref + 1.5e-4, ref).passed);
        const Comparison off = compare(ref + 3e-4, ref);
        QVERIFY(!off.passed);
        QCOMPARE(off.detail, std::string("4 of 4 elements outside atol 0.000100, rtol 0.000100"));
        QVERIFY(std::abs(off.maxAbs - 3e-4) < 1e-6);

        const auto half = torch::ones({4}, torch::kHalf);
        QVERIFY(compare(half + 0.0078125, half).passed);
        QVERIFY(!compare(half + 0.03125, half).passed);
        const auto bf16 = torch::ones({4}, torch::kBFloat16);
        QVERIFY(compare(bf16 + 0.015625, bf16).passed);
        QVERIFY(!compare(bf16 + 0.03125, bf16).passed);

        Task loose = taskWith({});
        loose.tolerances[DType::Float32] = {1e-3, 0};
        QVERIFY(compare(ref + 3e-4, ref, loose).passed);
        EvalOptions strict;
        strict.tolerance = 1e-6;
        QVERIFY(!compare(ref + 1.5e-4, ref, loose, strict).passed);

        const auto f64 = torch::ones({4}, torch::kFloat64);
        QVERIFY(compare(f64 + 1.5e-4, f64).passed);
        QVERIFY(!compare(f64 + 3e-4, f64).passed);
    }

    // Where the reference's values are small against atol, every element of a wrong answer can
    // lie within atol: the reward's 1e-2 took a neighbouring task's scaled softmax for a softmax
    // over 4,096 columns (values near 2.4e-4), and would take zeros. The output as a whole must be
    // within atol + rtol of the reference's L2 norm; an answer off by float32 rounding still
    // passes, as do the elementwise rule's own cases above.
    void smallValuesAreJudgedAsAWholeOutput() {
        torch::manual_seed(7);
        const auto x = 0.5 * torch::randn({16, 4096});
        const auto ref = torch::softmax(x, 1);
        EvalOptions reward;
        reward.tolerance = 1e-2;
        const Task task = taskWith({});

        const Comparison zeros = compare(torch::zeros_like(ref), ref, task, reward);
        QVERIFY(!zeros.passed);
        QVERIFY2(contains(zeros.detail, "every element is within atol 0.010000, rtol 0.010000, "
                                        "but the output as a whole is not: its L2 error is "
                                        "1.00e+00 of the reference's L2 norm"),
                 zeros.detail.c_str());
        QVERIFY(!compare(torch::softmax(x * 0.125, 1), ref, task, reward).passed);
        QVERIFY(!compare(torch::full_like(ref, 1.0 / 4096), ref, task, reward).passed);

        QVERIFY(compare(ref * (1 + 1e-5), ref, task, reward).passed);
        QVERIFY(compare(ref * (1 + 1e-5 * torch::randn({16, 4096})), ref, task).passed);
        // At the float32 tolerance the whole output also tells a 16-bit computation from a
        // 32-bit one, which every element's atol of 1e-4 hides at these sizes.
        QVERIFY(compare(torch::softmax(x.to(torch::kBFloat16), 1).to(torch::kFloat32), ref, task)
                    .detail.find("as a whole") != std::string::npos);
        QVERIFY(compare(torch::softmax(x.to(torch::kFloat64), 1).to(torch::kFloat32), ref, task)
                    .passed);
        // A reference of zeros leaves the elementwise rule alone.
        QVERIFY(compare(torch::full({4}, 5e-5), torch::zeros({4})).passed);
        // A reference that is rounding noise (the means of normalised values: zero but for
        // rounding) against a right answer's own noise, or zeros: both pass.
        const auto noise = 1e-8 * torch::randn({64});
        QVERIFY(compare(1e-8 * torch::randn({64}), noise, task).passed);
        QVERIFY(compare(torch::zeros({64}), noise, task).passed);
        // Zeros for a softmax whose values are larger than that noise still fail.
        const auto wide = torch::softmax(torch::randn({4, 65536}), 1);
        QVERIFY(!compare(torch::zeros_like(wide), wide, task, reward).passed);
    }

    void integerOutputsMustBeExact() {
        const auto ref = torch::tensor({1, 2, 3}, torch::kInt32);
        QVERIFY(compare(ref.clone(), ref).passed);
        const Comparison c = compare(torch::tensor({1, 5, 3}, torch::kInt32), ref);
        QVERIFY(!c.passed);
        QCOMPARE(c.detail, std::string("1 of 3 elements differ"));
        const auto mask = torch::tensor({true, false});
        QVERIFY(!compare(torch::tensor({true, true}), mask).passed);
    }

    // An element the candidate never wrote holds pass A's poison, a NaN: it fails, the detail
    // says why, and the errors stay finite for JSON.
    void nanInTheOutputIsReportedAsPoison() {
        const auto ref = torch::ones({4});
        auto out = ref.clone();
        fillPattern(out.narrow(0, 0, 2), kPoisonA);
        const Comparison c = compare(out, ref);
        QVERIFY(!c.passed);
        QCOMPARE(c.detail, std::string("2 of 4 elements outside atol 0.000100, rtol 0.000100 "
                                       "(2 are NaN: elements never written hold the poison)"));
        QCOMPARE(c.maxAbs, 0.0);
        QCOMPARE(c.maxRel, 0.0);

        auto finite = ref.clone();
        fillPattern(finite.narrow(0, 0, 1), kPoisonB);
        const Comparison b = compare(finite, ref);
        QVERIFY(!b.passed);
        QVERIFY2(!contains(b.detail, "NaN"), b.detail.c_str());
        QVERIFY(std::isfinite(b.maxAbs) && b.maxAbs > 0.05);
    }

    void largeOutputsAreComparedPieceByPieceAlike() {
        // Past the 64 Mi elements compared at once: a NaN in the first piece, a wrong element in
        // the second and the largest error in the third are all counted, as in one pass.
        const std::int64_t n = (std::int64_t(1) << 27) + 2;
        const auto ref = torch::ones({n});
        auto out = ref.clone();
        fillPattern(out.narrow(0, 3, 1), kPoisonA);
        out.narrow(0, (std::int64_t(1) << 26) + 7, 1).fill_(1.5);
        out.narrow(0, n - 1, 1).fill_(3.0);
        const Comparison c = compare(out.view({n / 5, 5}), ref.view({n / 5, 5}));
        QVERIFY(!c.passed);
        QCOMPARE(c.detail, "3 of " + std::to_string(n) +
                               " elements outside atol 0.000100, rtol 0.000100 (1 are NaN: "
                               "elements never written hold the poison)");
        QCOMPARE(c.maxAbs, 2.0);
        QCOMPARE(c.maxRel, 2.0);
    }

    void shapeDtypeAndCountMismatchesSayWhat() {
        const auto ref = torch::zeros({3, 2});
        QCOMPARE(compare(torch::zeros({2, 3}), ref).detail,
                 std::string("shape [2, 3], expected [3, 2]"));
        QCOMPARE(compare(torch::zeros({3, 2}, torch::kFloat64), ref).detail,
                 std::string("dtype Double, expected Float"));
        QCOMPARE(compare(at::Tensor(), ref).detail, std::string("undefined tensor"));
        const Task task = taskWith({});
        const Comparison count = compareOutputs({ref, ref}, {ref}, task, {});
        QVERIFY(!count.passed);
        QCOMPARE(count.detail, std::string("forward returned 2 tensors; the reference 1"));
        const Comparison second =
            compareOutputs({ref, torch::zeros({1})}, {ref, torch::zeros({2})}, task, {});
        QCOMPARE(second.detail, std::string("output 1: shape [1], expected [2]"));
        QVERIFY(compareOutputs({ref, ref}, {ref, ref}, task, {}).passed);
    }

    void forwardMustReturnTensors() {
        QCOMPARE(outputsOf(c10::IValue(torch::zeros({2}))).size(), std::size_t(1));
        std::vector<c10::IValue> tensors = {torch::zeros({1}), torch::ones({2})};
        const auto both = outputsOf(c10::IValue(c10::ivalue::Tuple::create(std::move(tensors))));
        QCOMPARE(both.size(), std::size_t(2));
        QCOMPARE(both[1].numel(), int64_t(2));
        try {
            outputsOf(c10::IValue(int64_t{3}));
            QFAIL("accepted an integer");
        } catch (const CandidateFault& fault) {
            QVERIFY2(contains(fault.message, "not a tensor or a tuple of tensors"),
                     fault.message.c_str());
        }
        try {
            std::vector<c10::IValue> mixed = {torch::zeros({1}), 2.5};
            outputsOf(c10::IValue(c10::ivalue::Tuple::create(std::move(mixed))));
            QFAIL("accepted a tuple with a float");
        } catch (const CandidateFault& fault) {
            QVERIFY2(contains(fault.message, "not tensors"), fault.message.c_str());
        }
    }

    void twoPassesAgreeBitwiseWithinToleranceOrNot() {
        const Task task = taskWith({});
        const auto a = torch::ones({8});
        QVERIFY(agreement({a}, {a.clone()}, task, {}) == Agreement::Identical);
        QVERIFY(agreement({a}, {a + 1e-5}, task, {}) == Agreement::WithinTolerance);
        QVERIFY(agreement({a}, {a + 1}, task, {}) == Agreement::Different);
        QVERIFY(agreement({a}, {torch::ones({4})}, task, {}) == Agreement::Different);
        QVERIFY(agreement({a}, {a, a}, task, {}) == Agreement::Different);
    }

    // Pass A's poison is a NaN in every floating dtype, pass B's a finite value near 1.1, and the
    // two differ for the integer types too: what the uninitialised-output check depends on.
    void poisonPatternsPerDtype() {
        for (const auto dtype :
             {torch::kFloat32, torch::kFloat16, torch::kBFloat16, torch::kFloat64}) {
            auto a = torch::zeros({5}, dtype);
            fillPattern(a, kPoisonA);
            QVERIFY2(a.isnan().all().item<bool>(), c10::toString(dtype));
            auto b = torch::zeros({5}, dtype);
            fillPattern(b, kPoisonB);
            const auto values = b.to(torch::kFloat64);
            QVERIFY2((values - 1.1).abs().max().item<double>() < 0.01, c10::toString(dtype));
            QVERIFY(patternIntact(a, kPoisonA) && patternIntact(b, kPoisonB));
            QVERIFY(!patternIntact(a, kPoisonB));
        }
        QCOMPARE(bitsOf([] {
                     auto t = torch::zeros({1}, torch::kFloat32);
                     fillPattern(t, kPoisonB);
                     return t;
                 }()),
                 bitsOf(torch::full({1}, 1.1f)));
        for (const auto dtype : {torch::kInt64, torch::kInt32, torch::kInt16, torch::kUInt8}) {
            auto a = torch::zeros({3}, dtype);
            auto b = torch::zeros({3}, dtype);
            fillPattern(a, kPoisonA);
            fillPattern(b, kPoisonB);
            QVERIFY2(!torch::equal(a, b), c10::toString(dtype));
        }
        auto t = torch::zeros({6});
        fillPattern(t, kPoisonB);
        t.narrow(0, 3, 1).fill_(0.0f);
        QVERIFY(!patternIntact(t, kPoisonB));
        QVERIFY(patternIntact(torch::zeros({0}), kPoisonA));
    }

    // The guard gives an allocation the same sizes and strides inside a larger poisoned buffer;
    // writes inside leave the bands intact, one element past either end does not.
    void guardBandsCatchWritesPastTheEnds() {
        PoisonGuard guard(kPoisonA, kBandA);
        const auto allocated = torch::empty({4, 3}).t();
        auto placed = guard.guard(allocated, true);
        QCOMPARE(placed.sizes().vec(), allocated.sizes().vec());
        QCOMPARE(placed.strides().vec(), allocated.strides().vec());
        QVERIFY(placed.isnan().all().item<bool>());
        QVERIFY(guard.bandsIntact());
        placed.fill_(2.0f);
        QVERIFY(guard.bandsIntact());
        placed.as_strided({1}, {1}, placed.storage_offset() + 12).fill_(0.0f);
        QVERIFY(!guard.bandsIntact());

        PoisonGuard before(kPoisonB, kBandB);
        auto early = before.guard(torch::empty({5}), true);
        early.as_strided({1}, {1}, early.storage_offset() - 1).fill_(0.0f);
        QVERIFY(!before.bandsIntact());

        // y[-1] = y[0] before y[0] is written copies the poison out of bounds: bands of the
        // poison itself would not change.
        for (const auto dtype : {torch::kFloat32, torch::kFloat16, torch::kBFloat16,
                                 torch::kFloat64, torch::kInt64, torch::kUInt8}) {
            for (int pass = 0; pass < 2; ++pass) {
                PoisonGuard copied(pass == 0 ? kPoisonA : kPoisonB, pass == 0 ? kBandA : kBandB);
                auto y = copied.guard(torch::empty({7}, dtype), true);
                QVERIFY(copied.bandsIntact());
                auto outside = y.as_strided({1}, {1}, y.storage_offset() - 1);
                outside.copy_(y.narrow(0, 0, 1));
                QVERIFY2(!copied.bandsIntact(), c10::toString(dtype));
            }
        }

        PoisonGuard copy(kPoisonA, kBandA);
        const auto initialised = torch::arange(6, torch::kFloat32);
        QVERIFY(torch::equal(copy.guard(initialised, false), initialised));
        QVERIFY(copy.bandsIntact());
    }

    // splitmix64's published first outputs for the seed 0, kept below 2^63.
    void seedsAreSplitmix64() {
        QCOMPARE(mixSeed(0, 0), std::uint64_t(0xE220A8397B1DCDAFULL & 0x7FFFFFFFFFFFFFFFULL));
        QCOMPARE(mixSeed(0, 1), std::uint64_t(0x6E789E6AA1B965F4ULL));
        QCOMPARE(mixSeed(0, 2), std::uint64_t(0x06C45D188009454FULL));
        std::set<std::uint64_t> seen;
        for (std::uint64_t salt = 0; salt < 1000; ++salt) {
            const std::uint64_t s = mixSeed(42, salt);
            QVERIFY(s < (std::uint64_t(1) << 63));
            seen.insert(s);
        }
        QCOMPARE(seen.size(), std::size_t(1000));
    }

    void inputsAreDrawnFromTheSeed() {
        const Task task =
            taskWith({spec("x", DType::Float32, {"B", "D"}, InitSpec::Kind::Normal, 2.0, 0.5),
                      spec("h", DType::Float16, {"D"}, InitSpec::Kind::Uniform, -3, -1),
                      spec("i", DType::Int32, {"B * 2"}, InitSpec::Kind::RandInt, 5, 9),
                      spec("m", DType::Bool, {"D"}, InitSpec::Kind::Bernoulli, 0.25)});
        const auto first = makeTensors(task, task.inputs, "small", 42, kCpu);
        const auto again = makeTensors(task, task.inputs, "small", 42, kCpu);
        const auto other = makeTensors(task, task.inputs, "small", 43, kCpu);
        QCOMPARE(first.size(), std::size_t(4));
        for (std::size_t i = 0; i < first.size(); ++i) {
            QVERIFY(torch::equal(first[i], again[i]));
            QVERIFY(first[i].scalar_type() == scalarType(task.inputs[i].dtype));
        }
        QVERIFY(!torch::equal(first[0], other[0]));
        // The i-th tensor is drawn from mixSeed(seed, i): the same as drawing it alone.
        QVERIFY(torch::equal(first[1],
                             makeTensor(task, task.inputs[1], "small", mixSeed(42, 1), kCpu)));
        QCOMPARE(first[0].sizes().vec(), (std::vector<int64_t>{4, 8}));
        QCOMPARE(makeTensors(task, task.inputs, "bench", 42, kCpu)[0].sizes().vec(),
                 (std::vector<int64_t>{64, 32}));
        const auto x = makeTensor(task, task.inputs[0], "bench", 7, kCpu);
        QVERIFY(std::abs(x.mean().item<double>() - 2.0) < 0.05);
        QVERIFY(std::abs(x.std().item<double>() - 0.5) < 0.05);
        QVERIFY(first[1].ge(-3).all().item<bool>() && first[1].le(-1).all().item<bool>());
        QVERIFY(first[2].ge(5).all().item<bool>() && first[2].lt(9).all().item<bool>());
        QVERIFY(first[3].scalar_type() == torch::kBool);
    }

    void fanInAndOnesInitialisation() {
        TensorSpec w = spec("w", DType::Float32, {"D", "F"}, InitSpec::Kind::UniformFanIn);
        w.init.fanIn = "F";
        const Task task = taskWith({spec("o", DType::Float64, {"B"}, InitSpec::Kind::Ones)}, {w});
        const auto weight = makeTensor(task, w, "small", 1, kCpu);
        // U(-1/sqrt(25), 1/sqrt(25)), drawn in float32.
        QVERIFY(weight.abs().max().item<double>() <= 0.2 + 1e-7);
        QVERIFY(weight.abs().max().item<double>() > 0.1);
        QVERIFY(torch::equal(makeTensor(task, task.inputs[0], "small", 1, kCpu),
                             torch::ones({4}, torch::kFloat64)));
    }

    // Parameters from a file beside the task keep their values; a missing tensor or a wrong shape
    // is a FileError that names the file, the tensor and the spec.
    void fileParametersComeFromBesideTheTask() {
        QTemporaryDir dir;
        const std::string folder = dir.path().toStdString();
        writeSafetensors(folder + "/weights.safetensors", "scale", {0.5f, -1.25f, 3.0f, 7.0f});
        TensorSpec s = spec("s", DType::Float32, {"B"}, InitSpec::Kind::File);
        s.init.file = "weights.safetensors";
        s.init.tensor = "scale";
        Task task = taskWith({}, {s});
        task.path = folder + "/task.json";
        QVERIFY(torch::equal(makeTensor(task, s, "small", 1, kCpu),
                             torch::tensor({0.5f, -1.25f, 3.0f, 7.0f})));
        try {
            makeTensor(task, s, "bench", 1, kCpu);
            QFAIL("accepted a parameter of the wrong shape");
        } catch (const FileError& e) {
            QVERIFY2(contains(e.what(), "scale has the shape [4], but s needs [64]"), e.what());
        }
        s.init.tensor = "other";
        try {
            makeTensor(task, s, "small", 1, kCpu);
            QFAIL("accepted a missing tensor");
        } catch (const FileError& e) {
            QVERIFY2(contains(e.what(), "has no tensor \"other\" for s"), e.what());
        }
    }

    void statisticsOfSamples() {
        QCOMPARE(median({4, 1, 3, 2}), 2.5);
        QCOMPARE(median({5, 1, 3}), 3.0);
        QCOMPARE(median({}), 0.0);
        QCOMPARE(mean({1, 2, 6}), 3.0);
        QCOMPARE(sampleStandardDeviation({7}), 0.0);
        QVERIFY(std::abs(sampleStandardDeviation({2, 4, 4, 4, 5, 5, 7, 9}) - std::sqrt(32.0 / 7)) <
                1e-12);

        const TimingStats t = statsOf({4, 1, 3, 2}, "cuda_events", 3);
        QCOMPARE(t.method, std::string("cuda_events"));
        QCOMPARE(t.warmups, 3);
        QCOMPARE(t.trials, 4);
        QCOMPARE(t.medianMs, 2.5);
        QCOMPARE(t.meanMs, 2.5);
        QVERIFY(std::abs(t.stdMs - std::sqrt(5.0 / 3)) < 1e-12);
        QCOMPARE(t.minMs, 1.0);
        QCOMPARE(t.maxMs, 4.0);
        QCOMPARE(t.samplesMs, (std::vector<double>{4, 1, 3, 2}));
        const TimingStats none = statsOf({}, "cupti", 0);
        QCOMPARE(none.trials, 0);
        QCOMPARE(none.medianMs, 0.0);
    }

    // CUPTI's records, in any order: a call's kernels are those between a spin and its mark; the
    // warm-up's window and the input-drawing kernels between windows are left out.
    void cuptiRecordsSplitIntoCalls() {
        const std::vector<KernelRecord> records = {
            record("late", 9000, 9500),
            record(kTimingSpinKernel, 100, 200),
            record("warmup", 250, 300),
            record(kTimingMarkKernel, 310, 320),
            record("draw_inputs", 400, 450),
            record(kTimingSpinKernel, 500, 600),
            record("b", 800, 1000),
            record("a", 650, 900),
            record(kTimingMarkKernel, 1100, 1110),
            record(kTimingSpinKernel, 2000, 2100),
            record(kTimingMarkKernel, 2200, 2210),
        };
        const auto calls = splitTimedCalls(records, 1);
        QCOMPARE(calls.size(), std::size_t(2));
        QCOMPARE(calls[0].size(), std::size_t(2));
        QCOMPARE(calls[0][0].name, std::string("a"));
        QCOMPARE(calls[0][1].name, std::string("b"));
        QVERIFY(calls[1].empty());
        const auto spans = kernelSpansMs(calls);
        QCOMPARE(spans.size(), std::size_t(2));
        QVERIFY(std::abs(spans[0] - 350e-6) < 1e-12);
        QCOMPARE(spans[1], 0.0);
        QCOMPARE(splitTimedCalls(records, 0).size(), std::size_t(3));
    }

    // A kernel is foreign unless CUPTI names it as one of the candidate's, or names it as a kernel
    // of a module this process loaded earlier while its grid and block are those of one of the
    // candidate's own launches (CUPTI's stale name for a reused function handle). A PyTorch kernel
    // stays foreign whatever its shape, and so does an earlier module's name on a launch shape the
    // candidate never used.
    void foreignKernelsAreThoseTheCandidateDidNotLaunch() {
        auto shaped = [](const std::string& name, int grid, int block) {
            KernelRecord r = record(name, 0, 1);
            r.gridX = grid;
            r.gridY = r.gridZ = r.blockY = r.blockZ = 1;
            r.blockX = block;
            return r;
        };
        const std::set<std::string> own = {"relu_kernel"};
        const std::set<LaunchShape> shapes = {{4096, 1, 1, 256, 1, 1}};
        const std::set<std::string> earlier = {"relu_kernel", "hardswish_kernel"};
        auto loadedEarlier = [&](const std::string& name) { return earlier.count(name) > 0; };
        const std::string aten =
            "void at::native::vectorized_elementwise_kernel<4, at::native::relu_functor>";
        const std::vector<std::vector<KernelRecord>> calls = {
            {shaped("relu_kernel", 4096, 256), shaped("hardswish_kernel", 4096, 256)},
            {shaped("hardswish_kernel", 8, 128), shaped(aten, 4096, 256),
             shaped("void at::native::fill_kernel<float>", 1, 1)},
        };
        const std::set<std::string> foreign = foreignKernels(calls, own, shapes, loadedEarlier);
        QCOMPARE(foreign, (std::set<std::string>{"hardswish_kernel", aten.substr(0, 120)}));
        QVERIFY(
            foreignKernels({{shaped("relu_kernel", 1, 1), shaped("hardswish_kernel", 4096, 256)}},
                           own, shapes, loadedEarlier)
                .empty());
        QCOMPARE(foreignKernels({{shaped("hardswish_kernel", 4096, 256)}}, own, shapes,
                                [](const std::string&) { return false; }),
                 (std::set<std::string>{"hardswish_kernel"}));
    }

    // The bound is the longer of moving the bytes at the peak bandwidth (twice the memory clock
    // over the bus) and computing the FLOPs at the dtype's most generous rate.
    void physicalBoundTakesTheLongerOfBytesAndFlops() {
        DeviceInfo gpu;
        gpu.computeMajor = 9;
        gpu.computeMinor = 0;
        gpu.multiprocessors = 132;
        gpu.clockKHz = 1980000;
        gpu.memoryClockKHz = 2619000;
        gpu.memoryBusWidthBits = 6144;
        const double bandwidth = 2.0 * 2619000e3 * 6144 / 8;
        QVERIFY(std::abs(physicalBoundMs(bandwidth / 1000, 0, false, gpu) - 1.0) < 1e-9);
        const double tensor = gpu.peakTensorFlops();
        const double fp32 = std::max(gpu.peakFp32Flops(), tensor / 2);
        QVERIFY(tensor > fp32);
        const double flops = tensor; // a second at the tensor rate
        QVERIFY(std::abs(physicalBoundMs(1, flops, true, gpu) - 1000.0) < 1e-6);
        QVERIFY(std::abs(physicalBoundMs(1, flops, false, gpu) - flops / fp32 * 1e3) < 1e-6);
        QCOMPARE(physicalBoundMs(1e9, 1e12, false, DeviceInfo{}), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestNativeChecks)
#include "tst_native_checks.moc"
