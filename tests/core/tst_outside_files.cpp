// SPDX-License-Identifier: GPL-3.0-or-later
// Every reader of files that come from outside refuses what is not a regular file under its size
// limit, at once and with a message that names the file and what it is: a FIFO (which would hang
// a plain open), /dev/zero (which would feed a plain read without end), a directory, and a sparse
// file one byte over the limit; and JSON nested deeper than a reader can copy.
#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/common/json_depth.h"
#include "core/eval/candidate.h"
#include "core/model/model_config.h"
#include "core/model/safetensors.h"
#include "core/tasks/task.h"
#include "core/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

struct Reader {
    const char* name;
    const char* fileName; // the name the reader finds the file under in a model or task folder
    dice::FileLimit limit;
    std::function<void(const std::string&)> read;
};

std::vector<Reader> readers() {
    return {
        {"safetensors", "model.safetensors", dice::limits::kSafetensors,
         [](const std::string& p) { dice::SafetensorsFile::open(p); }},
        {"safetensors index", "model.safetensors.index.json", dice::limits::kSafetensorsIndex,
         [](const std::string& p) { dice::SafetensorsCheckpoint::openIndex(p); }},
        {"config.json", "config.json", dice::limits::kModelConfig,
         [](const std::string& p) { dice::loadModelConfig(p); }},
        {"generation_config.json", "generation_config.json", dice::limits::kGenerationConfig,
         [](const std::string& p) { dice::loadGenerationConfig(p); }},
        {"tokenizer.json", "tokenizer.json", dice::limits::kTokenizerJson,
         [](const std::string& p) { dice::Tokenizer::load(p); }},
        {"task file", "relu.json", dice::limits::kTaskFile,
         [](const std::string& p) { dice::loadTask(p); }},
        {"candidate", "relu.dice", dice::limits::kCandidate,
         [](const std::string& p) { dice::readCandidateFile(p); }},
    };
}

// The reader's message, or why there is none. A reader that blocks is failed after 10 s and
// released by opening the FIFO's other end, so that a regression fails instead of hanging.
std::string messageOf(const Reader& reader, const std::string& path) {
    std::promise<std::string> outcome;
    auto future = outcome.get_future();
    std::thread worker([&] {
        try {
            reader.read(path);
            outcome.set_value("no error");
        } catch (const dice::FileError& e) {
            outcome.set_value(e.path() == path
                                  ? std::string(e.what())
                                  : "an error about another file: " + std::string(e.what()));
        } catch (const std::exception& e) {
            outcome.set_value(std::string("not a FileError: ") + e.what());
        }
    });
    if (future.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0)
            ::close(fd);
        worker.join();
        return "blocked for more than 10 s";
    }
    worker.join();
    return future.get();
}

void expectRefused(const std::string& path, const Reader& reader, const std::string& expected) {
    const auto started = std::chrono::steady_clock::now();
    const std::string message = messageOf(reader, path);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    QVERIFY2(message.find(expected) != std::string::npos,
             qPrintable(QString("%1: expected \"%2\", got \"%3\"")
                            .arg(reader.name, QString::fromStdString(expected),
                                 QString::fromStdString(message))));
    QVERIFY2(seconds < 2.0, qPrintable(QString("%1 took %2 s").arg(reader.name).arg(seconds)));
}

// "16 MiB" for 16 << 20: the limits are whole units, as the messages print them.
std::string unitText(std::uint64_t bytes) {
    if (bytes % dice::limits::kGiB == 0)
        return std::to_string(bytes / dice::limits::kGiB) + " GiB";
    if (bytes % dice::limits::kMiB == 0)
        return std::to_string(bytes / dice::limits::kMiB) + " MiB";
    return std::to_string(bytes / dice::limits::kKiB) + " KiB";
}

} // namespace

