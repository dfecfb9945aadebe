// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/model/safetensors.h"
#include "core/model/safetensors_torch.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>

namespace {

// A file laid out by hand as the format describes it, independent of the writer under test.
std::string layout(const std::string& header, const std::string& data,
                   std::uint64_t lengthField = ~std::uint64_t(0)) {
    const std::uint64_t n = lengthField == ~std::uint64_t(0) ? header.size() : lengthField;
    std::string out;
    for (int i = 0; i < 8; ++i)
        out += static_cast<char>((n >> (8 * i)) & 0xff);
    return out + header + data;
}

std::string bytesOf(const void* p, size_t n) {
    return std::string(static_cast<const char*>(p), n);
}

// 1.5f, -2.0f as F32 [2] at 0..8 and 42 as I64 [] at 8..16.
std::string validData() {
    const float f[2] = {1.5f, -2.0f};
    const std::int64_t i = 42;
    return bytesOf(f, 8) + bytesOf(&i, 8);
}

const char* const kValidHeader =
    R"({"__metadata__":{"format":"pt"},"b":{"dtype":"I64","shape":[],"data_offsets":[8,16]},)"
    R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";

// `count` one-element F32 tensors t000000, t000001, ... tiling 4 * count bytes.
std::string manyTensorsHeader(int count) {
    std::string header = "{";
    char entry[96];
    for (int i = 0; i < count; ++i) {
        std::snprintf(entry, sizeof(entry),
                      R"(%s"t%06d":{"dtype":"F32","shape":[1],"data_offsets":[%d,%d]})",
                      i ? "," : "", i, 4 * i, 4 * i + 4);
        header += entry;
    }
    return header + "}";
}

std::string errorOf(const std::string& file) {
    try {
        dice::parseSafetensorsHeader(reinterpret_cast<const unsigned char*>(file.data()),
                                     file.size(), file.size(), "t.safetensors");
    } catch (const dice::FileError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestSafetensors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsAHandMadeFile() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("x.safetensors").toStdString();
        dice::writeFileAtomically(path, layout(kValidHeader, validData()));
        const auto file = dice::SafetensorsFile::open(path);
        const auto& h = file->header();
        QCOMPARE(h.metadata.at("format"), std::string("pt"));
        QCOMPARE(h.tensors.size(), size_t(2));
        QCOMPARE(h.tensors[0].name, std::string("a")); // ordered by offset
        QCOMPARE(h.dataBytes, std::uint64_t(16));
        const auto a = dice::safetensorsTensor(file, *h.find("a"));
        QCOMPARE(a.scalar_type(), at::kFloat);
        QCOMPARE(a.sizes().vec(), (std::vector<std::int64_t>{2}));
        QCOMPARE(a[0].item<float>(), 1.5f);
        QCOMPARE(a[1].item<float>(), -2.0f);
        const auto b = dice::safetensorsTensor(file, *h.find("b"));
        QCOMPARE(b.dim(), std::int64_t(0));
        QCOMPARE(b.item<std::int64_t>(), std::int64_t(42));
    }

    void tensorKeepsTheMappingAlive() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("x.safetensors").toStdString();
        dice::writeFileAtomically(path, layout(kValidHeader, validData()));
        at::Tensor a;
        {
            const auto file = dice::SafetensorsFile::open(path);
            a = dice::safetensorsTensor(file, *file->header().find("a"));
        }
        QCOMPARE(a.sum().item<float>(), -0.5f);
    }

    void acceptsPaddingEmptyTensorsAndSubByteTypes() {
        const std::string header = R"({"e":{"dtype":"BF16","shape":[0,3],"data_offsets":[0,0]},)"
                                   R"("f4":{"dtype":"F4","shape":[4],"data_offsets":[0,2]}}   )";
        QCOMPARE(errorOf(layout(header, "ab")), std::string());
        // Four-bit values must fill whole bytes.
        const std::string odd = R"({"f4":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})";
        QVERIFY(errorOf(layout(odd, "ab")).find("whole bytes") != std::string::npos);
    }

