// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for an RL configuration (dice train rl --config, the Fine-tune area's pasted
// configuration): every input is a configuration or a dice::Error. One that is accepted must read
// back to itself through the JSON a run folder keeps (config.json), which a resumed run reads.
#include "core/common/error.h"
#include "core/train/rl_config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const nlohmann::json json = nlohmann::json::parse(input, nullptr, false);
    if (json.is_discarded() || !json.is_object())
        return 0;
    nlohmann::json written;
    try {
        written = dice::toJson(dice::rlConfigFromJson(json));
    } catch (const dice::Error&) {
        return 0;
    }
    try {
        const nlohmann::json again = dice::toJson(dice::rlConfigFromJson(written));
        if (again != written) {
            std::fprintf(stderr,
                         "a configuration changed on its way through config.json:\n%s\n%s\n",
                         written.dump().c_str(), again.dump().c_str());
            std::abort();
        }
    } catch (const dice::Error& e) {
        std::fprintf(stderr, "an accepted configuration does not read back: %s\n", e.what());
        std::abort();
    }
    return 0;
}
