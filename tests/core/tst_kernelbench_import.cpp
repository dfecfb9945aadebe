// SPDX-License-Identifier: GPL-3.0-or-later
// The importer on the real KernelBench problems (../shared/data/kernelbench): the conversion
// rate of levels 1 and 2, and, for a handful of problems, the written task against PyTorch
// itself: the task file loads, the safetensors file holds the seeded Model's parameters, and the
// TorchScript reference compiled by LibTorch in C++ gives the original Model's output.
#include <torch/script.h>
#include <torch/torch.h>

#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/kernelbench/importer.h"
#include "core/kernelbench/python_runtime.h"
#include "core/tasks/task.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

using namespace dice::kernelbench;

namespace {

const std::string kProblems = DICE_SOURCE_DIR "/../shared/data/kernelbench";
const std::string kScripts = DICE_SOURCE_DIR "/resources/python";

dice::ChildResult runWithin(const std::vector<std::string>& argv, int timeoutMs) {
    dice::ChildRunOptions options;
    options.timeoutMs = timeoutMs;
    return dice::runChild({argv}, options);
}

// A plain safetensors reader, written apart from the importer's writer so that each checks the
// other against the format.
std::map<std::string, torch::Tensor> readSafetensors(const std::string& path) {
    const std::string bytes = dice::readTextFile(path);
    if (bytes.size() < 8)
        throw dice::FileError(path, "shorter than a header");
    std::uint64_t headerSize = 0;
    for (int i = 7; i >= 0; --i)
        headerSize = (headerSize << 8) | static_cast<unsigned char>(bytes[i]);
    if (headerSize > bytes.size() - 8)
        throw dice::FileError(path, "header runs past the end");
    const auto header = nlohmann::json::parse(bytes.substr(8, headerSize));
    const size_t dataStart = 8 + headerSize;
    std::map<std::string, torch::Tensor> tensors;
    std::uint64_t expectedOffset = 0;
    std::vector<std::pair<std::uint64_t, std::string>> order;
    for (auto it = header.begin(); it != header.end(); ++it)
        if (it.key() != "__metadata__")
            order.push_back({it.value()["data_offsets"][0].get<std::uint64_t>(), it.key()});
    std::sort(order.begin(), order.end());
    for (const auto& [begin, name] : order) {
        const auto& entry = header[name];
        const std::string dtype = entry["dtype"];
        const auto type = dtype == "F32"   ? torch::kFloat32
                          : dtype == "I64" ? torch::kInt64
                          : dtype == "F64" ? torch::kFloat64
                                           : throw dice::FileError(path, "dtype " + dtype);
        std::vector<std::int64_t> shape = entry["shape"];
        const std::uint64_t end = entry["data_offsets"][1];
        if (begin != expectedOffset)
            throw dice::FileError(path, name + " does not start where the previous one ends");
        auto tensor = torch::empty(shape, type);
        if (end - begin != static_cast<std::uint64_t>(tensor.nbytes()))
            throw dice::FileError(path, name + " has the wrong byte count");
        std::memcpy(tensor.data_ptr(), bytes.data() + dataStart + begin, end - begin);
        tensors[name] = tensor;
        expectedOffset = end;
    }
    if (dataStart + expectedOffset != bytes.size())
        throw dice::FileError(path, "data does not end at the end of the file");
    return tensors;
}

// Runs the problem file in plain PyTorch (no importer code): seeded Model, inputs at the given
// sizes, its output, written with the inputs to OUT as safetensors.
const char* const kExpectedScript = R"(
import ctypes, json, struct, sys, torch
problem, sizes, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
ns = {"__name__": "problem"}
exec(compile(open(problem).read(), problem, "exec"), ns)
for key, value in sizes.items():
    if key in ns:
        ns[key] = value
    else:
        base, _, index = key.rpartition("_")
        items = list(ns[base]); items[int(index)] = value; ns[base] = tuple(items)
torch.manual_seed(42)
init = ns["get_init_inputs"]()
torch.manual_seed(42)
model = ns["Model"](*init)
torch.manual_seed(42)
inputs = ns["get_inputs"]()
with torch.no_grad():
    torch.manual_seed(42)
    output = model(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
tensors = [("input%d" % i, x) for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)]
tensors.append(("output", output))
tensors += [("param." + k, v) for k, v in model.state_dict().items()]
header, offset, blobs = {}, 0, []
for name, t in tensors:
    t = t.detach().contiguous()
    if t.dtype == torch.bool:
        t = t.to(torch.int64)
    code = {torch.float32: "F32", torch.int64: "I64", torch.float64: "F64"}[t.dtype]
    size = t.numel() * t.element_size()
    header[name] = {"dtype": code, "shape": list(t.shape), "data_offsets": [offset, offset + size]}
    blobs.append(ctypes.string_at(t.data_ptr(), size))
    offset += size
text = json.dumps(header).encode()
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
)";

} // namespace

