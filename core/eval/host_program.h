// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/common/error.h"
#include "core/cuda/compile_types.h"
#include "core/eval/candidate.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// The host part of a native candidate: a TorchScript function compiled at run time, with the
// launch operator `dice.launch`. No LibTorch header here: LibTorch types are only named.
namespace at {
class Tensor;
}
namespace torch::jit {
struct Function;
struct Graph;
} // namespace torch::jit

namespace dice {

// The host code did not compile; the diagnostic names the file line.
class HostCompileError : public Error {
public:
    explicit HostCompileError(Diagnostic diagnostic)
        : Error(diagnostic.file + ":" + std::to_string(diagnostic.line) + ": " + diagnostic.message)
        , m_diagnostic(std::move(diagnostic)) {}
    const Diagnostic& diagnostic() const { return m_diagnostic; }

private:
    Diagnostic m_diagnostic;
};

struct HostOperatorUse {
    std::string op; // "aten::matmul"
    int line = 0;   // line of the file, 0 when unknown
};

// What the compiled graph shows. Host code is denied by default: an operator outside the
// dialect's lists makes the candidate invalid, and its graph is never run.
struct HostAnalysis {
    std::vector<std::string> operators;     // every distinct operator, sorted
    std::vector<HostOperatorUse> fallbacks; // outside the dialect, on tensors (torch.relu, ...)
    std::vector<HostOperatorUse> refused;   // outside the dialect, on no tensor (torch.save(1, ..))
    std::vector<HostOperatorUse> launches;  // op = the kernel name given to dice.launch
    std::vector<HostOperatorUse> violations; // breaches of the dialect: what, and the line
    int arity = 0;                           // parameters of forward
};

// One argument of dice.launch after conversion to the kernel's parameter type.
struct LaunchArgument {
    ParamKind kind = ParamKind::Pointer;
    std::uint64_t bits = 0; // the value as the kernel reads it, or the device address
    std::int64_t bytes = 0; // tensors: bytes from the address to the end of the tensor's storage
};

struct LaunchCall {
    std::string kernel;
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    unsigned sharedBytes = 0;
    std::vector<LaunchArgument> args;
};

// Where dice.launch sends its launches: the evaluator's stream on the GPU, or a recorder in tests.
// Set for a thread with LauncherScope.
class KernelLauncher {
public:
    virtual ~KernelLauncher() = default;
    // The parameters of a kernel named as the host code names it; throws Error if unknown.
    virtual const std::vector<KernelParam>& parameters(const std::string& kernel) = 0;
    // Where the tensors it binds may live: a launcher that runs kernels takes GPU tensors only;
    // the evaluator's dry run records launches on meta tensors, tests on any.
    enum class TensorHome { Gpu, GpuOrMeta, Anywhere };
    virtual TensorHome accepts() const { return TensorHome::Gpu; }
    virtual void launch(const LaunchCall& call) = 0;
};

// Gives every tensor the host code allocates a fresh home between guard bands, poisoned when it
// was allocated uninitialised (torch.empty and friends). Used for correctness trials only.
class AllocationGuard {
public:
    virtual ~AllocationGuard() = default;
    virtual at::Tensor guard(const at::Tensor& allocated, bool poison) = 0;
};

class LauncherScope {
public:
    explicit LauncherScope(KernelLauncher* launcher, AllocationGuard* guard = nullptr);
    ~LauncherScope();
    LauncherScope(const LauncherScope&) = delete;
    LauncherScope& operator=(const LauncherScope&) = delete;

private:
    KernelLauncher* m_previousLauncher;
    AllocationGuard* m_previousGuard;
};

class HostProgram {
public:
    // Compiles the host part; throws HostCompileError with the file line of the problem.
    static HostProgram compile(const NativeCandidate& candidate);

    const HostAnalysis& analysis() const;
    // The compiled entry point, and the same with every allocation routed through the
    // AllocationGuard of the current LauncherScope.
    torch::jit::Function& forward() const;
    torch::jit::Function& guardedForward() const;

private:
    struct Impl;
    std::shared_ptr<Impl> m_impl;
};

// Compiles a task's reference (TorchScript defining `reference`); throws FileError naming the
// task file and line.
class ReferenceProgram {
public:
    static ReferenceProgram compile(const std::string& source, const std::string& origin);
    torch::jit::Function& function() const;

private:
    struct Impl;
    std::shared_ptr<Impl> m_impl;
};

// What the editor marks in a candidate's host part before it is evaluated: a host part that does
// not compile (one error at its line), and the operators the evaluator will refuse (each an error
// at its line: outside the dialect, or a breach of it). The evaluator decides the verdict; these
// only say where, as the compiler's diagnostics do for the device part. `launched`, when given,
// receives the kernel names the host part launches, in the order of their launches.
std::vector<Diagnostic> hostPartDiagnostics(const NativeCandidate& candidate,
                                            const std::string& file,
                                            std::vector<std::string>* launched = nullptr);

// The useful line of an error thrown while host code ran (TorchScript wraps the error of an
// operator, a refused launch, in its own traceback), cut to at most 240 printable ASCII
// characters: the text of an assert or a raise is the candidate's own.
std::string hostErrorMessage(const std::string& what);

} // namespace dice
