// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tokenizer/reference_tokenizer.h"

#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/common/text_tail.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace dice {

namespace fs = std::filesystem;

namespace {

constexpr const char* kScript = "tests/reference/tokenizer_reference.cjs";

} // namespace

std::string findReferenceScript(const std::string& start) {
    std::error_code ec;
    fs::path dir = fs::absolute(start, ec);
    while (!ec && !dir.empty()) {
        if (fs::exists(dir / kScript, ec))
            return (dir / kScript).string();
        if (dir == dir.parent_path())
            break;
        dir = dir.parent_path();
    }
    return {};
}

ReferenceRun runReferenceTokenizer(const std::string& script) {
    const TemporaryFolder folder("dice-reference");
    const std::string out = folder.path() + "/reference.json";
    ChildRunOptions options;
    options.out = ChildStream::Null;
    const ChildResult node = runChild({{"node", script, "--out", out}}, options);
    if (!node.exit.started())
        throw Error("the reference tokenizer needs Node.js (" + node.exit.startError +
                    "); scripts/setup.sh installs it");
    if (!node.ok()) {
        const std::string message = textTail(node.err, 2000);
        throw Error("the reference tokenizer (node " + script + ") " + node.exit.describe() + ": " +
                    (message.empty() ? std::string("no message") : message));
    }
    const std::string text = readTextFile(out);
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw FileError(out, std::string("the reference's output is not valid JSON: ") + e.what());
    }
    ReferenceRun run;
    try {
        run.reference = root.at("reference").get<std::string>();
        run.node = root.at("node").get<std::string>();
        run.tokenizer = root.at("tokenizer").get<std::string>();
        run.tokenizerJson = root.at("tokenizer_json").get<std::string>();
        run.extraAddedTokens = root.at("extra_added_tokens");
        run.sources = root.at("corpus").at("sources");
        run.bytes = root.at("corpus").at("bytes").get<std::uint64_t>();
        run.loadSeconds = root.at("timing").at("load_seconds").get<double>();
        run.coldSeconds = root.at("timing").at("cold_seconds").get<double>();
        run.warmSeconds = root.at("timing").at("warm_seconds").get<double>();
        for (const auto& d : root.at("documents")) {
            ReferenceDocument doc;
            doc.source = d.at("source").get<std::string>();
            doc.name = d.at("name").get<std::string>();
            doc.text = d.at("text").get<std::string>();
            doc.ids = d.at("ids").get<std::vector<std::int64_t>>();
            run.documents.push_back(std::move(doc));
        }
    } catch (const nlohmann::json::exception& e) {
        throw FileError(out, std::string("unexpected reference output: ") + e.what());
    }
    return run;
}

Tokenizer loadReferenceTokenizer(const ReferenceRun& run) {
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(readTextFile(run.tokenizerJson, limits::kTokenizerJson));
        for (const auto& token : run.extraAddedTokens)
            root.at("added_tokens").push_back(token);
    } catch (const nlohmann::json::exception& e) {
        throw FileError(run.tokenizerJson, std::string("cannot add the extra tokens: ") + e.what());
    }
    return Tokenizer::fromJson(root.dump(), run.tokenizerJson);
}

} // namespace dice