class TestKernelBenchImport : public QObject {
    Q_OBJECT
private:
    std::optional<PythonInfo> m_python;

private Q_SLOTS:
    void initTestCase() {
        ::setenv("DICE_PYTHON_SCRIPTS", kScripts.c_str(), 1);
        if (!std::filesystem::exists(kProblems + "/level1"))
            QSKIP("the KernelBench problems are not in ../shared/data/kernelbench");
        m_python = findPython(PythonNeed::Torch);
        if (!m_python)
            QSKIP("no python3 with PyTorch (scripts/setup.sh installs python3-torch)");
    }

    void levelsOneAndTwoConvert() {
        // Through the CLI, as a user runs it. --fast-init: the weights' values do not matter to
        // the conversion and the largest layers take minutes to draw on some CPUs.
        const auto run =
            runWithin({DICE_BIN_DIR "/dice", "import", "kernelbench", "--dry-run", "--fast-init",
                       "--json", kProblems + "/level1", kProblems + "/level2"},
                      3000 * 1000);
        QVERIFY2(run.exit.started() && !run.exit.timedOut, run.err.c_str());
        const auto report = nlohmann::json::parse(run.out);
        const int files = report["files"];
        const int converted = report["converted"];
        QCOMPARE(files, 200);
        for (const auto& p : report["problems"])
            if (!p["converted"].get<bool>())
                qInfo("not converted: %s: %s", p["source"].get<std::string>().c_str(),
                      p["reason"].get<std::string>().c_str());
        qInfo("%d of %d KernelBench level-1 and level-2 problems convert with PyTorch %s",
              converted, files, report["torch"].get<std::string>().c_str());
        QVERIFY2(converted >= 180, "fewer than 90% of levels 1 and 2 convert");
        std::map<std::string, bool> known;
        for (const auto& p : report["problems"])
            known[std::filesystem::path(p["source"].get<std::string>()).filename().string()] =
                p["converted"];
        for (const char* name : {"19_ReLU.py", "1_Square_matrix_multiplication_.py",
                                 "50_conv_standard_2D__square_input__square_kernel.py",
                                 "1_Conv2D_ReLU_BiasAdd.py", "95_CrossEntropyLoss.py"})
            QVERIFY2(known[name], name);
    }

    void writtenTasksMatchPyTorch_data() {
        QTest::addColumn<QString>("problem");
        QTest::newRow("ReLU") << "level1/19_ReLU.py";
        QTest::newRow("cross entropy, int64 targets") << "level1/95_CrossEntropyLoss.py";
        QTest::newRow("conv, parameters") << "level2/1_Conv2D_ReLU_BiasAdd.py";
        QTest::newRow("gemm and batch norm") << "level2/33_Gemm_Scale_BatchNorm.py";
        QTest::newRow("transposed conv, shape unpacking")
            << "level2/38_ConvTranspose3d_AvgPool_Clamp_Softmax_Multiply.py";
    }

