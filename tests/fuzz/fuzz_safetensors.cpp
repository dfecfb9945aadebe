// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the safetensors header parser: every input must be accepted or rejected
// with dice::Error, never crash, hang or read out of bounds.
#include "core/common/error.h"
#include "core/model/safetensors.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    // The input as a whole file.
    try {
        dice::parseSafetensorsHeader(data, size, size, "fuzz.safetensors");
    } catch (const dice::Error&) {
    }
    // The input as the JSON header of a file with a valid length prefix, followed by a data
    // buffer whose size the first byte chooses: random bytes rarely form a valid length, and
    // this reaches the validation of the entries.
    if (size == 0)
        return 0;
    const std::size_t dataBytes = data[0];
    const std::size_t headerBytes = size - 1;
    std::vector<std::uint8_t> file(8 + headerBytes + dataBytes, 0);
    for (int i = 0; i < 8; ++i)
        file[static_cast<std::size_t>(i)] =
            static_cast<std::uint8_t>((static_cast<std::uint64_t>(headerBytes) >> (8 * i)) & 0xff);
    if (headerBytes > 0)
        std::memcpy(file.data() + 8, data + 1, headerBytes);
    try {
        const auto header =
            dice::parseSafetensorsHeader(file.data(), file.size(), file.size(), "fuzz.safetensors");
        // An accepted header must describe the buffer exactly.
        std::uint64_t total = 0;
        for (const auto& t : header.tensors)
            total += t.bytes();
        if (total != header.dataBytes || header.dataOffset() + header.dataBytes != file.size())
            __builtin_trap();
    } catch (const dice::Error&) {
    }
    return 0;
}
