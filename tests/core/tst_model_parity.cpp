// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/model/qwen3_model.h"
#include "core/selftest/model_checks.h"

#include <QtTest>

#include <filesystem>

// The engine against Hugging Face transformers: a small random Qwen3 checkpoint saved by
// transformers and the float32 logits transformers computed for it (causal, shifted positions,
// block-causal 4-D mask), made by scripts/make_qwen3_fixture.py.
class TestModelParity : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void logitsMatchTransformers() {
        const std::string folder = std::string(DICE_TEST_FIXTURES) + "/qwen3-tiny";
        if (!std::filesystem::exists(folder + "/expected.safetensors"))
            QSKIP("tests/fixtures/qwen3-tiny is missing: run scripts/make_qwen3_fixture.py where "
                  "transformers is installed");
        auto model = dice::Qwen3Model::load(folder, {});
        QCOMPARE(model->config().numLayers, std::int64_t(2));
        QVERIFY(!model->config().tieWordEmbeddings);
        const double deviation = dice::fixtureDeviation(*model, folder);
        qInfo("max |engine - transformers| = %.3g", deviation);
        QVERIFY2(deviation <= 1e-4, std::to_string(deviation).c_str());
    }
};

QTEST_GUILESS_MAIN(TestModelParity)
#include "tst_model_parity.moc"