    void writtenTasksMatchPyTorch() {
        QFETCH(QString, problem);
        const std::string source = kProblems + "/" + problem.toStdString();
        QTemporaryDir out;
        ImportOptions options;
        options.outputDirectory = out.path().toStdString();
        const auto report = importKernelBench({source}, options);
        QCOMPARE(report.problems.size(), size_t(1));
        const auto& imported = report.problems[0];
        QVERIFY2(imported.converted, imported.reason.c_str());
        const dice::Task task = dice::loadTask(imported.taskFile);
        QCOMPARE(task.level, problem.startsWith("level1") ? 1 : 2);
        QCOMPARE(task.pytorchModule, dice::readTextFile(source));

        std::map<std::string, torch::Tensor> parameters;
        if (!task.parameters.empty()) {
            const auto& first = task.parameters.front().init;
            QVERIFY(first.kind == dice::InitSpec::Kind::File);
            parameters =
                readSafetensors(out.filePath(QString::fromStdString(first.file)).toStdString());
        }
        QCOMPARE(parameters.size(), task.parameters.size());

        // The original Model, in PyTorch, at the task's small sizes.
        nlohmann::json sizes = task.presets.at("small");
        const std::string expectedFile = out.filePath("expected.safetensors").toStdString();
        const auto python = runWithin(
            {m_python->executable, "-c", kExpectedScript, source, sizes.dump(), expectedFile},
            600000);
        QVERIFY2(python.ok(), python.err.c_str());
        const auto expected = readSafetensors(expectedFile);
        for (const auto& spec : task.parameters) {
            const auto& tensor = parameters.at(spec.name);
            QCOMPARE(tensor.sizes().vec(), task.shape(spec, "bench"));
            // Parameter names are the module paths with dots turned into underscores.
            bool matched = false;
            for (const auto& [name, value] : expected) {
                if (name.rfind("param.", 0) != 0)
                    continue;
                std::string flat = name.substr(6);
                std::replace(flat.begin(), flat.end(), '.', '_');
                if (flat == spec.name) {
                    QVERIFY2(torch::equal(value, tensor), spec.name.c_str());
                    matched = true;
                }
            }
            QVERIFY2(matched, spec.name.c_str());
        }

        // The reference, compiled by LibTorch's C++ TorchScript compiler (it resolves
        // `torch` to the aten operators), on the same inputs.
        auto unit = torch::jit::compile(task.reference);
        std::vector<torch::jit::IValue> arguments;
        for (size_t i = 0; i < task.inputs.size(); ++i) {
            const auto& value = expected.at("input" + std::to_string(i));
            QCOMPARE(value.sizes().vec(), task.shape(task.inputs[i], "small"));
            arguments.push_back(task.inputs[i].dtype == dice::DType::Bool ? value.to(torch::kBool)
                                                                          : value);
        }
        for (const auto& spec : task.parameters)
            arguments.push_back(parameters.at(spec.name));
        torch::NoGradGuard noGrad;
        torch::manual_seed(42);
        const torch::Tensor actual = unit->get_function("reference")(arguments).toTensor();
        const torch::Tensor& want = expected.at("output");
        QCOMPARE(actual.sizes().vec(), want.sizes().vec());
        QVERIFY2(torch::allclose(actual, want, 1e-4, 1e-5),
                 ("max difference " + std::to_string((actual - want).abs().max().item<double>()))
                     .c_str());
    }

