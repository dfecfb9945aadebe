// SPDX-License-Identifier: GPL-3.0-or-later
// The infill plan without a GUI. The prompts of the built-in skeletons are the ones the Infill
// area sent the model before the plan moved out of it into core (tests/fixtures/infill, captured
// from the area then; see the README there); the KernelBench dialect's prompt is DICE's own
// infilling prompt; answers become hole contents and selections become holes as they did in the
// area.
#include "core/common/file_util.h"
#include "core/infill/infill_plan.h"
#include "core/tasks/holes.h"
#include "core/tasks/task.h"
#include "core/tokenizer/chat_template.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace dice;

namespace {

const std::string kFixtures = DICE_TEST_FIXTURES "/";
const std::string kResources = DICE_SOURCE_DIR "/resources/";

std::string fixture(const std::string& name) {
    return readTextFile(kFixtures + name);
}

std::string withoutFinalNewline(std::string text) {
    if (!text.empty() && text.back() == '\n')
        text.pop_back();
    return text;
}

// Where two texts first differ, for a readable failure.
QByteArray firstDifference(const std::string& actual, const std::string& expected) {
    std::size_t i = 0;
    while (i < actual.size() && i < expected.size() && actual[i] == expected[i])
        ++i;
    const auto around = [i](const std::string& s) {
        return QByteArray::fromStdString(s.substr(std::min(i, s.size()), 40))
            .toPercentEncoding(" ");
    };
    return "differs at byte " + QByteArray::number(qulonglong(i)) + ": got \"" + around(actual) +
           "\", expected \"" + around(expected) + "\"";
}

const TaskSuite& builtinSuite() {
    static const TaskSuite suite = loadTaskSuite(kResources + "tasks");
    return suite;
}

const Task& builtinTask(const std::string& name) {
    const Task* task = builtinSuite().find(name);
    if (!task)
        throw std::runtime_error("no built-in task " + name);
    return *task;
}

std::string builtinSkeleton(const std::string& task) {
    const auto skeleton = makeSkeleton(readTextFile(kResources + "solutions/" + task + ".dice"));
    if (!skeleton)
        throw std::runtime_error("no skeleton for " + task);
    return skeleton->text;
}

// The scaled-tanh program of tests/fixtures/kernelbench split the way DICE's data split it: the
// prefix and suffix files without their final newline around the hole.
std::string scaledTanhPrefix() {
    return withoutFinalNewline(fixture("kernelbench/scaled_tanh_prefix.py"));
}
std::string scaledTanhSuffix() {
    return withoutFinalNewline(fixture("kernelbench/scaled_tanh_suffix.py"));
}
std::string scaledTanhSkeleton() {
    return scaledTanhPrefix() + holeMarker("kernel") + scaledTanhSuffix();
}
Task scaledTanhTask() {
    Task task;
    task.name = "scaled_tanh";
    task.pytorchModule = fixture("kernelbench/scaled_tanh_model.py");
    return task;
}

// Byte offset of the start of a 0-based line.
std::size_t lineStart(const std::string& text, int line) {
    std::size_t at = 0;
    for (int i = 0; i < line; ++i)
        at = text.find('\n', at) + 1;
    return at;
}

} // namespace

