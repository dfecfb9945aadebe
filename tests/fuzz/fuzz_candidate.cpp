// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for native candidates (.dice, docs/native-dialect.md): the section split, the
// kernel signatures, the name expressions that launch them and the scans over the device part.
// Every input is accepted or rejected with dice::Error; the blanking of comments and strings must
// keep every line where it was.
#include "core/common/error.h"
#include "core/eval/candidate.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

[[noreturn]] void failure(const char* what) {
    std::fprintf(stderr, "%s\n", what);
    std::abort();
}

void checkBlanking(const std::string& code) {
    const std::string blank = dice::blankCommentsAndStrings(code);
    if (blank.size() != code.size())
        failure("blanking changed the length of the code");
    for (std::size_t i = 0; i < code.size(); ++i)
        if ((code[i] == '\n') != (blank[i] == '\n'))
            failure("blanking moved a line break");
}

void resolve(const std::vector<dice::KernelSignature>& kernels, const std::string& name) {
    try {
        const dice::ResolvedKernel r = dice::resolveKernel(kernels, name);
        if (!r.signature)
            failure("a resolved kernel has no signature");
    } catch (const dice::Error&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    checkBlanking(input);
    dice::NativeCandidate candidate;
    try {
        candidate = dice::parseNativeCandidate(input, "fuzz.dice");
    } catch (const dice::Error&) {
        return 0;
    }
    checkBlanking(candidate.device);
    candidate.deviceForCompiler();
    dice::scanReducedPrecision(candidate);
    std::vector<dice::KernelSignature> kernels;
    try {
        kernels = dice::parseKernelSignatures(candidate);
    } catch (const dice::Error&) {
        return 0;
    }
    for (const auto& k : kernels) {
        resolve(kernels, k.name);
        // The name expressions a host part writes for templates: the parameters' own names and
        // concrete arguments, right or wrong in number and kind.
        std::string own = k.name + "<";
        for (std::size_t i = 0; i < k.templateParams.size(); ++i)
            own += (i ? ", " : "") + k.templateParams[i];
        resolve(kernels, own + ">");
        resolve(kernels, k.name + "<float, 4>");
        resolve(kernels, k.name + "<256>");
        resolve(kernels, k.name + "<>");
    }
    return 0;
}