    void rejectsBadFiles_data() {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("problem");
        auto row = [](const char* name, const std::string& file, const char* problem) {
            QTest::newRow(name) << QByteArray(file.data(), static_cast<int>(file.size()))
                                << QString(problem);
        };
        const std::string data = validData();
        row("empty", "", "too small");
        row("short length", std::string("\x05\x00\x00", 3), "too small");
        row("header too large", layout("{}", "", 100'000'001), "exceeds the limit");
        row("header past the end", layout("{}", "", 4000), "truncated");
        row("not an object", layout("[1,2]", ""), "does not start with '{'");
        row("bad json", layout("{\"a\":", ""), "not valid JSON");
        row("bad utf8", layout("{\"\xff\":1}", ""), "not valid JSON");
        row("duplicate",
            layout(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                   R"("a":{"dtype":"I64","shape":[],"data_offsets":[8,16]}})",
                   data),
            "twice");
        row("metadata value",
            layout(
                R"({"__metadata__":{"k":3},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
                "x"),
            "not a string");
        row("unknown dtype",
            layout(R"({"a":{"dtype":"F12","shape":[1],"data_offsets":[0,1]}})", "x"),
            "unknown dtype");
        row("negative dim",
            layout(R"({"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}})", "x"),
            "non-negative integer");
        row("float dim", layout(R"({"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}})", "x"),
            "non-negative integer");
        row("no shape", layout(R"({"a":{"dtype":"U8","data_offsets":[0,1]}})", "x"), "shape");
        row("one offset", layout(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0]}})", "x"),
            "data_offsets");
        row("reversed offsets",
            layout(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[1,0]}})", "x"),
            "end before they begin");
        row("size mismatch",
            layout(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", data.substr(0, 8)),
            "need 12");
        row("hole",
            layout(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                   R"("b":{"dtype":"I64","shape":[],"data_offsets":[9,17]}})",
                   data + "x"),
            "a hole");
        row("overlap",
            layout(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                   R"("b":{"dtype":"I64","shape":[],"data_offsets":[4,12]}})",
                   data.substr(0, 12)),
            "an overlap");
        row("not from zero",
            layout(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", data),
            "expected 0");
        row("trailing bytes", layout(kValidHeader, data + "zz"), "holds 18 data bytes");
        row("truncated data", layout(kValidHeader, data.substr(0, 12)), "(truncated)");
        row("too deep", layout("{\"a\":" + std::string(40, '[') + std::string(40, ']') + "}", ""),
            "deeper");
        row("huge shape",
            layout(R"({"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}})",
                   data.substr(0, 8)),
            "too large");
    }

    void rejectsBadFiles() {
        QFETCH(QByteArray, file);
        QFETCH(QString, problem);
        const std::string message = errorOf(file.toStdString());
        QVERIFY2(message.rfind("t.safetensors: ", 0) == 0, message.c_str());
        QVERIFY2(message.find(problem.toStdString()) != std::string::npos, message.c_str());
    }

    // The header is parsed in linear time: nlohmann's parse with a callback, which the reader used
    // to find duplicate names, took more than 300 s for 100 000 entries. Four times the entries
    // must take about four times as long (sixteen for a quadratic parse), in processor time, so
    // that neither a loaded machine nor a sanitizer build changes the verdict.
    void manyTensorsAreReadInLinearTime() {
        const auto parseSeconds = [](int tensors) {
            const std::string file =
                layout(manyTensorsHeader(tensors),
                       std::string(4 * static_cast<std::size_t>(tensors), '\0'));
            const std::clock_t started = std::clock();
            const auto header =
                dice::parseSafetensorsHeader(reinterpret_cast<const unsigned char*>(file.data()),
                                             file.size(), file.size(), "t.safetensors");
            const double seconds = static_cast<double>(std::clock() - started) / CLOCKS_PER_SEC;
            if (header.tensors.size() != static_cast<std::size_t>(tensors))
                return -1.0;
            return seconds;
        };
        const double quarter = parseSeconds(25'000);
        const double whole = parseSeconds(100'000);
        qInfo("25 000 tensors in %.2f s, 100 000 in %.2f s of processor time", quarter, whole);
        QVERIFY(quarter >= 0 && whole >= 0);
        QVERIFY2(whole < 8 * std::max(quarter, 0.05),
                 qPrintable(QString("%1 s against %2 s").arg(whole).arg(quarter)));
    }

    void moreTensorsThanTheLimitAreRefused() {
        const int tensors = static_cast<int>(dice::kSafetensorsMaxTensors) + 1;
        const std::string file = layout(manyTensorsHeader(tensors), std::string(4 * tensors, '\0'));
        const std::clock_t started = std::clock();
        QCOMPARE(errorOf(file), "t.safetensors: safetensors header has more than " +
                                    std::to_string(dice::kSafetensorsMaxTensors) +
                                    " tensors, the most one file may hold");
        QVERIFY(std::clock() - started < 5 * CLOCKS_PER_SEC);
    }

    void moreValuesThanTheLimitAreRefused() {
        std::string shape;
        for (std::size_t i = 0; i <= dice::kSafetensorsMaxHeaderValues; ++i)
            shape += i ? ",1" : "1";
        const std::string file =
            layout(R"({"a":{"dtype":"U8","shape":[)" + shape + R"(],"data_offsets":[0,1]}})", "x");
        QCOMPARE(errorOf(file), "t.safetensors: safetensors header holds more than " +
                                    std::to_string(dice::kSafetensorsMaxHeaderValues) +
                                    " JSON values");
    }

    void duplicateNameAmongManyIsFound() {
        std::string header = manyTensorsHeader(50'000);
        header.insert(1, R"("t049999":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)");
        QVERIFY(
            errorOf(layout(header, std::string(4 * 50'000, '\0'))).find("names 't049999' twice") !=
            std::string::npos);
    }

    void openReportsMissingFile() {
        try {
            dice::SafetensorsFile::open("/nonexistent/dir/model.safetensors");
            QFAIL("no error");
        } catch (const dice::FileError& e) {
            QCOMPARE(e.path(), std::string("/nonexistent/dir/model.safetensors"));
        }
    }

    void mutatedFilesNeverCrash() {
        const std::string valid = layout(kValidHeader, validData());
        std::mt19937 rng(7);
        int accepted = 0;
        for (int i = 0; i < 3000; ++i) {
            std::string file = valid;
            const int edits = 1 + static_cast<int>(rng() % 4);
            for (int e = 0; e < edits; ++e) {
                const size_t at = rng() % file.size();
                switch (rng() % 3) {
                case 0:
                    file[at] = static_cast<char>(rng());
                    break;
                case 1:
                    file.erase(at, 1 + rng() % 3);
                    break;
                default:
                    file.insert(at, 1, static_cast<char>(rng()));
                }
                if (file.empty())
                    file = "x";
            }
            if (errorOf(file).empty())
                ++accepted;
        }
        // Most mutations break the tiling or the JSON; none may crash.
        QVERIFY(accepted < 3000);
    }

    void writerAlignsAndRoundTrips() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("w.safetensors").toStdString();
        std::vector<dice::SafetensorsBlob> blobs;
        const std::uint8_t bytes3[3] = {1, 2, 3};
        const std::uint16_t halves[3] = {0x3c00, 0x4000, 0xc000};
        const double doubles[2] = {0.25, -8};
        const float floats[5] = {1, 2, 3, 4, 5};
        blobs.push_back({"u8", dice::SafetensorsDType::U8, {3}, bytes3, 3});
        blobs.push_back({"f16", dice::SafetensorsDType::F16, {3}, halves, 6});
        blobs.push_back({"f64", dice::SafetensorsDType::F64, {2, 1}, doubles, 16});
        blobs.push_back({"f32", dice::SafetensorsDType::F32, {5}, floats, 20});
        dice::writeSafetensors(path, blobs, {{"producer", "test"}});
        const auto file = dice::SafetensorsFile::open(path);
        QCOMPARE(file->header().headerBytes % 8, std::uint64_t(0));
        QCOMPARE(file->header().metadata.at("producer"), std::string("test"));
        for (const auto& blob : blobs) {
            const auto* entry = file->header().find(blob.name);
            QVERIFY(entry);
            QCOMPARE(entry->shape, blob.shape);
            const std::uint64_t offset = file->header().dataOffset() + entry->begin;
            QCOMPARE(offset % static_cast<std::uint64_t>(dice::dtypeBits(blob.dtype) / 8),
                     std::uint64_t(0));
            QCOMPARE(std::memcmp(file->data(*entry), blob.data, blob.bytes), 0);
        }
        // The writer's tensors load as LibTorch tensors with the values written.
        const auto f16 = dice::safetensorsTensor(file, *file->header().find("f16"));
        QCOMPARE(f16.to(at::kFloat)[2].item<float>(), -2.0f);

        blobs[0].bytes = 2;
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::writeSafetensors(path, blobs));
    }

    void saveFromTensors() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.safetensors").toStdString();
        const auto w = at::arange(12, at::TensorOptions().dtype(at::kFloat)).view({3, 4}).t();
        const auto b = at::ones({2}, at::TensorOptions().dtype(at::kBFloat16));
        dice::saveSafetensors(path, {{"w", w}, {"b", b}});
        const auto file = dice::SafetensorsFile::open(path);
        QVERIFY(dice::safetensorsTensor(file, *file->header().find("w")).equal(w.contiguous()));
        QVERIFY(dice::safetensorsTensor(file, *file->header().find("b")).equal(b));
    }

    void shardedCheckpoint() {
        QTemporaryDir dir;
        const std::string folder = dir.path().toStdString();
        const float one[1] = {1}, two[2] = {2, 3};
        dice::writeSafetensors(folder + "/part-1.safetensors",
                               {{"x", dice::SafetensorsDType::F32, {1}, one, 4}});
        dice::writeSafetensors(folder + "/part-2.safetensors",
                               {{"y", dice::SafetensorsDType::F32, {2}, two, 8}});
        dice::writeFileAtomically(folder + "/model.safetensors.index.json",
                                  R"({"metadata":{"total_size":12},"weight_map":)"
                                  R"({"x":"part-1.safetensors","y":"part-2.safetensors"}})");
        const auto checkpoint = dice::SafetensorsCheckpoint::openFolder(folder);
        QCOMPARE(checkpoint.tensors().size(), size_t(2));
        QCOMPARE(checkpoint.totalBytes(), std::uint64_t(12));
        QVERIFY(checkpoint.find("y")->file->path().find("part-2") != std::string::npos);

        dice::writeFileAtomically(folder + "/model.safetensors.index.json",
                                  R"({"weight_map":{"x":"part-2.safetensors"}})");
        try {
            dice::SafetensorsCheckpoint::openFolder(folder);
            QFAIL("no error");
        } catch (const dice::FileError& e) {
            QVERIFY(std::string(e.what()).find("has no tensor 'x'") != std::string::npos);
        }
        dice::writeFileAtomically(folder + "/model.safetensors.index.json",
                                  R"({"weight_map":{"x":"../part-1.safetensors"}})");
        QVERIFY_THROWS_EXCEPTION(dice::FileError, dice::SafetensorsCheckpoint::openFolder(folder));
        dice::writeFileAtomically(folder + "/model.safetensors.index.json", "{\"weight_map\": 3}");
        QVERIFY_THROWS_EXCEPTION(dice::FileError, dice::SafetensorsCheckpoint::openFolder(folder));
        std::filesystem::remove(folder + "/model.safetensors.index.json");
        QVERIFY_THROWS_EXCEPTION(dice::FileError, dice::SafetensorsCheckpoint::openFolder(folder));
    }

    void readsFilesWrittenByTheReferenceLibrary() {
        // The parity fixture was written by transformers through the safetensors library.
        const std::string folder = std::string(DICE_TEST_FIXTURES) + "/qwen3-tiny";
        if (!std::filesystem::exists(folder + "/model.safetensors"))
            QSKIP("tests/fixtures/qwen3-tiny is missing: scripts/make_qwen3_fixture.py makes it");
        const auto checkpoint = dice::SafetensorsCheckpoint::openFolder(folder);
        const auto* embed = checkpoint.find("model.embed_tokens.weight");
        QVERIFY(embed);
        QCOMPARE(embed->entry->shape, (std::vector<std::int64_t>{384, 64}));
        QVERIFY(embed->entry->dtype == dice::SafetensorsDType::F32);
        const auto expected = dice::SafetensorsFile::open(folder + "/expected.safetensors");
        const auto mask = dice::safetensorsTensor(expected, *expected->header().find("block_mask"));
        QCOMPARE(mask.scalar_type(), at::kBool);
        // Block-causal in blocks of 4: query 5 sees keys 0..7, not 8.
        QVERIFY(mask[0][0][5][7].item<bool>());
        QVERIFY(!mask[0][0][5][8].item<bool>());
    }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
