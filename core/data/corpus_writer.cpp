// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/corpus_writer.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/prompts/native_prompts.h"
#include "core/tasks/holes.h"
#include "core/tasks/task.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

namespace dice {

std::vector<CorpusExample> corpusExamples(const SynthTask& t) {
    std::vector<CorpusExample> out;
    CorpusExample generate;
    generate.id = t.task.name + "/generate";
    generate.task = t.task.name;
    generate.family = t.family;
    generate.level = t.task.level;
    generate.split = toString(t.split);
    generate.kind = "generate";
    generate.prompt = nativeGenerationPrompt(t.task);
    generate.answer = t.solution;
    generate.kernelbenchStyle = t.kernelbenchStyle;
    out.push_back(generate);

    const auto skeleton = makeSkeleton(t.solution);
    if (!skeleton || t.kernelbenchStyle)
        return out;
    for (std::size_t target = 0; target < skeleton->holes.size(); ++target) {
        const std::string text = skeletonWithOneHole(*skeleton, target);
        CorpusExample infill = generate;
        infill.kind = "infill";
        infill.hole = skeleton->holes[target];
        infill.id = t.task.name + "/infill/" + infill.hole;
        infill.prompt = nativeInfillPrompt(t.task, text, infill.hole);
        infill.answer = skeleton->bodies[target];
        out.push_back(infill);
    }
    // The Infill area fills a skeleton of several holes one at a time, in order: the holes before
    // the one asked hold what was proposed for them, those after it are still holes. Those
    // questions are asked as the area asks them (the last hole's is the one above).
    for (std::size_t target = 0; target + 1 < skeleton->holes.size(); ++target) {
        CorpusExample infill = generate;
        infill.kind = "infill";
        infill.hole = skeleton->holes[target];
        infill.id = t.task.name + "/infill-in-order/" + infill.hole;
        infill.prompt =
            nativeInfillPrompt(t.task, skeletonFilledBefore(*skeleton, target), infill.hole);
        infill.answer = skeleton->bodies[target];
        out.push_back(infill);
    }
    return out;
}

std::vector<SynthTask> builtinTrainingTasks() {
    std::vector<SynthTask> out;
    for (auto& task : loadTaskSuite(builtinTaskDirectory()).tasks) {
        const std::string solution = taskSolutionPath(task);
        if (solution.empty())
            continue;
        SynthTask t;
        t.solution = readTextFile(solution, limits::kCandidate);
        t.family = task.name;
        t.split = CorpusSplit::Train;
        t.task = std::move(task);
        out.push_back(std::move(t));
    }
    return out;
}

std::vector<CorpusExample> builtinExamples() {
    std::vector<CorpusExample> out;
    for (const auto& t : builtinTrainingTasks()) {
        auto examples = corpusExamples(t);
        for (auto& e : examples)
            e.answer = withoutCommentLines(e.answer);
        // Fill all asks each hole with the holes before it holding the model's answers, which
        // are these comment-free bodies: the in-order questions are asked with them, the last
        // hole's too.
        const auto skeleton = makeSkeleton(t.solution);
        if (skeleton && skeleton->holes.size() > 1) {
            Skeleton answered = *skeleton;
            for (auto& body : answered.bodies)
                body = withoutCommentLines(body);
            examples.erase(std::remove_if(examples.begin(), examples.end(),
                                          [](const CorpusExample& e) {
                                              return e.id.find("/infill-in-order/") !=
                                                     std::string::npos;
                                          }),
                           examples.end());
            for (std::size_t target = 0; target < answered.holes.size(); ++target) {
                CorpusExample e = examples.front();
                e.kind = "infill";
                e.hole = answered.holes[target];
                e.id = t.task.name + "/infill-in-order/" + e.hole;
                e.prompt =
                    nativeInfillPrompt(t.task, skeletonFilledBefore(answered, target), e.hole);
                e.answer = answered.bodies[target];
                examples.push_back(std::move(e));
            }
        }
        out.insert(out.end(), std::make_move_iterator(examples.begin()),
                   std::make_move_iterator(examples.end()));
    }
    return out;
}

std::string withoutCommentLines(const std::string& candidate) {
    std::string out;
    bool host = false;
    bool lastBlank = false;
    std::size_t at = 0;
    while (at < candidate.size()) {
        std::size_t end = candidate.find('\n', at);
        end = end == std::string::npos ? candidate.size() : end + 1;
        const std::string line = candidate.substr(at, end - at);
        at = end;
        const std::size_t first = line.find_first_not_of(" \t");
        const std::string code = first == std::string::npos ? std::string() : line.substr(first);
        if (code.rfind("#pragma dice host", 0) == 0)
            host = true;
        else if (code.rfind("#pragma dice device", 0) == 0)
            host = false;
        const bool comment = host ? code.rfind('#', 0) == 0 && code.rfind("#pragma", 0) != 0
                                  : code.rfind("//", 0) == 0;
        if (comment)
            continue;
        const bool blank = code.find_first_not_of("\r\n") == std::string::npos;
        if (blank && lastBlank)
            continue;
        lastBlank = blank;
        out += line;
    }
    return out;
}

std::string tokenizerText(const CorpusExample& e) {
    return e.prompt + "\n" + e.answer + "\n";
}

std::string toJsonLine(const CorpusExample& e) {
    nlohmann::json j{{"id", e.id},         {"task", e.task},    {"family", e.family},
                     {"level", e.level},   {"split", e.split},  {"kind", e.kind},
                     {"prompt", e.prompt}, {"answer", e.answer}};
    if (!e.hole.empty())
        j["hole"] = e.hole;
    if (e.kernelbenchStyle)
        j["style"] = "kernelbench";
    return j.dump();
}

CorpusExample corpusExampleFromJson(const std::string& line) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("not JSON: ") + e.what());
    }
    if (!j.is_object())
        throw Error("not a JSON object");
    auto text = [&](const char* key, bool required) {
        if (!j.contains(key)) {
            if (required)
                throw Error(std::string("missing \"") + key + "\"");
            return std::string();
        }
        if (!j[key].is_string())
            throw Error(std::string("\"") + key + "\" must be a string");
        return j[key].get<std::string>();
    };
    CorpusExample e;
    e.id = text("id", true);
    e.task = text("task", true);
    e.family = text("family", false);
    e.split = text("split", true);
    e.kind = text("kind", true);
    e.hole = text("hole", false);
    e.prompt = text("prompt", true);
    e.answer = text("answer", true);
    if (j.contains("level")) {
        if (!j["level"].is_number_integer())
            throw Error("\"level\" must be an integer");
        e.level = j["level"].get<int>();
    }
    if (e.kind != "generate" && e.kind != "infill")
        throw Error("\"kind\" must be generate or infill");
    const std::string style = text("style", false);
    if (!style.empty() && style != "kernelbench")
        throw Error("\"style\" must be kernelbench when present");
    e.kernelbenchStyle = style == "kernelbench";
    return e;
}

