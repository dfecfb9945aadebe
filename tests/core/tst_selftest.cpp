// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/cuda_driver.h"
#include "core/selftest/selftest.h"

#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

class TestSelfTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cpuChecksPass() {
        dice::SelfTestOptions options;
        options.includeGpu = false;
        const auto results = dice::runSelfTest(options);
        int cpu = 0;
        for (const auto& r : results) {
            if (r.group != "cpu")
                continue;
            ++cpu;
            QVERIFY2(r.status == dice::CheckStatus::Passed, (r.name + ": " + r.message).c_str());
        }
        QVERIFY(cpu >= 3);
    }

    // On a machine without a GPU the GPU checks are skipped with the driver's reason; on a GPU
    // machine they must pass.
    void gpuChecksPassOrSkipWithReason() {
        const auto results = dice::runSelfTest({});
        const bool driver = dice::cu::Driver::instance().available();
        int gpu = 0;
        for (const auto& r : results) {
            if (r.group != "gpu")
                continue;
            ++gpu;
            if (driver) {
                QVERIFY2(r.status == dice::CheckStatus::Passed,
                         (r.name + ": " + r.message).c_str());
            } else {
                QVERIFY(r.status == dice::CheckStatus::Skipped);
                QVERIFY2(r.message.find("driver") != std::string::npos, r.message.c_str());
            }
        }
        QVERIFY(gpu >= 4);
        if (!driver)
            QSKIP("no GPU here: GPU checks were skipped, as they should be");
    }

    void cliWritesResultFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("selftest.json"));
        QProcess process;
        process.start(QStringLiteral(DICE_BIN_DIR "/dice"),
                      {"selftest", "--cpu-only", "--output", path});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 0);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(json["kind"].get<std::string>(), std::string("selftest"));
        QVERIFY(json["command"].get<std::string>().find("dice selftest --cpu-only") == 0);
        QVERIFY(json["system"].contains("libtorch"));
        QVERIFY(json["passed"].get<bool>());
        QCOMPARE(json["summary"]["failed"].get<int>(), 0);
    }

    void disabledDriverSkipsGpuChecks() {
        // With the driver switched off, every GPU check is skipped (not failed) and says why.
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("DICE_DISABLE_CUDA_DRIVER"), QStringLiteral("1"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(DICE_BIN_DIR "/dice"), {"selftest", "--filter", "gpu."});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 0);
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        QVERIFY(out.contains("[skipped]"));
        QVERIFY(out.contains("disabled by DICE_DISABLE_CUDA_DRIVER"));
    }
};

QTEST_GUILESS_MAIN(TestSelfTest)
#include "tst_selftest.moc"
