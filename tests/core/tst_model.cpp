// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include <ATen/CPUGeneratorImpl.h>

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/engine/model_session.h"
#include "core/model/cpu_threads.h"
#include "core/model/model_config.h"
#include "core/model/qwen3_model.h"
#include "core/model/safetensors.h"
#include "core/model/safetensors_torch.h"
#include "core/selftest/model_checks.h"
#include "core/train/bd3_batch.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <thread>

using nlohmann::json;

namespace {

// SDAR-4B-Chat's config.json (JetLM/SDAR-4B-Chat), training-only fields included.
const char* const kSdar4bConfig = R"({
  "architectures": ["SDARForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "auto_map": {"AutoConfig": "configuration_sdar.SDARConfig",
               "AutoModelForCausalLM": "modeling_sdar.SDARForCausalLM"},
  "block_size": 4,
  "bos_token_id": 151643,
  "eos_token_id": 151643,
  "fuse_cross_entropy": true,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 2560,
  "initializer_range": 0.02,
  "intermediate_size": 9728,
  "mask_token_id": 151669,
  "max_position_embeddings": 32768,
  "max_window_layers": 36,
  "model_type": "sdar",
  "num_attention_heads": 32,
  "num_hidden_layers": 36,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.52.4",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
})";

std::string configErrorOf(const std::string& text) {
    try {
        dice::parseModelConfig(text, "config.json");
    } catch (const dice::FileError& e) {
        return e.what();
    }
    return {};
}

std::string configError(const std::function<void(json&)>& edit) {
    json config = json::parse(kSdar4bConfig);
    edit(config);
    try {
        dice::parseModelConfig(config.dump(), "config.json");
    } catch (const dice::FileError& e) {
        return e.what();
    }
    return {};
}

json tinyConfigJson(const dice::ModelConfig& c) {
    return {{"model_type", "qwen3"},
            {"hidden_size", c.hiddenSize},
            {"num_hidden_layers", c.numLayers},
            {"num_attention_heads", c.numHeads},
            {"num_key_value_heads", c.numKvHeads},
            {"head_dim", c.headDim},
            {"intermediate_size", c.intermediateSize},
            {"vocab_size", c.vocabSize},
            {"rope_theta", c.ropeTheta},
            {"rms_norm_eps", c.rmsNormEps},
            {"tie_word_embeddings", c.tieWordEmbeddings},
            {"torch_dtype", "float32"}};
}

// A checkpoint folder written from a random model: config.json and model.safetensors.
// Nodes of the recorded autograd graph behind `root` that are checkpointed layers.
int checkpointNodes(const at::Tensor& root) {
    std::vector<torch::autograd::Node*> todo = {root.grad_fn().get()};
    std::set<torch::autograd::Node*> seen;
    int found = 0;
    while (!todo.empty()) {
        auto* node = todo.back();
        todo.pop_back();
        if (!node || !seen.insert(node).second)
            continue;
        if (node->name().find("LayerCheckpoint") != std::string::npos)
            ++found;
        for (const auto& edge : node->next_edges())
            todo.push_back(edge.function.get());
    }
    return found;
}

void writeCheckpoint(const std::string& folder, const dice::Qwen3Model& model, const json& config) {
    std::filesystem::create_directories(folder);
    dice::writeFileAtomically(folder + "/config.json", config.dump(2));
    dice::saveSafetensors(folder + "/model.safetensors", model.namedWeights());
}

at::Tensor sampleLogits(dice::Qwen3Model& model) {
    const auto tokens =
        at::tensor({3, 1, 4, 1, 5, 9, 2, 6}, at::TensorOptions().dtype(at::kLong)).view({1, 8});
    const auto positions = at::arange(8, at::TensorOptions().dtype(at::kLong)).view({1, 8});
    at::NoGradGuard noGrad;
    return model.forward(tokens, positions, at::Tensor());
}