std::size_t writeCorpus(const std::string& directory, const std::vector<SynthTask>& tasks,
                        const SynthOptions& options) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(fs::path(directory) / "tasks", ec);
    fs::create_directories(fs::path(directory) / "solutions", ec);
    if (ec)
        throw FileError(directory, "cannot create the corpus folders: " + ec.message());
    std::string lines;
    std::string text;
    std::size_t count = 0;
    std::map<std::string, std::map<std::string, int>> families;
    std::map<std::string, int> kernelbenchStyle;
    for (const auto& t : tasks) {
        writeFileAtomically((fs::path(directory) / "tasks" / (t.task.name + ".json")).string(),
                            taskFileText(t.task));
        writeFileAtomically((fs::path(directory) / "solutions" / (t.task.name + ".dice")).string(),
                            t.solution);
        // An imported task's parameters lie in a file beside its task file.
        for (const auto& p : t.task.parameters) {
            if (p.init.kind != InitSpec::Kind::File || t.task.path.empty())
                continue;
            const fs::path from = fs::path(t.task.path).parent_path() / p.init.file;
            const fs::path to = fs::path(directory) / "tasks" / p.init.file;
            if (fs::exists(to, ec) && fs::equivalent(from, to, ec))
                continue;
            fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
            if (ec)
                throw FileError(from.string(),
                                "cannot copy the parameters into the corpus: " + ec.message());
        }
        for (const auto& e : corpusExamples(t)) {
            lines += toJsonLine(e) + "\n";
            // The tokenizer learns from what the model reads and writes, training split only.
            if (t.split == CorpusSplit::Train)
                text += tokenizerText(e);
            ++count;
        }
        if (t.kernelbenchStyle)
            ++kernelbenchStyle[toString(t.split)];
        else
            ++families[t.family][toString(t.split)];
    }
    writeFileAtomically((fs::path(directory) / "corpus.jsonl").string(), lines);
    writeFileAtomically((fs::path(directory) / "tokenizer-text.txt").string(), text);
    nlohmann::json manifest;
    manifest["format"] = "dice-corpus/1";
    manifest["seed"] = options.seed;
    manifest["variants_per_family"] = options.variantsPerFamily;
    manifest["tree_variants"] = treeVariantCount(options);
    manifest["held_out_variant_share"] = options.heldOutVariantShare;
    manifest["held_out_families"] =
        options.heldOutFamilies.empty() ? defaultHeldOutFamilies() : options.heldOutFamilies;
    manifest["tasks"] = tasks.size();
    manifest["examples"] = count;
    manifest["families"] = nlohmann::json::object();
    for (const auto& [family, splits] : families)
        manifest["families"][family] = splits;
    if (!kernelbenchStyle.empty())
        manifest["kernelbench_style"] = kernelbenchStyle;
    writeFileAtomically((fs::path(directory) / "manifest.json").string(), manifest.dump(2) + "\n");
    return count;
}

} // namespace dice
