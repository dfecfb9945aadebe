// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/run_folder.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/common/json_depth.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace dice {

namespace fs = std::filesystem;

namespace {

// status.json and config.json of a run hold a few kilobytes.
constexpr FileLimit kRunStateFile{"a run's status or configuration", 4 * limits::kMiB};
// One rollouts/STEP.jsonl: 1,024 rollouts of 4,096 tokens with their traces is about 60 MB.
constexpr FileLimit kRolloutsFile{"a step's rollouts", 1 * limits::kGiB};
// metrics.jsonl or eval.jsonl: a line per step, each with a run's per-task results at most.
constexpr FileLimit kRunLogFile{"a run's metrics or evaluations", 1 * limits::kGiB};

// Deeper than any line a trainer writes (a rollout nests three levels).
constexpr std::size_t kMaxDepth = 64;

// The object in `text`, or null when it is not a JSON object.
nlohmann::json objectOrNull(const std::string& text) {
    if (jsonNestingDepth(text, kMaxDepth) > kMaxDepth)
        return nullptr;
    try {
        nlohmann::json value = nlohmann::json::parse(text);
        if (value.is_object())
            return value;
    } catch (const nlohmann::json::exception&) {
    }
    return nullptr;
}

// The text of a small file, empty when it is not there or cannot be read.
std::string smallFile(const fs::path& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return {};
    try {
        return readTextFile(path.string(), kRunStateFile);
    } catch (const Error&) {
        return {};
    }
}

} // namespace

std::vector<Checkpoint> listCheckpoints(const fs::path& output) {
    std::vector<Checkpoint> out;
    std::error_code ec;
    const fs::path root = output / "checkpoints";
    if (!fs::is_directory(root, ec))
        return out;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("step-", 0) != 0 || name.find(".tmp") != std::string::npos)
            continue;
        if (!fs::exists(entry.path() / "trainer_state.json", ec))
            continue;
        try {
            out.push_back({entry.path(), std::stoll(name.substr(5))});
        } catch (const std::exception&) {
            continue;
        }
    }
    std::sort(out.begin(), out.end(),
              [](const Checkpoint& a, const Checkpoint& b) { return a.step < b.step; });
    return out;
}

fs::path checkpointFolder(const fs::path& output, std::int64_t step) {
    char name[32];
    std::snprintf(name, sizeof(name), "step-%08lld", static_cast<long long>(step));
    return output / "checkpoints" / name;
}

void pruneCheckpoints(const fs::path& output, int keep) {
    auto all = listCheckpoints(output);
    std::error_code ec;
    while (static_cast<int>(all.size()) > std::max(1, keep)) {
        fs::remove_all(all.front().folder, ec);
        all.erase(all.begin());
    }
}

std::size_t dropLinesAfterStep(const fs::path& file, std::int64_t step) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        return 0;
    const std::string text = readTextFile(file.string(), kRunLogFile);
    std::string kept;
    std::size_t dropped = 0;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = text.find('\n', at);
        if (end == std::string::npos) {
            ++dropped;
            break;
        }
        const std::string line = text.substr(at, end - at);
        at = end + 1;
        const nlohmann::json value = objectOrNull(line);
        if (value.is_object() && value.contains("step") && value["step"].is_number_integer() &&
            value["step"].get<std::int64_t>() > step) {
            ++dropped;
            continue;
        }
        kept += line + "\n";
    }
    if (dropped > 0)
        writeFileAtomically(file.string(), kept);
    return dropped;
}

JsonLinesFollower::JsonLinesFollower(fs::path file)
    : m_file(std::move(file)) {}

