// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/file_util.h"
#include "core/selftest/selftest.h"
#include "core/system/result_file.h"

#include <iomanip>
#include <iostream>

namespace dice::cli {

int commandSelftest(const Invocation& in) {
    const Arguments args(in.args, {"json", "cpu-only", "help", "list"},
                         {"output", "filter", "skip"});
    if (!args.ok()) {
        std::cerr << "dice selftest: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout << "usage: dice selftest [--cpu-only] [--filter TEXT] [--skip TEXT] [--json]\n"
                     "                     [--output FILE] [--list]\n\n"
                     "Runs real checks of the machine and the build and reports each as passed,\n"
                     "failed or skipped (with the reason). Exits 1 when a check fails.\n"
                     "--output writes a result file (JSON with the command, GPU, driver, CUDA and\n"
                     "LibTorch versions). --filter runs only the checks whose name contains\n"
                     "TEXT, --skip leaves out those whose name does.\n";
        return 0;
    }
    if (args.flag("list")) {
        for (const auto& check : selfTestChecks())
            std::cout << std::left << std::setw(34) << check.name << check.description << "\n";
        return 0;
    }
    SelfTestOptions options;
    options.includeGpu = !args.flag("cpu-only");
    options.filter = args.value("filter");
    options.skip = args.value("skip");
    const bool json = args.flag("json");
    const auto results = runSelfTest(options, [&](const CheckResult& r) {
        if (json)
            return;
        std::cout << std::left << std::setw(9) << ("[" + toString(r.status) + "]") << " "
                  << std::setw(24) << r.name << " " << r.message << std::endl;
    });
    const bool passed = selfTestPassed(results);
    nlohmann::json report = resultFileHeader("selftest", in.argv);
    report["checks"] = nlohmann::json::array();
    int counts[3] = {0, 0, 0};
    for (const auto& r : results) {
        report["checks"].push_back(toJson(r));
        ++counts[static_cast<int>(r.status)];
    }
    report["passed"] = passed;
    report["summary"] = {{"passed", counts[0]}, {"failed", counts[1]}, {"skipped", counts[2]}};
    if (args.has("output"))
        writeFileAtomically(args.value("output"), report.dump(2) + "\n");
    if (json)
        std::cout << report.dump(2) << "\n";
    else
        std::cout << counts[0] << " passed, " << counts[1] << " failed, " << counts[2]
                  << " skipped\n";
    return passed ? 0 : 1;
}

} // namespace dice::cli
