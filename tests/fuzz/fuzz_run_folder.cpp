// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for a run folder copied back from somewhere else: the input is a
// metrics.jsonl, taken in two pieces as a trainer that is still writing leaves it. Whatever it
// holds, the follower must not crash, and must return every complete line that is a JSON object
// exactly once, whatever the split; and a resumed run's cut of it leaves no later step.
#include "core/common/error.h"
#include "core/train/run_folder.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

const std::filesystem::path& folder() {
    static const std::filesystem::path path = [] {
        const std::filesystem::path p = std::filesystem::temp_directory_path() /
                                        ("dice-fuzz-run-folder-" + std::to_string(::getpid()));
        std::filesystem::create_directories(p / "rollouts");
        return p;
    }();
    return path;
}

void write(const std::filesystem::path& file, const std::string& text, bool append) {
    std::ofstream out(file, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
    out << text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const std::size_t split = size == 0 ? 0 : data[0] % (size + 1);
    const std::filesystem::path metrics = folder() / "metrics.jsonl";
    std::filesystem::remove(metrics);

    dice::JsonLinesFollower whole(metrics);
    write(metrics, input + "\n", false);
    const std::size_t expected = whole.poll().lines.size();

    std::filesystem::remove(metrics);
    dice::JsonLinesFollower pieces(metrics);
    write(metrics, input.substr(0, split), false);
    std::size_t got = pieces.poll().lines.size();
    write(metrics, input.substr(split) + "\n", true);
    got += pieces.poll().lines.size();
    if (got != expected) {
        std::fprintf(stderr, "%zu lines read whole, %zu in two pieces\n", expected, got);
        std::abort();
    }

    // Resuming at a step: what is left names no later step, and a second pass drops nothing.
    const std::int64_t cut = size == 0 ? 0 : data[size - 1] % 8;
    write(metrics, input, false);
    dice::dropLinesAfterStep(metrics, cut);
    dice::JsonLinesFollower kept(metrics);
    for (const auto& line : kept.poll().lines) {
        const auto step = line.find("step");
        if (step != line.end() && step->is_number_integer() && step->get<std::int64_t>() > cut) {
            std::fprintf(stderr, "a line of step %lld is left past step %lld\n",
                         static_cast<long long>(step->get<std::int64_t>()),
                         static_cast<long long>(cut));
            std::abort();
        }
    }
    if (dice::dropLinesAfterStep(metrics, cut) != 0) {
        std::fprintf(stderr, "a second pass at step %lld dropped lines\n",
                     static_cast<long long>(cut));
        std::abort();
    }

    write(folder() / "rollouts" / "1.jsonl", input, false);
    write(folder() / "status.json", input, false);
    dice::RlRunFollower run(folder());
    run.poll();
    // A rollout's trace is replayed from what the file says: it is either a trace or an Error.
    for (const auto& rollout : dice::readRollouts(folder(), 1)) {
        try {
            const dice::DecodeTrace trace = dice::rolloutTrace(rollout, 1 + data[0] % 8);
            trace.cellsAfter(trace.stepCount());
        } catch (const dice::Error&) {
        }
    }
    return 0;
}