JsonLinesFollower::News JsonLinesFollower::poll() {
    News news;
    std::error_code ec;
    if (!fs::is_regular_file(m_file, ec))
        return news;
    const std::uintmax_t size = fs::file_size(m_file, ec);
    if (ec)
        return news;
    if (size < m_offset) {
        m_offset = 0;
        m_skipped = 0;
        m_lastProblem.clear();
        news.restarted = true;
    }
    if (size == m_offset)
        return news;
    std::ifstream in(m_file, std::ios::binary);
    if (!in)
        return news;
    in.seekg(static_cast<std::streamoff>(m_offset));
    std::string chunk(static_cast<std::size_t>(std::min(size - m_offset, kMostPerPoll)), '\0');
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    chunk.resize(static_cast<std::size_t>(in.gcount()));
    std::size_t start = 0;
    for (std::size_t end = chunk.find('\n'); end != std::string::npos;
         start = end + 1, end = chunk.find('\n', start)) {
        const std::string line = chunk.substr(start, end - start);
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        nlohmann::json value = objectOrNull(line);
        if (value.is_null()) {
            ++m_skipped;
            m_lastProblem =
                "line at byte " + std::to_string(m_offset + start) + " is not a JSON object";
            continue;
        }
        news.lines.push_back(std::move(value));
    }
    if (start == 0 && chunk.size() == kMostPerPoll) {
        // One line longer than a poll takes: no writer of ours makes one, so it is left behind.
        ++m_skipped;
        m_lastProblem = "a line at byte " + std::to_string(m_offset) + " is longer than " +
                        std::to_string(kMostPerPoll >> 20) + " MiB";
        start = chunk.size();
    }
    m_offset += start;
    return news;
}

RlRunFollower::RlRunFollower(fs::path folder)
    : m_folder(std::move(folder))
    , m_metricsFile(m_folder / "metrics.jsonl")
    , m_evaluationsFile(m_folder / "eval.jsonl") {}

bool RlRunFollower::poll() {
    bool changed = false;
    if (m_config.is_null()) {
        m_config = objectOrNull(smallFile(m_folder / "config.json"));
        changed = changed || !m_config.is_null();
    }
    const std::string statusText = smallFile(m_folder / "status.json");
    if (statusText != m_statusText) {
        // A status caught in the middle of being written keeps the one before.
        nlohmann::json status = objectOrNull(statusText);
        if (!status.is_null() || statusText.empty()) {
            m_status = std::move(status);
            m_statusText = statusText;
            changed = true;
        }
    }
    const auto follow = [&changed](JsonLinesFollower& file, std::vector<nlohmann::json>& into) {
        auto news = file.poll();
        if (news.restarted) {
            into.clear();
            changed = true;
        }
        if (!news.lines.empty()) {
            into.insert(into.end(), std::make_move_iterator(news.lines.begin()),
                        std::make_move_iterator(news.lines.end()));
            changed = true;
        }
    };
    follow(m_metricsFile, m_metrics);
    follow(m_evaluationsFile, m_evaluations);

    std::vector<std::int64_t> steps;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(m_folder / "rollouts", ec)) {
        const fs::path& path = entry.path();
        if (path.extension() != ".jsonl")
            continue;
        const std::string stem = path.stem().string();
        if (stem.empty() || stem.find_first_not_of("0123456789") != std::string::npos ||
            stem.size() > 12)
            continue;
        steps.push_back(std::stoll(stem));
    }
    std::sort(steps.begin(), steps.end());
    if (steps != m_rolloutSteps) {
        m_rolloutSteps = std::move(steps);
        changed = true;
    }
    std::vector<Checkpoint> checkpoints = listCheckpoints(m_folder);
    const auto sameSteps = [](const std::vector<Checkpoint>& a, const std::vector<Checkpoint>& b) {
        return std::equal(
            a.begin(), a.end(), b.begin(), b.end(),
            [](const Checkpoint& x, const Checkpoint& y) { return x.step == y.step; });
    };
    if (!sameSteps(checkpoints, m_checkpoints)) {
        m_checkpoints = std::move(checkpoints);
        changed = true;
    }
    return changed;
}

std::vector<std::string> RlRunFollower::problems() const {
    std::vector<std::string> out;
    for (const JsonLinesFollower* file : {&m_metricsFile, &m_evaluationsFile})
        if (file->skippedLines() > 0)
            out.push_back(file->file().filename().string() + ": " +
                          std::to_string(file->skippedLines()) + " line(s) left out (" +
                          file->lastProblem() + ")");
    return out;
}