class TestOutsideFiles : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fifoIsRefusedWithoutBlocking() {
        for (const auto& reader : readers()) {
            QTemporaryDir dir;
            const std::string path = dir.filePath(reader.fileName).toStdString();
            QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
            expectRefused(path, reader, path + ": is a FIFO, not a regular file");
        }
    }

    void deviceIsRefused() {
        if (!std::filesystem::exists("/dev/zero"))
            QSKIP("this machine has no /dev/zero");
        for (const auto& reader : readers()) {
            QTemporaryDir dir;
            const std::string path = dir.filePath(reader.fileName).toStdString();
            std::filesystem::create_symlink("/dev/zero", path);
            expectRefused(path, reader, path + ": is a character device, not a regular file");
        }
    }

    void directoryIsRefused() {
        for (const auto& reader : readers()) {
            QTemporaryDir dir;
            const std::string path = dir.filePath(reader.fileName).toStdString();
            std::filesystem::create_directory(path);
            expectRefused(path, reader, path + ": is a directory, not a regular file");
        }
    }

    void fileOverTheLimitIsRefusedUnread() {
        for (const auto& reader : readers()) {
            QTemporaryDir dir;
            const std::string path = dir.filePath(reader.fileName).toStdString();
            std::ofstream(path).put('{');
            std::error_code ec;
            std::filesystem::resize_file(path, reader.limit.maxBytes + 1, ec);
            if (ec)
                QSKIP(qPrintable(QString("this file system holds no sparse file of %1 bytes: %2")
                                     .arg(reader.limit.maxBytes + 1)
                                     .arg(QString::fromStdString(ec.message()))));
            expectRefused(path, reader,
                          path + ": is larger than the " + unitText(reader.limit.maxBytes) +
                              " allowed for " + reader.limit.kind + " (" +
                              std::to_string(reader.limit.maxBytes + 1) + " bytes)");
        }
    }

    void fileAtTheLimitIsRead() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("at-limit").toStdString();
        const dice::FileLimit limit{"a test file", 4096};
        std::ofstream(path) << std::string(4096, 'x');
        QCOMPARE(dice::readTextFile(path, limit), std::string(4096, 'x'));
        std::ofstream(path, std::ios::app) << 'x';
        QVERIFY_THROWS_EXCEPTION(dice::FileError, dice::readTextFile(path, limit));
    }

    // Files of /proc report a size of 0: they are read to their end, still within the limit.
    void fileThatReportsNoSizeIsReadWithinTheLimit() {
        if (!std::filesystem::exists("/proc/self/status"))
            QSKIP("this machine has no /proc");
        const std::string status = dice::readTextFile("/proc/self/status");
        QVERIFY(status.find("Name:") != std::string::npos);
        try {
            dice::readTextFile("/proc/self/status", dice::FileLimit{"a test file", 16});
            QFAIL("a 16-byte limit let all of /proc/self/status through");
        } catch (const dice::FileError& e) {
            QVERIFY2(std::string(e.what()).find("is larger than the 16 bytes allowed for a test "
                                                "file (found when it was read)") !=
                         std::string::npos,
                     e.what());
        }
    }

    void missingFileNamesTheReason() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("absent.json").toStdString();
        try {
            dice::loadTask(path);
            QFAIL("a missing task file was read");
        } catch (const dice::FileError& e) {
            QCOMPARE(std::string(e.what()), path + ": cannot open: No such file or directory");
        }
    }

    // Text nested hundreds of thousands of levels deep parses, but copying a part of it recurses
    // once per level and exhausts the stack (dice runs import and dice train rl --config crashed
    // on such files): readers whose values are copied refuse it first.
    void deeplyNestedJsonIsRefusedBeforeItIsParsed() {
        const auto nested = [](std::size_t levels) {
            return std::string(levels, '[') + std::string(levels, ']');
        };
        QCOMPARE(dice::parseJsonWithin(nested(64), 64, "f.json").dump().size(), std::size_t(128));
        const auto refusal = [](const std::string& text) {
            try {
                dice::parseJsonWithin(text, 64, "f.json");
            } catch (const dice::Error& e) {
                return std::string(e.what());
            }
            return std::string("accepted");
        };
        QCOMPARE(refusal(nested(65)),
                 std::string("f.json: nests arrays and objects deeper than 64 levels"));
        QCOMPARE(refusal(nested(300000)), refusal(nested(65)));
        // Brackets inside strings are text, not nesting.
        QCOMPARE(refusal("{\"a\": \"" + std::string(1000, '[') + "\"}"), std::string("accepted"));
        QVERIFY(refusal("{\"a\": ").rfind("f.json: not valid JSON", 0) == 0);
        // The same count on a value that is already parsed, without recursion.
        const nlohmann::json deep = nlohmann::json::parse(nested(300000));
        QCOMPARE(dice::jsonNestingDepth(deep, 64), std::size_t(65));
        QCOMPARE(dice::jsonNestingDepth(nlohmann::json::parse(nested(10)), 64), std::size_t(10));
        QCOMPARE(dice::jsonNestingDepth(nlohmann::json::parse("{\"a\": [1, {}]}"), 64),
                 std::size_t(3));
    }
};

QTEST_GUILESS_MAIN(TestOutsideFiles)
#include "tst_outside_files.moc"
