// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the readers of nvdisasm's and cuobjdump's listings and of PTX line tables:
// every input must be read or rejected with dice::Error, never crash, hang or read out of bounds.
// tests/fixtures/kernel-listings holds real listings to start from.
#include "core/common/error.h"
#include "core/cuda/ptx_line_map.h"
#include "core/cuda/sass_listing.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (const auto parse : {dice::parseNvdisasmListing, dice::parseCuobjdumpListing}) {
        try {
            const dice::SassListing listing = parse(text);
            const auto rendered = dice::SassText::render(listing, "kern.cu", text);
            for (int line = 0; line <= rendered.lineCount(); ++line)
                rendered.instructionLines(rendered.sourceLine(line));
            dice::toJson(listing).dump();
        } catch (const dice::Error&) {
        }
    }
    const auto map = dice::PtxLineMap::build(text, "kern.cu");
    map.coveredSourceLines();
    return 0;
}