std::vector<nlohmann::json> readRollouts(const fs::path& folder, std::int64_t step) {
    const fs::path path = folder / "rollouts" / (std::to_string(step) + ".jsonl");
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return {};
    const std::string text = readTextFile(path.string(), kRolloutsFile);
    std::vector<nlohmann::json> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        nlohmann::json value = objectOrNull(text.substr(start, end - start));
        if (!value.is_null())
            out.push_back(std::move(value));
        start = end + 1;
    }
    return out;
}

DecodeTrace rolloutTrace(const nlohmann::json& rollout, std::int64_t blockLength) {
    const auto ids = [&rollout](const char* key) {
        std::vector<std::int64_t> out;
        const auto it = rollout.find(key);
        if (!rollout.is_object() || it == rollout.end() || !it->is_array())
            throw Error(std::string("the rollout has no list \"") + key + "\"");
        for (const auto& v : *it) {
            if (!v.is_number_integer())
                throw Error(std::string("the rollout's \"") + key +
                            "\" holds a value that is not "
                            "a whole number");
            out.push_back(v.get<std::int64_t>());
        }
        return out;
    };
    const auto tokens = ids("tokens");
    const auto steps = ids("commit_step");
    if (tokens.size() != steps.size())
        throw Error("the rollout has " + std::to_string(tokens.size()) + " tokens but " +
                    std::to_string(steps.size()) + " commit steps");
    if (blockLength < 1 || blockLength > (1 << 20))
        throw Error("a block length must be from 1 to 1048576");
    // Every denoising step commits at least one cell, of the answer or of the last block's cells
    // after it: a sampler never takes more steps than that.
    const auto mostSteps = static_cast<std::int64_t>(tokens.size()) + blockLength;
    std::int64_t last = -1;
    for (auto s : steps) {
        if (s < 0 || s >= mostSteps)
            throw Error("the rollout has a commit step of " + std::to_string(s) + " for " +
                        std::to_string(tokens.size()) + " tokens");
        last = std::max(last, s);
    }
    std::int64_t prompt = 0;
    if (const auto it = rollout.find("prompt_tokens");
        it != rollout.end() && it->is_number_unsigned() && it->get<std::int64_t>() < (1LL << 40))
        prompt = it->get<std::int64_t>();
    // Positions by the step that committed them.
    std::vector<std::vector<std::size_t>> byStep(static_cast<std::size_t>(last + 1));
    for (std::size_t i = 0; i < steps.size(); ++i)
        byStep[static_cast<std::size_t>(steps[i])].push_back(i);
    DecodeTrace trace;
    int block = -1;
    int stepInBlock = 0;
    for (std::size_t s = 0; s < byStep.size(); ++s) {
        DecodeStep e;
        e.kind = DecodeStep::Kind::Denoise;
        int now = std::max(block, 0);
        if (!byStep[s].empty()) {
            const auto absolute = prompt + static_cast<std::int64_t>(byStep[s].front());
            now = static_cast<int>(absolute / blockLength - prompt / blockLength);
        }
        stepInBlock = now == block ? stepInBlock + 1 : 0;
        block = now;
        e.block = block;
        e.step = stepInBlock;
        e.globalStep = static_cast<int>(s);
        e.blockStart = (prompt / blockLength + block) * blockLength - prompt;
        e.blockLength = static_cast<int>(blockLength);
        for (auto i : byStep[s]) {
            e.positions.push_back(static_cast<std::int64_t>(i));
            e.tokens.push_back(tokens[i]);
            e.confidences.push_back(0.0f);
        }
        e.forwardPasses = static_cast<std::int64_t>(s) + 1;
        trace.append(e);
    }
    block = std::max(block, 0);
    DecodeStep done;
    done.kind = DecodeStep::Kind::Finished;
    done.block = block;
    done.blockStart = (prompt / blockLength + block) * blockLength - prompt;
    trace.append(done);
    return trace;
}

} // namespace dice