std::string loadError(const std::string& folder) {
    try {
        dice::Qwen3Model::load(folder, {});
    } catch (const dice::FileError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesSdarConfig() {
        const auto c = dice::parseModelConfig(kSdar4bConfig, "config.json");
        QCOMPARE(c.modelType, std::string("sdar"));
        QCOMPARE(c.hiddenSize, std::int64_t(2560));
        QCOMPARE(c.headDim, std::int64_t(128)); // not hidden / heads (80)
        QCOMPARE(c.groups(), std::int64_t(4));
        QCOMPARE(*c.maskTokenId, std::int64_t(151669));
        QCOMPARE(c.ropeTheta, 1e6);
        QCOMPARE(c.kvBytesPerToken(2), std::int64_t(147456));
        // The published checkpoints' total_size (bf16 bytes) from their index files.
        QCOMPARE(c.parameterCount() * 2, std::int64_t(8'822'848'512));
        auto eight = c;
        eight.hiddenSize = 4096, eight.intermediateSize = 12288;
        QCOMPARE(eight.parameterCount() * 2, std::int64_t(16'381'470'720));
        auto small = c;
        small.hiddenSize = 2048, small.numLayers = 28, small.numHeads = 16,
        small.intermediateSize = 6144;
        QCOMPARE(small.parameterCount() * 2, std::int64_t(4'063'479'808));
        QCOMPARE(small.kvBytesPerToken(2), std::int64_t(114688));
    }

    void parsesTransformersFiveLayout() {
        json config = json::parse(kSdar4bConfig);
        config.erase("rope_theta");
        config.erase("torch_dtype");
        config.erase("head_dim");
        config["model_type"] = "qwen3";
        config["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 5e5}};
        config["dtype"] = "float32";
        config["layer_types"] = json::array({"full_attention", "full_attention"});
        const auto c = dice::parseModelConfig(config.dump(), "config.json");
        QCOMPARE(c.ropeTheta, 5e5);
        QCOMPARE(c.torchDtype, std::string("float32"));
        QCOMPARE(c.headDim, std::int64_t(80));
        config["rope_parameters"] = {{"rope_type", "linear"}, {"factor", 2.0}};
        QCOMPARE(dice::parseModelConfig(config.dump(), "c").ropeLinearFactor, 2.0);
    }

    void rejectsBadConfigs_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("problem");
        QTest::newRow("type") << 0 << "\"model_type\" \"llama\" is not supported";
        QTest::newRow("yarn") << 1 << "\"rope_scaling\" of type \"yarn\" is not supported";
        QTest::newRow("groups") << 2 << "not a multiple";
        QTest::newRow("missing") << 3 << "has no \"hidden_size\"";
        QTest::newRow("type of field") << 4 << "\"intermediate_size\" must be an integer";
        QTest::newRow("sliding") << 5 << "use_sliding_window";
        QTest::newRow("mask id") << 6 << "\"mask_token_id\" 200000 is outside";
        QTest::newRow("activation") << 7 << "hidden_act";
        QTest::newRow("odd head") << 8 << "must be even";
        QTest::newRow("negative") << 9 << "must be positive";
    }

    void rejectsBadConfigs() {
        QFETCH(int, which);
        QFETCH(QString, problem);
        const std::vector<std::function<void(json&)>> edits = {
            [](json& c) { c["model_type"] = "llama"; },
            [](json& c) {
                c["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
            },
            [](json& c) { c["num_key_value_heads"] = 7; },
            [](json& c) { c.erase("hidden_size"); },
            [](json& c) { c["intermediate_size"] = "big"; },
            [](json& c) { c["use_sliding_window"] = true; },
            [](json& c) { c["mask_token_id"] = 200000; },
            [](json& c) { c["hidden_act"] = "gelu"; },
            [](json& c) { c["head_dim"] = 127; },
            [](json& c) { c["num_hidden_layers"] = -1; },
        };
        const std::string message = configError(edits[static_cast<size_t>(which)]);
        QVERIFY2(message.rfind("config.json: ", 0) == 0, message.c_str());
        QVERIFY2(message.find(problem.toStdString()) != std::string::npos, message.c_str());
        QVERIFY_THROWS_EXCEPTION(dice::FileError, dice::parseModelConfig("{\"a\":", "config.json"));
    }

    // A wrong value is named in the message, never printed whole: printing recurses once per level
    // of nesting (a million levels overflow the stack) and a long string would fill the message.
    void badValuesAreNamedNotPrinted() {
        const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
        QCOMPARE(configErrorOf(R"({"model_type":"qwen3","hidden_act":)" + deep + "}"),
                 std::string("config.json: \"hidden_act\" an array is not supported (the network "
                             "uses silu)"));
        const std::string message =
            configErrorOf("{\"model_type\":\"" + std::string(100000, 'x') + "\xc3\xa9\"}");
        QVERIFY2(message.size() < 200, message.c_str());
        QVERIFY2(message.find("\"model_type\" \"xxx") != std::string::npos, message.c_str());
        QCOMPARE(configErrorOf(R"({"model_type":"qwen3","hidden_size":{"a":)" + deep + "}}"),
                 std::string("config.json: \"hidden_size\" must be an integer, not an object"));
    }

    void generationConfig() {
        auto g = dice::parseGenerationConfig(
            R"({"eos_token_id": [151645, 151643], "pad_token_id": 151643, "top_k": 20})", "g");
        QCOMPARE(g.eosTokenIds, (std::vector<std::int64_t>{151645, 151643}));
        QCOMPARE(*g.padTokenId, std::int64_t(151643));
        g = dice::parseGenerationConfig(R"({"eos_token_id": 2})", "g");
        QCOMPARE(g.eosTokenIds, (std::vector<std::int64_t>{2}));
        QVERIFY_THROWS_EXCEPTION(dice::FileError,
                                 dice::parseGenerationConfig(R"({"eos_token_id": "x"})", "g"));
    }

    // Found by fuzz_model_config: a configuration without token ids was written as "null".
    void emptyGenerationConfigIsWrittenAsAnObject() {
        const std::string text = dice::generationConfigToJson(dice::GenerationConfig{});
        QCOMPARE(text, std::string("{}\n"));
        const auto back = dice::parseGenerationConfig(text, "generation_config.json");
        QVERIFY(back.eosTokenIds.empty());
        QVERIFY(!back.padTokenId && !back.bosTokenId);
    }

    void aCopyHasItsOwnWeightsAndTakesAnothersBack() {
        const auto config = dice::tinyModelConfig();
        auto original = dice::Qwen3Model::random(config, {}, 6, 0.2);
        const auto before = sampleLogits(*original);
        auto copy = original->copyAs(dice::ModelDType::Float32);
        QVERIFY(sampleLogits(*copy).equal(before));
        // What the trainer does to its master weights leaves the copy as it was...
        {
            at::NoGradGuard noGrad;
            for (auto& p : original->parameters())
                p.mul_(1.5);
        }
        const auto changed = sampleLogits(*original);
        QVERIFY(!changed.equal(before));
        QVERIFY(sampleLogits(*copy).equal(before));
        // ...until the copy takes them back.
        copy->copyWeightsFrom(*original);
        QVERIFY(sampleLogits(*copy).equal(changed));
        // A bfloat16 copy (the trainer's sampler) stays close, in half the bytes.
        auto half = original->copyAs(dice::ModelDType::BFloat16);
        QCOMPARE(half->weightBytes() * 2, original->weightBytes());
        // bfloat16 keeps 8 bits of mantissa: within a few percent of the logits' range.
        const float drift = (sampleLogits(*half) - changed).abs().max().item<float>();
        const float range = changed.abs().max().item<float>();
        QVERIFY2(drift < 0.05f * range,
                 (std::to_string(drift) + " of " + std::to_string(range)).c_str());
        QVERIFY(drift > 0);
        auto other = dice::Qwen3Model::random(dice::tinyModelConfig(), {}, 7, 0.2);
        half->copyWeightsFrom(*other);
        const auto others = sampleLogits(*other);
        QVERIFY((sampleLogits(*half) - others).abs().max().item<float>() <
                0.05f * others.abs().max().item<float>());
    }

    void savedWeightsLoadBack() {
        QTemporaryDir dir;
        const auto config = dice::tinyModelConfig();
        auto original = dice::Qwen3Model::random(config, {}, 3, 0.2);
        const std::string folder = dir.filePath("ckpt").toStdString();
        writeCheckpoint(folder, *original, tinyConfigJson(config));
        dice::writeFileAtomically(folder + "/generation_config.json",
                                  R"({"eos_token_id": [7, 8]})");
        std::vector<dice::LoadProgress> progress;
        dice::LoadOptions options;
        options.progress = [&](const dice::LoadProgress& p) { progress.push_back(p); };
        auto loaded = dice::Qwen3Model::load(folder, options);
        QCOMPARE(loaded->generationConfig().eosTokenIds, (std::vector<std::int64_t>{7, 8}));
        QVERIFY(sampleLogits(*loaded).equal(sampleLogits(*original)));
        QCOMPARE(loaded->weightBytes(), original->weightBytes());
        QVERIFY(!progress.empty());
        for (size_t i = 1; i < progress.size(); ++i)
            QVERIFY(progress[i].bytesDone >= progress[i - 1].bytesDone);
        QCOMPARE(progress.back().bytesDone, progress.back().bytesTotal);
        QCOMPARE(progress.back().bytesTotal, loaded->weightBytes());
        QCOMPARE(progress.front().tensor, std::string("model.embed_tokens.weight"));

        // In bf16 the logits stay close.
        options.placement.dtype = dice::ModelDType::BFloat16;
        auto half = dice::Qwen3Model::load(folder, options);
        QCOMPARE(half->weightBytes() * 2, original->weightBytes());
        QVERIFY((sampleLogits(*half) - sampleLogits(*original)).abs().max().item<float>() < 0.15f);
    }

    void shardedCheckpointLoads() {
        QTemporaryDir dir;
        const auto config = dice::tinyModelConfig();
        auto original = dice::Qwen3Model::random(config, {}, 4, 0.2);
        const std::string folder = dir.path().toStdString();
        dice::writeFileAtomically(folder + "/config.json", tinyConfigJson(config).dump());
        auto weights = original->namedWeights();
        const size_t half = weights.size() / 2;
        dice::saveSafetensors(folder + "/model-00001-of-00002.safetensors",
                              {weights.begin(), weights.begin() + static_cast<long>(half)});
        dice::saveSafetensors(folder + "/model-00002-of-00002.safetensors",
                              {weights.begin() + static_cast<long>(half), weights.end()});
        json map = json::object();
        for (size_t i = 0; i < weights.size(); ++i)
            map[weights[i].first] =
                i < half ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
        dice::writeFileAtomically(
            folder + "/model.safetensors.index.json",
            json{{"metadata", {{"total_size", 0}}}, {"weight_map", map}}.dump());
        auto loaded = dice::Qwen3Model::load(folder, {});
        QVERIFY(sampleLogits(*loaded).equal(sampleLogits(*original)));
    }

    void badCheckpointsNameTheFile() {
        QTemporaryDir dir;
        const auto config = dice::tinyModelConfig();
        auto model = dice::Qwen3Model::random(config, {}, 5, 0.2);
        const std::string root = dir.path().toStdString();
        auto fresh = [&](const std::string& name) {
            const std::string folder = root + "/" + name;
            writeCheckpoint(folder, *model, tinyConfigJson(config));
            return folder;
        };
        auto expect = [](const std::string& message, const std::string& file,
                         const std::string& problem) {
            QVERIFY2(message.find(file) != std::string::npos, message.c_str());
            QVERIFY2(message.find(problem) != std::string::npos, message.c_str());
        };

        std::string f = fresh("no-config");
        std::filesystem::remove(f + "/config.json");
        expect(loadError(f), "config.json", "is missing");

        f = fresh("no-weights");
        std::filesystem::remove(f + "/model.safetensors");
        expect(loadError(f), "no-weights", "neither model.safetensors");

        f = fresh("bad-json");
        dice::writeFileAtomically(f + "/config.json", "{\"model_type\": \"qwen3\", ");
        expect(loadError(f), "config.json", "not valid JSON");

        f = fresh("wrong-shape");
        auto other = tinyConfigJson(config);
        other["intermediate_size"] = 128;
        dice::writeFileAtomically(f + "/config.json", other.dump());
        expect(loadError(f), "model.safetensors", "mlp.gate_proj.weight' has the shape [96, 64]");

        f = fresh("more-layers");
        other = tinyConfigJson(config);
        other["num_hidden_layers"] = 3;
        dice::writeFileAtomically(f + "/config.json", other.dump());
        expect(loadError(f), "model.safetensors", "has no tensor 'model.layers.2.input_layernorm");

        f = fresh("fewer-layers");
        other = tinyConfigJson(config);
        other["num_hidden_layers"] = 1;
        dice::writeFileAtomically(f + "/config.json", other.dump());
        expect(loadError(f), "model.safetensors", "'model.layers.1.");

        f = fresh("int-weights");
        auto weights = model->namedWeights();
        weights[1].second = weights[1].second.to(at::kInt);
        dice::saveSafetensors(f + "/model.safetensors", weights);
        expect(loadError(f), "model.safetensors", "dtype I32, not a floating-point type");

        f = fresh("truncated");
        {
            const auto size = std::filesystem::file_size(f + "/model.safetensors");
            std::filesystem::resize_file(f + "/model.safetensors", size - 100);
        }
        expect(loadError(f), "model.safetensors", "truncated");

        f = fresh("missing-lm-head");
        weights = model->namedWeights();
        weights.pop_back();
        dice::saveSafetensors(f + "/model.safetensors", weights);
        expect(loadError(f), "model.safetensors", "has no tensor 'lm_head.weight'");

        // With tied embeddings lm_head.weight is not needed.
        f = fresh("tied");
        other = tinyConfigJson(config);
        other["tie_word_embeddings"] = true;
        dice::writeFileAtomically(f + "/config.json", other.dump());
        dice::saveSafetensors(f + "/model.safetensors", weights);
        QCOMPARE(loadError(f), std::string());
    }

    void loadingCanBeCancelled() {
        QTemporaryDir dir;
        const auto config = dice::tinyModelConfig();
        auto model = dice::Qwen3Model::random(config, {}, 6, 0.2);
        const std::string folder = dir.path().toStdString();
        writeCheckpoint(folder, *model, tinyConfigJson(config));
        std::atomic<bool> cancel{false};
        dice::LoadOptions options;
        options.cancel = &cancel;
        int calls = 0;
        options.progress = [&](const dice::LoadProgress&) {
            if (++calls == 3)
                cancel = true;
        };
        QVERIFY_THROWS_EXCEPTION(dice::LoadCancelled, dice::Qwen3Model::load(folder, options));
        QCOMPARE(calls, 3);
    }

    void cachedDecodingMatchesForward() {
        auto model = dice::Qwen3Model::random(dice::tinyModelConfig(), {}, 7, 0.2);
        QVERIFY(dice::cachedDecodingDeviation(*model, 4, 1) <= 1e-4);
        QVERIFY(dice::cachedDecodingDeviation(*model, 1, 2) <= 1e-4);
        QVERIFY(dice::cachedDecodingDeviation(*model, 8, 3) <= 1e-4);
    }

    void longPrefillInChunks() {
        // Prompts longer than one prefill chunk (1024 tokens), of different lengths.
        auto model = dice::Qwen3Model::random(dice::tinyModelConfig(), {}, 11, 0.2);
        const std::int64_t B = 4, V = model->config().vocabSize;
        auto generator = at::detail::createCPUGenerator(5);
        const auto seq = at::randint(V, {2, 1040}, generator, at::TensorOptions().dtype(at::kLong));
        model->allocateCache(2, 1040);
        model->prefill(seq.narrow(1, 0, 1032), {1032, 1000}, B);
        auto block = at::empty({2, B}, at::TensorOptions().dtype(at::kLong));
        block[0].copy_(seq[0].narrow(0, 1032, B));
        block[1].copy_(seq[1].narrow(0, 1000, B));
        const auto logits = model->blockPass(block, {0, 0}, true);
        at::NoGradGuard noGrad;
        const auto idx = at::arange(1036, at::TensorOptions().dtype(at::kLong));
        const auto blocks = at::div(idx, B, "floor");
        const auto mask = (blocks.unsqueeze(0) <= blocks.unsqueeze(1)).view({1, 1, 1036, 1036});
        for (std::int64_t row = 0; row < 2; ++row) {
            const std::int64_t end = row == 0 ? 1036 : 1004;
            const auto reference = model->forward(seq[row].narrow(0, 0, end).unsqueeze(0),
                                                  idx.narrow(0, 0, end).unsqueeze(0),
                                                  mask.narrow(2, 0, end).narrow(3, 0, end));
            const double diff =
                (logits[row] - reference[0].narrow(0, end - B, B)).abs().max().item<double>();
            QVERIFY2(diff <= 1e-4, std::to_string(diff).c_str());
        }
    }

    void blockPassSeesTheCacheAndTheWholeBlock() {
        // A later cell of the block changes an earlier cell's logits (bidirectional inside the
        // block), and the cache changes them too.
        auto model = dice::Qwen3Model::random(dice::tinyModelConfig(), {}, 8, 0.2);
        const auto opts = at::TensorOptions().dtype(at::kLong);
        model->allocateCache(1, 16);
        model->prefill(at::tensor({5, 6, 7, 8}, opts).view({1, 4}), {4}, 4);
        const auto a = model->blockPass(at::tensor({1, 2, 3, 4}, opts).view({1, 4}), {0}, true);
        const auto b = model->blockPass(at::tensor({1, 2, 3, 9}, opts).view({1, 4}), {0}, true);
        QVERIFY(!a[0][0].equal(b[0][0]));
        QCOMPARE(model->cacheLengths()[0], std::int64_t(4));
        model->allocateCache(1, 16);
        model->prefill(at::tensor({5, 6, 7, 10}, opts).view({1, 4}), {4}, 4);
        const auto c = model->blockPass(at::tensor({1, 2, 3, 4}, opts).view({1, 4}), {1}, true);
        QVERIFY(!a[0][0].equal(c[0][0]));
        QCOMPARE(model->cacheLengths()[0], std::int64_t(8));
    }

    void movedRowsKeepTheirCache() {
        auto model = dice::Qwen3Model::random(dice::tinyModelConfig(), {}, 9, 0.2);
        const auto opts = at::TensorOptions().dtype(at::kLong);
        const auto prompts = at::tensor({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, opts).view({2, 6});
        const auto block = at::tensor({20, 21, 22, 23}, opts).view({1, 4});
        model->allocateCache(2, 12);
        model->prefill(prompts.narrow(1, 0, 4), {4, 4}, 4);
        const auto both = model->blockPass(at::cat({block, block}), {0, 0}, true);
        model->moveCacheRow(1, 0);
        const auto moved = model->blockPass(block, {0}, true);
        QVERIFY((moved[0] - both[1]).abs().max().item<float>() <= 1e-5f);
        QVERIFY((moved[0] - both[0]).abs().max().item<float>() > 1e-3f);
    }

    // The same prefills, passes and moves over a contiguous cache and over pages of 32 positions
    // (fewer than every row's capacity, handed back and taken again out of order): the same
    // logits. A row's pages come from the free ones, and too few free pages are an error.
    void pagedCacheKeepsTheLogits() {
        auto model = dice::Qwen3Model::random(dice::tinyModelConfig(), {}, 12, 0.2);
        const std::int64_t B = 4, V = model->config().vocabSize;
        auto generator = at::detail::createCPUGenerator(6);
        const auto opts = at::TensorOptions().dtype(at::kLong);
        const auto seq = at::randint(V, {3, 200}, generator, opts);
        auto run = [&](const dice::CachePaging& paging) {
            std::vector<at::Tensor> out;
            model->allocateCache(3, 200, paging);
            model->prefill(seq.narrow(1, 0, 72), {40, 72, 8}, B);
            auto blocks = [&](std::int64_t rows, std::int64_t at) {
                return seq.narrow(0, 0, rows).narrow(1, at, B);
            };
            out.push_back(model->blockPass(blocks(3, 100), {1, 0, 1}, true));
            out.push_back(model->blockPass(blocks(3, 104), {1, 1, 0}, true));
            model->moveCacheRow(2, 0);
            model->releaseCacheRow(2);
            out.push_back(model->blockPass(blocks(2, 108), {1, 1}, true));
            model->prefill(seq.narrow(0, 2, 1).narrow(1, 120, 64), {64}, B, 2);
            out.push_back(model->blockPass(blocks(3, 112), {1, 1, 1}, true));
            return out;
        };
        const auto contiguous = run({});
        QVERIFY(!model->cachePaged());
        QCOMPARE(model->cacheFreePages(), std::int64_t(0));
        dice::CachePaging paging;
        paging.pageTokens = 32;
        paging.tokens = 9 * 32;
        const auto paged = run(paging);
        QVERIFY(model->cachePaged());
        QCOMPARE(model->cachePages(), std::int64_t(9));
        // Rows of 20, 84 and 68 positions at the end: 1, 3 and 3 pages, the most ever held.
        QCOMPARE(model->cacheFreePages(), std::int64_t(2));
        QCOMPARE(model->cachePeakPages(), std::int64_t(7));
        for (std::size_t i = 0; i < paged.size(); ++i) {
            const double difference = (paged[i] - contiguous[i]).abs().max().item<double>();
            QVERIFY2(difference <= 1e-6, std::to_string(difference).c_str());
        }
        // A reservation that cannot be met leaves the row as it was.
        QVERIFY_THROWS_EXCEPTION(dice::Error, model->reserveCacheRow(0, 160));
        QCOMPARE(model->cacheLengths()[0], std::int64_t(20));
        QCOMPARE(model->cacheFreePages(), std::int64_t(2));
        model->reserveCacheRow(1, 96);
        QCOMPARE(model->cacheFreePages(), std::int64_t(2));
        QCOMPARE(model->cacheLengths()[1], std::int64_t(0));
        QCOMPARE(model->cachePagesFor(97), std::int64_t(4));
        paging.pageTokens = 48;
        QVERIFY_THROWS_EXCEPTION(dice::Error, model->allocateCache(3, 200, paging));
    }

    void forwardIsDifferentiable() {
        auto model = dice::Qwen3Model::random(dice::tinyModelConfig(), {}, 10, 0.2);
        for (auto& p : model->parameters())
            p.requires_grad_(true);
        const auto tokens =
            at::tensor({1, 2, 3, 4, 5, 6}, at::TensorOptions().dtype(at::kLong)).view({1, 6});
        const auto positions = at::arange(6, at::TensorOptions().dtype(at::kLong)).view({1, 6});
        const auto idx = at::arange(6);
        const auto mask = (idx.unsqueeze(0) <= idx.unsqueeze(1)).view({1, 1, 6, 6});
        const auto logits = model->forward(tokens, positions, mask);
        const auto loss = at::cross_entropy_loss(logits.view({6, -1}), tokens.view({6}));
        loss.backward();
        for (const auto& p : model->parameters()) {
            QVERIFY(p.grad().defined());
            QVERIFY(p.grad().abs().sum().item<double>() > 0);
        }
    }

    void checkpointedLayersGiveTheSameGradients() {
        // Two rows with a block mask and scored cells in both: the loss and every gradient must
        // be those of the plain pass, with the layers run again in the backward pass.
        const auto tokens = at::tensor({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                                       at::TensorOptions().dtype(at::kLong))
                                .view({2, 6});
        const auto positions =
            at::arange(6, at::TensorOptions().dtype(at::kLong)).repeat({2, 1}).contiguous();
        const auto idx = at::arange(6);
        const auto mask =
            (idx.unsqueeze(0) / 2 <= idx.unsqueeze(1) / 2).view({1, 1, 6, 6}).repeat({2, 1, 1, 1});
        const auto rows = at::tensor({1, 4, 7, 11}, at::TensorOptions().dtype(at::kLong));
        const auto targets = at::tensor({5, 9, 2, 30}, at::TensorOptions().dtype(at::kLong));
        std::vector<std::vector<at::Tensor>> grads;
        std::vector<double> losses;
        for (const bool checkpoint : {false, true}) {
            auto model = dice::Qwen3Model::random(dice::tinyModelConfig(), {}, 12, 0.2);
            model->setGradientCheckpointing(checkpoint);
            QCOMPARE(model->gradientCheckpointing(), checkpoint);
            for (auto& p : model->parameters())
                p.requires_grad_(true);
            const auto logits = model->forward(tokens, positions, mask, rows);
            QCOMPARE(logits.sizes().vec(), (std::vector<std::int64_t>{4, logits.size(1)}));
            const auto loss = at::cross_entropy_loss(logits, targets);
            // One checkpoint node per layer in the recorded graph, and none without.
            QCOMPARE(checkpointNodes(loss),
                     checkpoint ? static_cast<int>(dice::tinyModelConfig().numLayers) : 0);
            loss.backward();
            losses.push_back(loss.item<double>());
            grads.emplace_back();
            for (const auto& p : model->parameters()) {
                QVERIFY(p.grad().defined());
                grads.back().push_back(p.grad().clone());
            }
        }
        QCOMPARE(losses[0], losses[1]);
        QCOMPARE(grads[0].size(), grads[1].size());
        for (std::size_t i = 0; i < grads[0].size(); ++i) {
            const double scale = grads[0][i].abs().max().item<double>();
            QVERIFY(scale > 0);
            QVERIFY2((grads[0][i] - grads[1][i]).abs().max().item<double>() <= 1e-5 * scale,
                     ("parameter " + std::to_string(i)).c_str());
        }
    }

    // Training's doubled block-diffusion layout (two rows of different real lengths, padded),
    // attended in chunks of queries over the keys each chunk may see: the loss and every
    // gradient are those of one attention over all keys, with and without checkpointed layers.
    void chunkedMaskedAttentionKeepsLossAndGradients() {
        const std::int64_t L = 24, T = 2 * L;
        const auto mask =
            at::stack({dice::bd3AttentionMask(20, L, 4), dice::bd3AttentionMask(13, L, 4)})
                .unsqueeze(1);
        const auto tokens =
            (at::arange(2 * T, at::TensorOptions().dtype(at::kLong)) * 7 % 59 + 1).view({2, T});
        const auto positions =
            at::arange(L, at::TensorOptions().dtype(at::kLong)).repeat({2, 2}).contiguous();
        const auto rows =
            at::tensor({2, 9, 30, 41, 50, 70, 90}, at::TensorOptions().dtype(at::kLong));
        const auto targets =
            at::tensor({5, 9, 2, 30, 7, 11, 3}, at::TensorOptions().dtype(at::kLong));
        for (const bool checkpoint : {false, true}) {
            std::vector<std::vector<at::Tensor>> grads;
            std::vector<double> losses;
            for (const std::int64_t chunk : {0, 8}) {
                auto model = dice::Qwen3Model::random(dice::tinyModelConfig(), {}, 14, 0.2);
                model->setGradientCheckpointing(checkpoint);
                model->setMaskedAttentionChunk(chunk);
                QCOMPARE(model->maskedAttentionChunk(), chunk);
                for (auto& p : model->parameters())
                    p.requires_grad_(true);
                const auto loss =
                    at::cross_entropy_loss(model->forward(tokens, positions, mask, rows), targets);
                loss.backward();
                losses.push_back(loss.item<double>());
                grads.emplace_back();
                for (const auto& p : model->parameters())
                    grads.back().push_back(p.grad().clone());
            }
            QVERIFY(std::abs(losses[0] - losses[1]) <= 1e-5 * std::abs(losses[0]));
            for (std::size_t i = 0; i < grads[0].size(); ++i) {
                const double scale = grads[0][i].abs().max().item<double>();
                QVERIFY2((grads[0][i] - grads[1][i]).abs().max().item<double>() <= 1e-5 * scale,
                         ("parameter " + std::to_string(i)).c_str());
            }
        }
        auto model = dice::Qwen3Model::random(dice::tinyModelConfig(), {}, 14, 0.2);
        QVERIFY_THROWS_EXCEPTION(dice::Error, model->setMaskedAttentionChunk(-1));
    }

    void scoredRowsAreThoseOfTheFullLogits() {
        auto model = dice::Qwen3Model::random(dice::tinyModelConfig(), {}, 13, 0.2);
        const auto tokens =
            at::tensor({3, 1, 4, 1, 5, 9, 2, 6}, at::TensorOptions().dtype(at::kLong)).view({2, 4});
        const auto positions =
            at::arange(4, at::TensorOptions().dtype(at::kLong)).repeat({2, 1}).contiguous();
        const auto rows = at::tensor({0, 5, 7}, at::TensorOptions().dtype(at::kLong));
        at::NoGradGuard noGrad;
        const auto full = model->forward(tokens, positions, at::Tensor());
        const auto some = model->forward(tokens, positions, at::Tensor(), rows);
        const auto expected = full.reshape({8, full.size(2)}).index_select(0, rows);
        QVERIFY((some - expected).abs().max().item<double>() <= 1e-5);
        QVERIFY_THROWS_EXCEPTION(
            std::exception, model->forward(tokens, positions, at::Tensor(), rows.view({1, 3})));
    }

    // A model of the embedded model's size runs on one thread unless told otherwise (one was
    // as fast as two alone on two cores, and 12 to 40 times faster beside another generation);
    // an explicit count wins, and a large model keeps every hardware thread.
    void cpuThreadsFollowTheModelSize() {
        const std::string embedded = DICE_SOURCE_DIR "/resources/models/dice-nano";
        dice::SessionOptions options;
        {
            const auto session = dice::ModelSession::open(embedded, options);
            QVERIFY(session->summary().parameters <= dice::kOneThreadParameters);
            QCOMPARE(at::get_num_threads(), 1);
        }
        options.cpuThreads = 2;
        {
            const auto session = dice::ModelSession::open(embedded, options);
            QCOMPARE(at::get_num_threads(), 2);
        }
        QCOMPARE(dice::defaultCpuThreads(6'000'000), 1);
        QCOMPARE(dice::defaultCpuThreads(1'700'000'000),
                 std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
    }
};

QTEST_GUILESS_MAIN(TestModel)
#include "tst_model.moc"
