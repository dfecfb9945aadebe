// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/decode_trace.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

// The run folder of a trainer (docs/rl.md) from the outside: its checkpoints, and a follower that
// reads what `dice train rl` appends while it runs, in this process or another, on this machine or
// copied back from a cluster. No LibTorch: the Fine-tune area reads runs with it.
namespace dice {

struct Checkpoint {
    std::filesystem::path folder;
    std::int64_t step = 0;
};

// The complete checkpoints of a run folder (output/checkpoints/step-NNNNNNNN, each with its
// trainer_state.json, which is written last), oldest first.
std::vector<Checkpoint> listCheckpoints(const std::filesystem::path& output);
// output/checkpoints/step-NNNNNNNN.
std::filesystem::path checkpointFolder(const std::filesystem::path& output, std::int64_t step);
// Removes all but the `keep` newest checkpoints.
void pruneCheckpoints(const std::filesystem::path& output, int keep);
// A resumed run takes up at its checkpoint's step, and a run killed after that checkpoint had
// already logged later steps, which it logs again: rewrites the JSON-lines file without the
// lines whose "step" is past `step` and without a last line cut short. Returns how many lines
// went; the file is left as it was when none did (or when it is not there).
std::size_t dropLinesAfterStep(const std::filesystem::path& file, std::int64_t step);

// Follows a JSON-lines file that another process appends to. Each poll returns the complete lines
// added since the last one. A last line without its newline waits for it (a writer in the middle
// of the line, or one killed there); a complete line that is not a JSON object is skipped and
// counted; a file that became shorter than what was read (written anew) is read again from its
// start. At most kMostPerPoll bytes are taken per poll, so that a huge file is read in steps.
class JsonLinesFollower {
public:
    static constexpr std::uintmax_t kMostPerPoll = std::uintmax_t(32) << 20;

    explicit JsonLinesFollower(std::filesystem::path file);

    struct News {
        std::vector<nlohmann::json> lines;
        bool restarted = false; // the file was written anew: forget what came before
    };
    News poll();

    const std::filesystem::path& file() const { return m_file; }
    int skippedLines() const { return m_skipped; }
    // What was wrong with the last line skipped, for the user.
    const std::string& lastProblem() const { return m_lastProblem; }

private:
    std::filesystem::path m_file;
    std::uintmax_t m_offset = 0;
    int m_skipped = 0;
    std::string m_lastProblem;
};

// What the run folder of `dice train rl` says: its configuration, its state, each step's metrics,
// the held-out evaluations, the steps whose rollouts were kept, and the checkpoints. poll() reads
// what changed; nothing it finds (a half-written line, a file not there yet, a line that is not
// JSON) stops it.
class RlRunFollower {
public:
    explicit RlRunFollower(std::filesystem::path folder);

    // True when anything changed since the last poll.
    bool poll();

    const std::filesystem::path& folder() const { return m_folder; }
    const nlohmann::json& config() const { return m_config; }
    const nlohmann::json& status() const { return m_status; }
    const std::vector<nlohmann::json>& metrics() const { return m_metrics; }
    const std::vector<nlohmann::json>& evaluations() const { return m_evaluations; }
    const std::vector<std::int64_t>& rolloutSteps() const { return m_rolloutSteps; }
    const std::vector<Checkpoint>& checkpoints() const { return m_checkpoints; }
    // One line per file with lines that could not be read: how many and why.
    std::vector<std::string> problems() const;

private:
    std::filesystem::path m_folder;
    JsonLinesFollower m_metricsFile;
    JsonLinesFollower m_evaluationsFile;
    nlohmann::json m_config;
    nlohmann::json m_status;
    std::string m_statusText;
    std::vector<nlohmann::json> m_metrics;
    std::vector<nlohmann::json> m_evaluations;
    std::vector<std::int64_t> m_rolloutSteps;
    std::vector<Checkpoint> m_checkpoints;
};

// The rollouts of one step (folder/rollouts/STEP.jsonl), in the order the trainer wrote them;
// lines that cannot be read are left out. Empty when the step kept none.
std::vector<nlohmann::json> readRollouts(const std::filesystem::path& folder, std::int64_t step);

// A rollout's denoising as the trace the live view replays, from its tokens and the step that
// committed each (`commit_step`), with blocks of `blockLength` cells aligned as at sampling (after
// `prompt_tokens` prompt tokens; at the answer's start when the rollout does not say). Every step
// index up to the last is a step, also one that committed no answer token. Confidences are not
// kept in a run folder: they are 0. Throws Error when the rollout's trace is malformed.
DecodeTrace rolloutTrace(const nlohmann::json& rollout, std::int64_t blockLength);

} // namespace dice