class TestInfillPlan : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dialects() {
        QCOMPARE(infillDialect(builtinSkeleton("relu")), InfillDialect::Native);
        QCOMPARE(infillDialect(scaledTanhSkeleton()), InfillDialect::KernelBench);
        // A PyTorch module without ModelNew is not a KernelBench candidate.
        QCOMPARE(infillDialect(builtinTask("relu").pytorchModule), InfillDialect::Native);
    }

    void nativePromptsAreTheAreasOnes_data() {
        QTest::addColumn<QString>("task");
        QTest::addColumn<QString>("hole");
        QTest::newRow("one hole, level 1") << "relu"
                                           << "relu_map";
        QTest::newRow("parameters") << "layer_norm"
                                    << "layer_norm_rows";
        QTest::newRow("first of two holes") << "linear_sum_scale"
                                            << "column_sums";
        QTest::newRow("second of two holes") << "linear_sum_scale"
                                             << "dot_rows";
        QTest::newRow("one of three holes, level 3") << "transformer_block"
                                                     << "attention64";
    }

    void nativePromptsAreTheAreasOnes() {
        QFETCH(QString, task);
        QFETCH(QString, hole);
        const std::string skeleton = builtinSkeleton(task.toStdString());
        const std::string context = contextForHole(skeleton, hole.toStdString(), {});
        QCOMPARE(context, skeleton);
        const HolePrompt prompt =
            promptForHole(context, hole.toStdString(), &builtinTask(task.toStdString()));
        QCOMPARE(prompt.problem, HolePrompt::Problem::None);
        const std::string expected =
            fixture("infill/native/" + task.toStdString() + "." + hole.toStdString() + ".txt");
        QVERIFY2(prompt.text == expected, firstDifference(prompt.text, expected));
    }

    // Every hole of every built-in skeleton: the instruction names the hole, and the skeleton the
    // model sees is the whole file with that hole in it.
    void everyBuiltinSkeletonHasItsPrompt() {
        int holes = 0;
        for (const Task& task : builtinSuite().tasks) {
            const auto path = kResources + "solutions/" + task.name + ".dice";
            if (!std::filesystem::is_regular_file(path))
                continue;
            const auto skeleton = makeSkeleton(readTextFile(path));
            QVERIFY2(skeleton, task.name.c_str());
            for (const std::string& hole : skeleton->holes) {
                const HolePrompt prompt = promptForHole(skeleton->text, hole, &task);
                QCOMPARE(prompt.problem, HolePrompt::Problem::None);
                const std::string head =
                    "Fill " + holeMarker(hole) + " in this DICE native kernel.\n\nTask: ";
                QVERIFY2(prompt.text.rfind(head, 0) == 0, (task.name + "." + hole).c_str());
                const std::string tail = "Skeleton:\n" + skeleton->text;
                QVERIFY2(prompt.text.size() > tail.size() &&
                             prompt.text.compare(prompt.text.size() - tail.size(), tail.size(),
                                                 tail) == 0,
                         (task.name + "." + hole).c_str());
                ++holes;
            }
        }
        QCOMPARE(holes, 54);
    }

    void otherHolesLendTheirProposals() {
        const std::string skeleton = builtinSkeleton("linear_sum_scale");
        const std::string proposal = "    /* proposed for column_sums */";
        const std::map<std::string, std::string> proposals = {{"column_sums", proposal},
                                                              {"dot_rows", "not for itself"}};
        const std::string context = contextForHole(skeleton, "dot_rows", proposals);
        const auto holes = findHoles(context);
        QCOMPARE(holes.size(), std::size_t(1));
        QCOMPARE(holes[0].name, std::string("dot_rows"));
        const auto column = findHoles(skeleton)[0];
        QCOMPARE(column.name, std::string("column_sums"));
        QCOMPARE(context, fillHole(skeleton, column, proposal));
        const HolePrompt prompt =
            promptForHole(context, "dot_rows", &builtinTask("linear_sum_scale"));
        const std::string expected =
            fixture("infill/native/linear_sum_scale.dot_rows.column_sums_proposed.txt");
        QVERIFY2(prompt.text == expected, firstDifference(prompt.text, expected));
        // A proposal for a hole the text does not have changes nothing.
        QCOMPARE(contextForHole(skeleton, "dot_rows", {{"elsewhere", "x"}}), skeleton);
    }

    void kernelBenchPromptIsDicesInfillingPrompt() {
        const Task task = scaledTanhTask();
        const HolePrompt prompt = promptForHole(scaledTanhSkeleton(), "kernel", &task);
        QCOMPARE(prompt.problem, HolePrompt::Problem::None);
        // DICE's own rendering of this problem's infilling prompt, in the chat template.
        const std::string actual = applyChatTemplate({{"user", prompt.text}});
        const std::string expected = fixture("kernelbench/scaled_tanh.infill.txt");
        QVERIFY2(actual == expected, firstDifference(actual, expected));
    }

    void kernelBenchPromptOfAHoleMadeInAProgram() {
        const std::string program = fixture("kernelbench/candidates/good_relu.py");
        // The kernel's body, lines 10 to 13, selected as whole lines.
        const HoleEdit edit =
            holeFromSelection(program, lineStart(program, 9), lineStart(program, 13), "relu_body");
        QCOMPARE(edit.problem, HoleEdit::Problem::None);
        const std::string skeleton = fixture("infill/kernelbench/good_relu_skeleton.py");
        QVERIFY2(edit.text == skeleton, firstDifference(edit.text, skeleton));
        QCOMPARE(infillDialect(skeleton), InfillDialect::KernelBench);

        const HolePrompt withTask = promptForHole(skeleton, "relu_body", &builtinTask("relu"));
        QCOMPARE(withTask.problem, HolePrompt::Problem::None);
        std::string expected = fixture("infill/kernelbench/good_relu.relu_body.txt");
        QVERIFY2(withTask.text == expected, firstDifference(withTask.text, expected));
        // Without a task the prompt has no reference module, but it is still the prompt.
        const HolePrompt withoutTask = promptForHole(skeleton, "relu_body", nullptr);
        QCOMPARE(withoutTask.problem, HolePrompt::Problem::None);
        expected = fixture("infill/kernelbench/good_relu.relu_body.no_task.txt");
        QVERIFY2(withoutTask.text == expected, firstDifference(withoutTask.text, expected));
    }

    void promptProblems() {
        const std::string skeleton = builtinSkeleton("relu");
        const HolePrompt missing = promptForHole(skeleton, "nope", &builtinTask("relu"));
        QCOMPARE(missing.problem, HolePrompt::Problem::NoSuchHole);
        QVERIFY(missing.text.empty());
        const HolePrompt noTask = promptForHole(skeleton, "relu_map", nullptr);
        QCOMPARE(noTask.problem, HolePrompt::Problem::NoTask);
        QVERIFY(noTask.text.empty());

        // The KernelBench prompt quotes example files of the data folder; without them it fails
        // and says which file is missing.
        QTemporaryDir empty;
        const QByteArray data = qgetenv("DICE_DATA_DIR");
        qputenv("DICE_DATA_DIR", empty.path().toUtf8());
        const Task task = scaledTanhTask();
        const HolePrompt failed = promptForHole(scaledTanhSkeleton(), "kernel", &task);
        qputenv("DICE_DATA_DIR", data);
        QCOMPARE(failed.problem, HolePrompt::Problem::Failed);
        QVERIFY(failed.text.empty());
        QVERIFY2(failed.message.find(".py") != std::string::npos, failed.message.c_str());
    }

    void nativeAnswersBecomeTheHole_data() {
        QTest::addColumn<QString>("answer");
        QTest::addColumn<QString>("content");
        QTest::newRow("fenced, with words around")
            << "Here is the body:\n```cuda\n    const long long i = blockIdx.x;\n    y[i] = "
               "x[i];\n```\nDone."
            << "const long long i = blockIdx.x;\n    y[i] = x[i];";
        QTest::newRow("unfenced, trailing blank lines")
            << "    const long long i = blockIdx.x;\n    y[i] = x[i];\n\n  \n"
            << "    const long long i = blockIdx.x;\n    y[i] = x[i];";
        QTest::newRow("model tokens") << "    y[0] = x[0];<|im_end|><|endoftext|><|MASK|><|MASK|>\n"
                                      << "    y[0] = x[0];";
        QTest::newRow("unterminated fence") << "```\n    y[0] = x[0];\n"
                                            << "y[0] = x[0];";
        QTest::newRow("two blocks: the first") << "```\nfirst();\n```\nand\n```\nsecond();\n```"
                                               << "first();";
        // A native answer is the body as written: code around it that the model repeated stays
        // (the evaluator then judges the candidate it makes).
        QTest::newRow("repeats the signature")
            << "```cuda\nextern \"C\" __global__ void relu_kernel(const float* x, float* y, long "
               "long n)\n{\n    y[0] = x[0];\n}\n```"
            << "extern \"C\" __global__ void relu_kernel(const float* x, float* y, long long "
               "n)\n{\n    y[0] = x[0];\n}";
    }

    void nativeAnswersBecomeTheHole() {
        QFETCH(QString, answer);
        QFETCH(QString, content);
        const HoleContent out =
            contentFromAnswer(builtinSkeleton("relu"), "relu_map", answer.toStdString());
        QCOMPARE(QString::fromStdString(out.content), content);
        QVERIFY(out.note.empty());
    }

    void kernelBenchAnswersKeepTheGivenPrefixAndSuffix_data() {
        QTest::addColumn<QString>("answer");
        QTest::addColumn<QString>("content");
        QTest::addColumn<QString>("note");
        const std::string middle = "scaled_tanh_source = \"\"\"\nBODY\n\"\"\"";
        const std::string whole = scaledTanhPrefix() + "\n" + middle + "\n" + scaledTanhSuffix();
        std::string changedSuffix = scaledTanhSuffix();
        changedSuffix.replace(changedSuffix.find("verbose=False"), 13, "verbose=True");
        const QString kept = "the answer kept the given prefix and suffix";
        const QString putBack =
            "the answer rewrote the fixed suffix; the given suffix was put back";
        QTest::newRow("fenced whole program")
            << QString::fromStdString("```python\n" + whole + "\n```\n")
            << QString::fromStdString(middle) << kept;
        QTest::newRow("unfenced whole program")
            << QString::fromStdString(whole) << QString::fromStdString(middle) << kept;
        QTest::newRow("the middle only")
            << QString::fromStdString("```python\n" + middle + "\n```")
            << QString::fromStdString(middle)
            << "the answer holds only the middle; the given prefix and suffix were added";
        QTest::newRow("a changed suffix")
            << QString::fromStdString("```python\n" + scaledTanhPrefix() + "\n" + middle + "\n" +
                                      changedSuffix + "\n```")
            << QString::fromStdString(middle) << putBack;
        // Unfenced, the model's end tokens are not code: they go before the splice, which then
        // finds the given suffix as it was written.
        QTest::newRow("model tokens after the program")
            << QString::fromStdString(whole + "<|im_end|><|endoftext|>")
            << QString::fromStdString(middle) << kept;
    }

    void kernelBenchAnswersKeepTheGivenPrefixAndSuffix() {
        QFETCH(QString, answer);
        QFETCH(QString, content);
        QFETCH(QString, note);
        const HoleContent out =
            contentFromAnswer(scaledTanhSkeleton(), "kernel", answer.toStdString());
        QCOMPARE(QString::fromStdString(out.content), content);
        QCOMPARE(QString::fromStdString(out.note), note);
    }

    void holesFromSelections_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("begin");
        QTest::addColumn<int>("end");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("result");
        const QString kernel =
            "__global__ void k(float* y) {\n    y[0] = 1.0f;\n    y[1] = 2.0f;\n}\n";
        const QString withHole = "__global__ void k(float* y) {\n    y[0] = 1.0f;\n    "
                                 "{{hole:b}}\n    y[2] = 3.0f;\n}\n";
        // Line 1 of both texts starts at byte 30, line 2 at byte 47.
        QTest::newRow("whole lines") << kernel << 30 << 64 << "body"
                                     << "__global__ void k(float* y) {\n    {{hole:body}}\n}\n";
        QTest::newRow("part of a line")
            << kernel << 39 << 45 << "value"
            << "__global__ void k(float* y) {\n    y[0] {{hole:value}};\n    y[1] = 2.0f;\n}\n";
        QTest::newRow("parts of two lines")
            << kernel << 39 << 55 << "mid"
            << "__global__ void k(float* y) {\n    y[0] {{hole:mid}} = 2.0f;\n}\n";
        QTest::newRow("anonymous") << kernel << 51 << 63 << ""
                                   << "__global__ void k(float* y) {\n    y[0] = 1.0f;\n    "
                                      "{{hole}}\n}\n";
        // A selection across an existing hole takes it in: the new hole stands for both.
        QTest::newRow("across a hole") << withHole << 34 << 78 << "a"
                                       << "__global__ void k(float* y) {\n    {{hole:a}}\n}\n";
    }

    void holesFromSelections() {
        QFETCH(QString, text);
        QFETCH(int, begin);
        QFETCH(int, end);
        QFETCH(QString, name);
        QFETCH(QString, result);
        const std::string before = text.toStdString();
        const HoleEdit edit = holeFromSelection(before, begin, end, name.toStdString());
        QCOMPARE(edit.problem, HoleEdit::Problem::None);
        QCOMPARE(QString::fromStdString(edit.text), result);
        // The edit an editor applies: only the changed part, and it gives the same text.
        std::string applied = before;
        applied.replace(edit.offset, edit.length, edit.replacement);
        QCOMPARE(QString::fromStdString(applied), result);
        QCOMPARE(edit.replacement, holeMarker(name.toStdString()));
        QCOMPARE(before.substr(0, edit.offset), edit.text.substr(0, edit.offset));
    }

    void refusedSelections() {
        const std::string withHole = "__global__ void k(float* y) {\n    y[0] = 1.0f;\n    "
                                     "{{hole:b}}\n    y[2] = 3.0f;\n}\n";
        HoleEdit edit = holeFromSelection(withHole, 34, 46, "b");
        QCOMPARE(edit.problem, HoleEdit::Problem::NameTaken);
        QVERIFY(edit.text.empty());
        // The name is checked against the holes of the text as it is, even the one the selection
        // would take in.
        edit = holeFromSelection(withHole, 34, 78, "b");
        QCOMPARE(edit.problem, HoleEdit::Problem::NameTaken);
        edit = holeFromSelection(withHole, 34, 46, "9lives");
        QCOMPARE(edit.problem, HoleEdit::Problem::Invalid);
        QCOMPARE(edit.message,
                 std::string("\"9lives\" is not a valid hole name (letters, digits, underscores)"));
        edit = holeFromSelection(withHole, 40, withHole.size() + 1, "c");
        QCOMPARE(edit.problem, HoleEdit::Problem::Invalid);
        QCOMPARE(edit.message, std::string("the selection lies outside the text"));
    }
};

QTEST_GUILESS_MAIN(TestInfillPlan)
#include "tst_infill_plan.moc"