    // A problem that kills the importer, or keeps it past the time limit, costs that problem
    // only: it is reported with what happened and a fresh importer converts the rest, and the
    // CLI writes its report.
    void aProblemThatEndsTheImporterCostsOnlyItself() {
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath("level1")));
        const std::string tail = "\nclass Model(nn.Module):\n    def forward(self, x):\n"
                                 "        return torch.relu(x)\n\n"
                                 "def get_inputs():\n    return [torch.rand(4, 8)]\n\n"
                                 "def get_init_inputs():\n    return []\n";
        const std::map<std::string, std::string> problems = {
            {"1_Relu.py", ""},
            {"2_Killed.py", "os.kill(os.getpid(), signal.SIGKILL)\n"},
            {"3_Relu.py", ""},
            {"4_Forever.py", "while True:\n    pass\n"},
            {"5_Relu.py", ""}};
        for (const auto& [name, mischief] : problems)
            dice::writeFileAtomically(
                dir.filePath("level1/" + QString::fromStdString(name)).toStdString(),
                "import os\nimport signal\nimport torch\nimport torch.nn as nn\n" + mischief +
                    tail);
        const std::string report = dir.filePath("report.json").toStdString();
        const auto run = runWithin({DICE_BIN_DIR "/dice", "import", "kernelbench", "--dry-run",
                                    "--problem-timeout", "15", "--report", report,
                                    dir.filePath("level1").toStdString()},
                                   600 * 1000);
        QVERIFY2(run.exit.started() && !run.exit.timedOut, run.err.c_str());
        QCOMPARE(run.exit.exitCode, 1);
        const auto file = nlohmann::json::parse(dice::readTextFile(report));
        QCOMPARE(file["files"].get<int>(), 5);
        QCOMPARE(file["converted"].get<int>(), 3);
        std::map<std::string, std::string> reasons;
        for (const auto& p : file["problems"])
            reasons[p["source"].get<std::string>()] =
                p["converted"].get<bool>() ? "" : p["reason"].get<std::string>();
        QCOMPARE(reasons["level1/1_Relu.py"], std::string());
        QCOMPARE(reasons["level1/3_Relu.py"], std::string());
        QCOMPARE(reasons["level1/5_Relu.py"], std::string());
        QVERIFY2(reasons["level1/2_Killed.py"].find("signal 9") != std::string::npos,
                 reasons["level1/2_Killed.py"].c_str());
        QVERIFY2(reasons["level1/4_Forever.py"].find("longer than 15 s") != std::string::npos,
                 reasons["level1/4_Forever.py"].c_str());
    }

    void unconvertibleProblemsSayWhy() {
        QTemporaryDir dir;
        const QString path = dir.filePath("level1/1_Branchy.py");
        QVERIFY(QDir().mkpath(dir.filePath("level1")));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n"
                   "    def forward(self, x):\n        if x.sum() > 0:\n"
                   "            return x\n        return -x\n\n"
                   "def get_inputs():\n    return [torch.rand(4, 8)]\n\n"
                   "def get_init_inputs():\n    return []\n");
        file.close();
        ImportOptions options;
        options.dryRun = true;
        const auto report = importKernelBench({path.toStdString()}, options);
        QCOMPARE(report.problems.size(), size_t(1));
        QVERIFY(!report.problems[0].converted);
        QVERIFY2(report.problems[0].reason.find("branches") != std::string::npos,
                 report.problems[0].reason.c_str());
        // Weights that pass what the workbench lets a small preset hold (parameters keep their
        // shapes in every preset): refused with the figures, not written as a task the workbench
        // would refuse to load. The importer's limit is the task loader's.
        const QString heavy = dir.filePath("level3/1_Heavy.py");
        QVERIFY(QDir().mkpath(dir.filePath("level3")));
        QFile heavyFile(heavy);
        QVERIFY(heavyFile.open(QIODevice::WriteOnly));
        heavyFile.write("import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n"
                        "    def __init__(self):\n        super().__init__()\n"
                        "        self.fc = nn.Linear(16384, 18000, bias=False)\n"
                        "    def forward(self, x):\n        return self.fc(x)\n\n"
                        "def get_inputs():\n    return [torch.rand(2, 16384)]\n\n"
                        "def get_init_inputs():\n    return []\n");
        heavyFile.close();
        ImportOptions fast = options;
        fast.fastInit = true;
        const auto heavyReport = importKernelBench({heavy.toStdString()}, fast);
        QCOMPARE(heavyReport.problems.size(), size_t(1));
        QVERIFY(!heavyReport.problems[0].converted);
        QVERIFY2(heavyReport.problems[0].reason.find("1.10 GiB of it parameters") !=
                     std::string::npos,
                 heavyReport.problems[0].reason.c_str());
        const std::string importer =
            dice::readTextFile(DICE_SOURCE_DIR "/resources/python/kernelbench_import.py");
        QVERIFY(importer.find("SMALL_PRESET_BYTES = 1 << 30 ") != std::string::npos);
        QCOMPARE(dice::kMaxSmallPresetBytes, std::int64_t(1) << 30);
        // A level-4 problem needs a model hub: refused with that reason, not labelled level 3.
        QVERIFY(QDir().mkpath(dir.filePath("level4")));
        QVERIFY(QFile::copy(path, dir.filePath("level4/1_Hub.py")));
        const auto hub =
            importKernelBench({dir.filePath("level4/1_Hub.py").toStdString()}, options);
        QCOMPARE(hub.problems.size(), size_t(1));
        QVERIFY(!hub.problems[0].converted);
        QVERIFY2(hub.problems[0].reason.find("level 4") != std::string::npos,
                 hub.problems[0].reason.c_str());
        try {
            importKernelBench({dir.filePath("missing.py").toStdString()}, options);
            QFAIL("imported a file that does not exist");
        } catch (const dice::FileError& e) {
            QVERIFY2(std::string(e.what()).find("missing.py") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestKernelBenchImport)
#include "tst_kernelbench_import.moc"
