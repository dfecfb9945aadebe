// SPDX-License-Identifier: GPL-3.0-or-later
// dice compile: what the Profile area shows of a kernel, on the command line: NVRTC's diagnostics,
// each kernel's resources, the PTX, and the SASS beside the source lines it came from.
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/cuda/compiler_options.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/sass_disassembler.h"
#include "core/eval/candidate.h"
#include "core/eval/candidate_compile.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <optional>

namespace dice::cli {

namespace {

const char* const kUsage =
    "usage: dice compile FILE [options]\n\n"
    "Compiles a kernel with NVRTC as the Profile area does: plain CUDA C++, or the device part of\n"
    "a native candidate (a file with #pragma dice device) with the template kernels its host part\n"
    "launches, and the host part's diagnostics. Prints the diagnostics and each kernel's\n"
    "registers, shared memory and spills.\n\n"
    "options:\n"
    "  --arch ARCH          target architecture (default: the GPU's, else sm_90)\n"
    "  --name NAME          the file name to compile under, which diagnostics and line tables\n"
    "                       name (default FILE as given; NVRTC puts its working folder in front)\n"
    "  --ptx                print the PTX\n"
    "  --sass               print the SASS (nvdisasm, else cuobjdump), every run of\n"
    "                       instructions under the source line it came from\n"
    "  --no-line-info       compile without -lineinfo (PTX and SASS then name no source lines)\n"
    "  --options \"...\"      more NVRTC options, from an allow-list: --use_fast_math,\n"
    "                       -maxrregcount=N, -DNAME[=VALUE], -UNAME, --ftz=, --prec-div=,\n"
    "                       --prec-sqrt=, --fmad= (true or false), --restrict, -G,\n"
    "                       --extra-device-vectorization\n"
    "  --write-ptx FILE     write the PTX to FILE\n"
    "  --write-cubin FILE   write the cubin to FILE\n"
    "  --json               print JSON: diagnostics, resources, and the PTX or the parsed SASS\n"
    "                       when asked for\n\n"
    "Exit status: 0 when the kernel compiles (and, with --sass, disassembles), 1 otherwise,\n"
    "2 for a usage error.\n";

nlohmann::json resultJson(const std::string& file, const CompileResult& r) {
    nlohmann::json j;
    j["file"] = file;
    j["architecture"] = r.architecture;
    j["ok"] = r.ok;
    j["nvrtc"] = NvrtcCompiler::version();
    j["milliseconds"] = r.milliseconds;
    j["diagnostics"] = nlohmann::json::array();
    for (const auto& d : r.diagnostics)
        j["diagnostics"].push_back({{"file", d.file},
                                    {"line", d.line},
                                    {"column", d.column},
                                    {"severity", toString(d.severity)},
                                    {"code", d.code},
                                    {"message", d.message}});
    j["resources"] = nlohmann::json::array();
    for (const auto& u : r.resources)
        j["resources"].push_back({{"function", u.function},
                                  {"registers", u.registers},
                                  {"barriers", u.barriers},
                                  {"shared_bytes", u.sharedBytes},
                                  {"constant_bytes", u.constantBytes},
                                  {"stack_frame_bytes", u.stackFrameBytes},
                                  {"spill_store_bytes", u.spillStoreBytes},
                                  {"spill_load_bytes", u.spillLoadBytes}});
    return j;
}

void printResult(const std::string& file, const CompileResult& r, std::ostream& out) {
    for (const auto& d : r.diagnostics)
        out << d.file << ":" << d.line << (d.column ? ":" + std::to_string(d.column) : "") << ": "
            << toString(d.severity) << ": " << d.message << "\n";
    if (!r.ok) {
        out << file << ": compilation for " << r.architecture << " failed\n";
        return;
    }
    out << file << ": compiled for " << r.architecture << " in " << std::fixed
        << std::setprecision(1) << r.milliseconds << " ms\n";
    for (const auto& u : r.resources)
        out << "  " << u.function << ": " << u.registers << " registers, " << u.sharedBytes
            << " B shared, " << u.stackFrameBytes << " B stack, " << u.spillStoreBytes
            << " B spilled\n";
}

} // namespace

int commandCompile(const Invocation& in) {
    const Arguments args(in.args, {"help", "json", "ptx", "sass", "no-line-info"},
                         {"arch", "name", "write-ptx", "write-cubin", "options"});
    if (!args.ok()) {
        std::cerr << "dice compile: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout << kUsage;
        return 0;
    }
    if (args.positionals().size() != 1) {
        std::cerr << kUsage;
        return 2;
    }
    if (!NvrtcCompiler::available())
        throw Error("this build has no NVRTC (the CUDA toolkit was not found when it was "
                    "configured)");
    const std::string file = args.value("name", args.positionals().front());
    if (file.empty()) {
        std::cerr << "dice compile: --name needs a file name\n";
        return 2;
    }
    const std::string text = readCandidateFile(args.positionals().front());
    CompileOptions options;
    options.architecture = args.value("arch");
    options.lineInfo = !args.flag("no-line-info");
    applyCompilerOptions(options, args.value("options"));
    NvrtcCompiler compiler(0);
    // A native candidate's device part keeps the file's line numbers through its #line.
    const CompileResult result =
        text.find("#pragma dice device") != std::string::npos
            ? compileNativeCandidate(compiler, parseNativeCandidate(text, file), file, options)
            : compiler.compile(text, file, options);
    if (result.ok && args.has("write-ptx"))
        writeFileAtomically(args.value("write-ptx"), result.ptx);
    if (result.ok && args.has("write-cubin"))
        writeFileAtomically(args.value("write-cubin"), result.cubin);

    std::optional<SassDisassembly> sass;
    if (result.ok && args.flag("sass"))
        sass = disassembleCubin(result.cubin);
    const bool ok = result.ok && (!sass || sass->ok());
    if (args.flag("json")) {
        nlohmann::json j = resultJson(file, result);
        if (args.flag("ptx") && result.ok)
            j["ptx"] = result.ptx;
        if (sass) {
            j["sass"] = {{"tool", sass->tool}, {"error", sass->error}};
            if (sass->ok())
                j["sass"]["listing"] = toJson(sass->listing);
        }
        // NVRTC's messages quote the source, which need not be UTF-8.
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return ok ? 0 : 1;
    }
    printResult(file, result, std::cout);
    if (args.flag("ptx") && result.ok)
        std::cout << "\n"
                  << result.ptx << (result.ptx.empty() || result.ptx.back() == '\n' ? "" : "\n");
    if (sass) {
        if (!sass->ok()) {
            std::cerr << "dice compile: no SASS: " << sass->error << "\n";
        } else {
            std::cout << "\n// SASS from " << sass->tool << "\n"
                      << SassText::render(sass->listing, file, text).text();
        }
    }
    return ok ? 0 : 1;
}

} // namespace dice::cli
