// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/commands.h"

#include <cstring>
#include <functional>
#include <iostream>

namespace dice::cli {

namespace {

struct Benchmark {
    const char* name;
    const char* summary;
    std::function<int(const Invocation&)> run;
};

const std::vector<Benchmark>& benchmarks() {
    static const std::vector<Benchmark> list = {
        {"tokenizer", "our encoder against the JavaScript reference, MB/s (--output FILE)",
         benchTokenizer},
        {"model", "the network's passes and generation, against transformers (--help)", benchModel},
        {"kernelbench", "the paper's KernelBench table with a model (--help)", benchKernelBench},
        {"reward", "the reward service on 1,024 candidates of an RL step (--help)", benchReward},
        {"rl", "one RL step's sampling, reward and update at a model shape (--help)", benchRl},
        {"rollout", "RL's sampling workload, fixed batches against continuous (--help)",
         benchRollout},
        {"counters", "hardware counters of built-in solutions with Nsight Compute (--help)",
         benchCounters},
    };
    return list;
}

void usage(std::ostream& out) {
    out << "usage: dice bench BENCHMARK [options]\n\nbenchmarks:\n";
    for (const auto& b : benchmarks())
        out << "  " << b.name << std::string(12 - std::strlen(b.name), ' ') << b.summary << "\n";
}

} // namespace

int commandBench(const Invocation& in) {
    if (in.args.empty() || in.args.front() == "--help" || in.args.front() == "help") {
        usage(in.args.empty() ? std::cerr : std::cout);
        return in.args.empty() ? 2 : 0;
    }
    for (const auto& b : benchmarks())
        if (in.args.front() == b.name)
            return b.run(in);
    std::cerr << "dice bench: unknown benchmark '" << in.args.front() << "'\n\n";
    usage(std::cerr);
    return 2;
}

} // namespace dice::cli
