// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/tasks/task.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <random>

using nlohmann::json;

namespace {

json validTask() {
    return json::parse(R"({
        "format": "dice-task/1",
        "name": "scaled_add",
        "level": 1,
        "description": "x * 2 + y",
        "inputs": [
            {"name": "x", "dtype": "float32", "shape": ["B", "D"]},
            {"name": "y", "dtype": "float32", "shape": ["B", "D * 2 / 2"],
             "init": {"kind": "uniform", "low": -1, "high": 1}}
        ],
        "parameters": [{"name": "w", "shape": ["D"], "init": {"kind": "uniform_fan_in", "fan_in": "D"}}],
        "presets": {"small": {"B": 4, "D": 8}, "bench": {"B": 4096, "D": 65536}},
        "reference": "def reference(x: Tensor, y: Tensor, w: Tensor) -> Tensor:\n    return x * 2 + y * w\n",
        "flops": "3 * B * D",
        "tolerance": {"float32": {"atol": 1e-5, "rtol": 1e-5}}
    })");
}

std::string errorOf(const json& task) {
    try {
        dice::parseTask(task.dump(), "task.json");
    } catch (const dice::Error& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestTasks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void builtinSuiteLoads() {
        const auto suite = dice::loadTaskSuite(std::string(DICE_SOURCE_DIR) + "/resources/tasks");
        for (const auto& p : suite.problems)
            qWarning("%s: %s", p.path.c_str(), p.message.c_str());
        QVERIFY(suite.problems.empty());
        QVERIFY(suite.tasks.size() >= 5);
        for (const auto& task : suite.tasks) {
            QVERIFY(task.hasPreset("small"));
            QVERIFY2(task.hasPreset("bench"), task.name.c_str());
            QVERIFY(!task.pytorchModule.empty());
            QVERIFY(task.pytorchModule.find("class Model(nn.Module)") != std::string::npos);
            QVERIFY(task.pytorchModule.find("def get_inputs()") != std::string::npos);
            for (const auto& input : task.inputs) {
                const auto small = task.shape(input, "small");
                const auto bench = task.shape(input, "bench");
                QCOMPARE(small.size(), bench.size());
            }
        }
        // Sorted by level, then name.
        for (size_t i = 1; i < suite.tasks.size(); ++i) {
            const auto& a = suite.tasks[i - 1];
            const auto& b = suite.tasks[i];
            QVERIFY(a.level < b.level || (a.level == b.level && a.name < b.name));
        }
    }

    void parsesEveryField() {
        const dice::Task task = dice::parseTask(validTask().dump(), "t.json");
        QCOMPARE(task.name, std::string("scaled_add"));
        QCOMPARE(task.title, std::string("scaled_add"));
        QCOMPARE(task.inputs.size(), size_t(2));
        QCOMPARE(task.shape(task.inputs[1], "small"), (std::vector<std::int64_t>{4, 8}));
        QCOMPARE(task.shape(task.inputs[0], "bench"), (std::vector<std::int64_t>{4096, 65536}));
        QCOMPARE(task.inputs[1].init.kind, dice::InitSpec::Kind::Uniform);
        QCOMPARE(task.parameters[0].init.kind, dice::InitSpec::Kind::UniformFanIn);
        QCOMPARE(task.evaluate(task.flops, "small"), 96.0);
        QCOMPARE(task.tolerance(dice::DType::Float32).atol, 1e-5);
        QCOMPARE(task.tolerance(dice::DType::BFloat16).atol, 1e-2);
        QCOMPARE(task.seed, std::uint64_t(42));
    }

    void roundTripsThroughJson() {
        const dice::Task task = dice::parseTask(validTask().dump(), "t.json");
        const dice::Task back = dice::parseTask(dice::taskFileText(task), "t2.json");
        QCOMPARE(back.name, task.name);
        QCOMPARE(back.reference, task.reference);
        QCOMPARE(back.shape(back.inputs[1], "bench"), task.shape(task.inputs[1], "bench"));
        QCOMPARE(back.parameters[0].init.fanIn, std::string("D"));
        QCOMPARE(back.tolerance(dice::DType::Float32).rtol, 1e-5);
    }

    void rejectsBadFilesWithClearMessages_data() {
        QTest::addColumn<QString>("mutation");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << "<<not json>>"
                                  << "task.json: not valid JSON";
        // Found by fuzz_task_json: a number past double's range is nlohmann's out_of_range, not
        // its parse_error, and escaped the reader.
        QTest::newRow("number out of range") << " {\"format\": 888888888e8888}"
                                             << "task.json: not valid JSON";
        QTest::newRow("format") << R"({"format": "dice-task/9"})"
                                << "format: unsupported";
        QTest::newRow("name") << R"({"name": "9 lives"})"
                              << "name: \"9 lives\" is not a valid";
        QTest::newRow("level") << R"({"level": 4})"
                               << "level: must be 1, 2 or 3";
        QTest::newRow("no inputs") << R"({"inputs": []})"
                                   << "inputs: must be a non-empty list";
        QTest::newRow("dtype") << R"({"inputs": [{"name": "x", "dtype": "float8", "shape": [1]}]})"
                               << "inputs[0].dtype: unknown dtype \"float8\"";
        QTest::newRow("shape var") << R"({"inputs": [{"name": "x", "shape": ["Q"]}]})"
                                   << "unknown variable 'Q'";
        QTest::newRow("negative") << R"({"inputs": [{"name": "x", "shape": [-3]}]})"
                                  << "inputs[0].shape[0]: negative size";
        QTest::newRow("fraction") << R"({"inputs": [{"name": "x", "shape": ["B / 3"]}]})"
                                  << "not a size";
        QTest::newRow("init")
            << R"({"inputs": [{"name": "x", "shape": [1], "init": {"kind": "zeros"}}]})"
            << "inputs[0].init.kind: unknown kind \"zeros\"";
        QTest::newRow("reference")
            << R"({"reference": "def forward(x): return x"})"
            << "reference: must define a TorchScript function named reference";
        QTest::newRow("no small") << R"({"presets": {"small": null, "bench": {"B": 1, "D": 1}}})"
                                  << "needs a \"small\" preset";
        QTest::newRow("preset value") << R"({"presets": {"small": {"B": "four", "D": 1}}})"
                                      << "presets.small.B: must be an integer";
        QTest::newRow("tolerance") << R"({"tolerance": {"float32": {"atol": -1}}})"
                                   << "tolerance.float32: must not be negative";
        QTest::newRow("file escape")
            << R"({"parameters": [{"name": "w", "shape": [1], "init": {"kind": "file", "file": "../x", "tensor": "w"}}]})"
            << "must be a file name beside the task file";
        // A small preset of 20 GiB would be drawn in every dry run and CPU test.
        QTest::newRow("small 20 GiB")
            << R"({"presets": {"small": {"B": 40960, "D": 65536}}})"
            << "presets.small: its inputs and parameters take 20.00 GiB; a preset may ask for at "
               "most 1.00 GiB";
        QTest::newRow("bench 40 GiB")
            << R"({"presets": {"bench": {"B": 81920, "D": 65536}}})"
            << "presets.bench: its inputs and parameters take 40.00 GiB; a preset may ask for at "
               "most 32.00 GiB";
        QTest::newRow("bench overflow")
            << R"({"presets": {"bench": {"B": 4000000000000, "D": 4000000000000}}})"
            << "presets.bench: its inputs and parameters take";
    }

    void rejectsBadFilesWithClearMessages() {
        QFETCH(QString, mutation);
        QFETCH(QString, expected);
        std::string message;
        if (mutation.startsWith('{')) {
            json task = validTask();
            task.merge_patch(json::parse(mutation.toStdString()));
            message = errorOf(task);
        } else {
            try {
                dice::parseTask(mutation.toStdString(), "task.json");
            } catch (const dice::Error& e) {
                message = e.what();
            }
        }
        QVERIFY2(message.rfind("task.json: ", 0) == 0, message.c_str());
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
    }

    void mutatedFilesNeverCrash() {
        const std::string text = validTask().dump();
        std::mt19937 rng(1234);
        int rejected = 0;
        for (int round = 0; round < 3000; ++round) {
            std::string mutated = text;
            const int edits = 1 + static_cast<int>(rng() % 4);
            for (int e = 0; e < edits; ++e) {
                const size_t at = rng() % mutated.size();
                switch (rng() % 3) {
                case 0:
                    mutated[at] = static_cast<char>(rng() % 256);
                    break;
                case 1:
                    mutated.erase(at, 1 + rng() % 8);
                    break;
                default:
                    mutated.insert(at, 1, "{}[]\",:-0123456789eE"[rng() % 20]);
                }
                if (mutated.empty())
                    mutated = "{";
            }
            try {
                dice::parseTask(mutated, "fuzz.json");
            } catch (const dice::Error&) {
                ++rejected;
            }
        }
        QVERIFY(rejected > 1000);
    }

    void missingFolderIsAProblemNotACrash() {
        const auto suite = dice::loadTaskSuite("/nonexistent/folder/for/dice");
        QVERIFY(suite.tasks.empty());
        QCOMPARE(suite.problems.size(), size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestTasks)
#include "tst_tasks.moc"
