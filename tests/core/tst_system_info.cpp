// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/system/result_file.h"
#include "core/system/system_info.h"

#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

class TestSystemInfo : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void collectsTheFacts() {
        const dice::SystemInfo info = dice::collectSystemInfo();
        QVERIFY(!info.productVersion.empty());
        QVERIFY(info.cpuCores > 0);
        QVERIFY(info.memoryBytes > 0);
        QVERIFY(info.libtorchVersion.rfind("1.", 0) == 0 ||
                info.libtorchVersion.rfind("2.", 0) == 0);
        QVERIFY(!info.nvrtcVersion.empty());
        // Without a driver the reason is given; with one there is at least one device.
        if (info.driverAvailable)
            QVERIFY(!info.devices.empty());
        else
            QVERIFY(info.driverStatus.find("driver") != std::string::npos);
    }

    void jsonRoundTrip() {
        dice::SystemInfo info = dice::collectSystemInfo();
        dice::DeviceInfo device;
        device.name = "Test GPU";
        device.computeMajor = 9;
        device.computeMinor = 0;
        device.multiprocessors = 132;
        device.totalMemoryBytes = 150'000'000'000LL;
        info.devices.push_back(device);
        const auto back = dice::systemInfoFromJson(dice::toJson(info));
        QCOMPARE(back.libtorchVersion, info.libtorchVersion);
        QCOMPARE(back.nvrtcVersion, info.nvrtcVersion);
        QCOMPARE(back.driverAvailable, info.driverAvailable);
        QCOMPARE(back.devices.back().name, std::string("Test GPU"));
        QCOMPARE(back.devices.back().architecture(), std::string("sm_90"));
        QCOMPARE(back.devices.back().multiprocessors, 132);
    }

    void peakRatesOfAnH200() {
        // The H200's published figures: 132 SMs at 1980 MHz boost, HBM3e at 3201 MHz on 6144 bits.
        dice::DeviceInfo h200;
        h200.computeMajor = 9;
        h200.multiprocessors = 132;
        h200.clockKHz = 1980000;
        h200.memoryClockKHz = 3201000;
        h200.memoryBusWidthBits = 6144;
        QVERIFY(std::abs(h200.peakBandwidth() / 1e12 - 4.92) < 0.05);
        QVERIFY(std::abs(h200.peakFp32Flops() / 1e12 - 66.9) < 0.5);
        QVERIFY(std::abs(h200.peakTensorFlops() / 1e12 - 1070) < 10);
    }

    void commandLineQuotes() {
        QCOMPARE(dice::commandLine({"/x/bin/dice", "selftest", "--output", "a b.json"}),
                 std::string("dice selftest --output 'a b.json'"));
    }

    void cliInfoJson() {
        QProcess process;
        process.start(QStringLiteral(DICE_BIN_DIR "/dice"), {"info", "--json"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        const auto json = nlohmann::json::parse(process.readAllStandardOutput().toStdString());
        QVERIFY(json.contains("libtorch"));
        QVERIFY(json["cuda"].contains("nvrtc"));
        QVERIFY(json["cuda"].contains("driver_available"));
        QVERIFY(json["devices"].is_array());
        QCOMPARE(json["libtorch"]["version"].get<std::string>(),
                 dice::collectSystemInfo().libtorchVersion);
    }

    void cliInfoText() {
        QProcess process;
        process.start(QStringLiteral(DICE_BIN_DIR "/dice"), {"info"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        const QString text = QString::fromUtf8(process.readAllStandardOutput());
        QVERIFY(text.contains("LibTorch:"));
        QVERIFY(text.contains("NVRTC:"));
        QVERIFY(text.contains("CUDA driver:"));
        QVERIFY(text.contains("GPU"));
    }

    void cliRejectsUnknownOption() {
        QProcess process;
        process.start(QStringLiteral(DICE_BIN_DIR "/dice"), {"info", "--jsn"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 2);
        QVERIFY(process.readAllStandardError().contains("unknown option --jsn"));
    }
};

QTEST_GUILESS_MAIN(TestSystemInfo)
#include "tst_system_info.moc"
