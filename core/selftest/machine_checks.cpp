// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/common/error.h"
#include "core/common/number_format.h"
#include "core/common/statistics.h"
#include "core/common/text_tail.h"
#include "core/cuda/cuda_context.h"
#include "core/cuda/cupti_tracer.h"
#include "core/cuda/device_info.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/torch_cuda_bridge.h"
#include "core/selftest/machine_checks.h"
#include "core/system/libtorch_info.h"

#include <algorithm>
#include <cmath>

namespace dice {

namespace {

const char* const kSaxpySource = R"(// Self-test kernel: out = a * x + y over n elements.
extern "C" __global__ void dice_selftest_saxpy(float a, const float* __restrict__ x,
                                               const float* __restrict__ y,
                                               float* __restrict__ out, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (; i < n; i += stride)
        out[i] = a * x[i] + y[i];
}
)";

const char* const kBrokenSource = R"(extern "C" __global__ void broken(float* out)
{
    int i = threadIdx.x;
    out[i] = undefined_value * 2.0f;
}
)";

NvrtcCompiler& compiler() {
    static NvrtcCompiler instance;
    return instance;
}

std::string format(double value, int digits = 3) {
    return formatFixed(value, digits);
}

void checkLibTorchCpu(CheckResult& result) {
    torch::manual_seed(7);
    const auto a = torch::randn({64, 48}, torch::kFloat64);
    const auto b = torch::randn({48, 32}, torch::kFloat64);
    const auto product = torch::matmul(a, b);
    auto pa = a.accessor<double, 2>();
    auto pb = b.accessor<double, 2>();
    auto pc = product.accessor<double, 2>();
    double worst = 0;
    for (int i = 0; i < 64; ++i)
        for (int j = 0; j < 32; ++j) {
            double sum = 0;
            for (int k = 0; k < 48; ++k)
                sum += pa[i][k] * pb[k][j];
            worst = std::max(worst, std::abs(sum - pc[i][j]));
        }
    if (worst > 1e-10)
        throw Error("matmul differs from a plain loop by " + std::to_string(worst));
    const auto logits = torch::randn({16, 1000});
    const auto rows = torch::softmax(logits, 1).sum(1);
    const double softmaxError = (rows - 1).abs().max().item<double>();
    if (softmaxError > 1e-5)
        throw Error("softmax rows sum to 1 within " + std::to_string(softmaxError) + " only");
    const auto half = torch::randn({256}).to(torch::kBFloat16).to(torch::kFloat32);
    if (!torch::isfinite(half).all().item<bool>())
        throw Error("bfloat16 round trip produced non-finite values");
    result.data["libtorch"] = libtorchVersion();
    result.data["threads"] = libtorchThreads();
    result.data["matmul_max_abs_error"] = worst;
    result.data["softmax_row_error"] = softmaxError;
    result.message = "LibTorch " + libtorchVersion() +
                     ": matmul, softmax and bfloat16 agree with "
                     "plain arithmetic";
}

void checkNvrtcCompile(CheckResult& result) {
    if (!NvrtcCompiler::available())
        throw SkipCheck{"this build has no NVRTC"};
    CompileOptions options;
    options.architecture = NvrtcCompiler::defaultArchitecture();
    const auto compiled = compiler().compile(kSaxpySource, "selftest_saxpy.cu", options);
    if (!compiled.ok)
        throw Error("NVRTC failed to compile the sample kernel: " + compiled.log);
    if (compiled.ptx.find(".entry dice_selftest_saxpy") == std::string::npos)
        throw Error("the PTX has no entry dice_selftest_saxpy");
    if (compiled.cubin.size() < 4 || compiled.cubin.compare(0, 4,
                                                            "\x7f"
                                                            "ELF") != 0)
        throw Error("the cubin is not an ELF image");
    if (compiled.resources.empty() || compiled.resources.front().registers <= 0)
        throw Error("ptxas reported no register usage; NVRTC's log: " +
                    (compiled.log.empty() ? std::string("(empty)") : textTail(compiled.log, 600)));
    result.data["architecture"] = compiled.architecture;
    result.data["nvrtc"] = NvrtcCompiler::version();
    result.data["compile_ms"] = compiled.milliseconds;
    result.data["ptx_bytes"] = compiled.ptx.size();
    result.data["cubin_bytes"] = compiled.cubin.size();
    result.data["registers"] = compiled.resources.front().registers;
    result.message = "NVRTC " + NvrtcCompiler::version() + " compiled the sample kernel for " +
                     compiled.architecture + " in " + format(compiled.milliseconds, 1) + " ms (" +
                     std::to_string(compiled.resources.front().registers) + " registers)";
}

void checkNvrtcDiagnostics(CheckResult& result) {
    if (!NvrtcCompiler::available())
        throw SkipCheck{"this build has no NVRTC"};
    const auto compiled = compiler().compile(kBrokenSource, "broken.cu");
    if (compiled.ok)
        throw Error("a kernel with an undefined identifier compiled");
    if (compiled.diagnostics.empty())
        throw Error("no diagnostics parsed from: " + compiled.log);
    const auto& d = compiled.diagnostics.front();
    if (d.file != "broken.cu" || d.line != 4 || d.column != 14 || d.severity != Severity::Error ||
        d.message.find("undefined_value") == std::string::npos)
        throw Error("unexpected diagnostic " + d.file + ":" + std::to_string(d.line) + ":" +
                    std::to_string(d.column) + " " + d.message);
    result.message = "broken.cu:4:14: " + d.message;
}

void requireGpu() {
    const auto& driver = cu::Driver::instance();
    if (!driver.available())
        throw SkipCheck{driver.unavailableReason()};
    if (!NvrtcCompiler::available())
        throw SkipCheck{"this build has no NVRTC, so there is no kernel to launch"};
}

void checkDriver(CheckResult& result) {
    const auto& driver = cu::Driver::instance();
    if (!driver.available())
        throw SkipCheck{driver.unavailableReason()};
    const auto devices = queryDevices();
    if (devices.empty())
        throw Error("the driver loaded but reports no device");
    CudaContext context(0);
    size_t freeBytes = 0, totalBytes = 0;
    cu::check(driver.api().cuMemGetInfo(&freeBytes, &totalBytes), "cuMemGetInfo");
    result.data["driver"] = cu::formatCudaVersion(driver.version());
    result.data["devices"] = devices.size();
    result.data["device"] = devices.front().name;
    result.data["architecture"] = devices.front().architecture();
    result.data["free_bytes"] = freeBytes;
    result.message = "driver " + cu::formatCudaVersion(driver.version()) + ", " +
                     std::to_string(devices.size()) + " GPU(s): " + devices.front().name + " (" +
                     devices.front().architecture() + ")";
}

// The sample kernel loaded on GPU 0, with LibTorch tensors when LibTorch has CUDA.
struct SaxpyRig {
    CudaContext context{0};
    CompileResult compiled;
    std::unique_ptr<CudaModule> module;
    cu::Function function = nullptr;
    CudaStream stream;

    SaxpyRig() {
        CompileOptions options;
        options.architecture = queryDevices().front().architecture();
        compiled = compiler().compile(kSaxpySource, "selftest_saxpy.cu", options);
        if (!compiled.ok)
            throw Error("NVRTC failed: " + compiled.log);
        module = std::make_unique<CudaModule>(compiled.cubin);
        function = module->function("dice_selftest_saxpy");
    }

    void launch(float a, cu::DevicePtr x, cu::DevicePtr y, cu::DevicePtr out, long long n) {
        std::vector<void*> params = {&a, &x, &y, &out, &n};
        const unsigned block[3] = {256, 1, 1};
        const long long blocks = std::min<long long>((n + 255) / 256, 132LL * 32);
        const unsigned grid[3] = {static_cast<unsigned>(blocks), 1, 1};
        launchKernel(function, grid, block, 0, stream.handle(), params);
    }
};

cu::DevicePtr devicePointer(const torch::Tensor& t) {
    return reinterpret_cast<cu::DevicePtr>(t.data_ptr());
}

void checkLaunch(CheckResult& result) {
    requireGpu();
    SaxpyRig rig;
    const long long n = (1 << 20) + 3;
    torch::manual_seed(11);
    const float a = 1.75f;
    if (torchcuda::builtWithCuda() && torchcuda::available()) {
        torchcuda::StreamScope scope(rig.stream.handle(), 0);
        const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(torch::kCUDA, 0);
        const auto x = torch::randn({n}, options);
        const auto y = torch::randn({n}, options);
        auto out = torch::full({n}, std::nanf(""), options);
        rig.launch(a, devicePointer(x), devicePointer(y), devicePointer(out), n);
        const auto expected = a * x + y;
        rig.stream.synchronize();
        const double error = (out - expected).abs().max().item<double>();
        // Contraction into a fused multiply-add may differ from LibTorch's rounding by an ulp.
        if (!(error <= 1e-5))
            throw Error("kernel output differs from LibTorch by " + std::to_string(error));
        result.data["max_abs_error"] = error;
        result.data["tensors"] = "libtorch-cuda";
        result.message =
            "launched the NVRTC kernel on LibTorch CUDA tensors; max |error| " + format(error, 7);
    } else {
        const auto x = torch::randn({n});
        const auto y = torch::randn({n});
        const size_t bytes = static_cast<size_t>(n) * sizeof(float);
        DeviceBuffer dx(bytes), dy(bytes), dout(bytes);
        dx.upload(x.data_ptr(), bytes);
        dy.upload(y.data_ptr(), bytes);
        rig.launch(a, dx.pointer(), dy.pointer(), dout.pointer(), n);
        rig.stream.synchronize();
        auto out = torch::empty({n});
        dout.download(out.data_ptr(), bytes);
        const double error = (out - (a * x + y)).abs().max().item<double>();
        if (!(error <= 1e-5))
            throw Error("kernel output differs from LibTorch (CPU) by " + std::to_string(error));
        result.data["max_abs_error"] = error;
        result.data["tensors"] = "driver-buffers";
        result.message = "LibTorch has no CUDA here: launched on driver buffers and compared with "
                         "LibTorch on the CPU; max |error| " +
                         std::to_string(error);
    }
}

struct TimingResult {
    std::vector<double> eventMs;
    std::vector<KernelRecord> records;
    std::string cuptiError;
    long long n = 0;
};

TimingResult timeSaxpy(bool withCupti) {
    SaxpyRig rig;
    TimingResult timing;
    timing.n = 1LL << 26;
    const size_t bytes = static_cast<size_t>(timing.n) * sizeof(float);
    DeviceBuffer x(bytes), y(bytes), out(bytes);
    cu::check(cu::Driver::instance().api().cuMemsetD8(x.pointer(), 0x3f, bytes), "cuMemsetD8");
    cu::check(cu::Driver::instance().api().cuMemsetD8(y.pointer(), 0x3f, bytes), "cuMemsetD8");
    for (int i = 0; i < 3; ++i)
        rig.launch(2.0f, x.pointer(), y.pointer(), out.pointer(), timing.n);
    rig.stream.synchronize();
    CuptiTracer tracer;
    if (withCupti && !tracer.start(&timing.cuptiError))
        withCupti = false;
    EventTimer timer;
    for (int i = 0; i < 20; ++i) {
        timer.start(rig.stream.handle());
        rig.launch(2.0f, x.pointer(), y.pointer(), out.pointer(), timing.n);
        timer.stop(rig.stream.handle());
        timing.eventMs.push_back(timer.milliseconds());
    }
    rig.stream.synchronize();
    if (withCupti) {
        for (auto& r : tracer.stop())
            if (r.name == "dice_selftest_saxpy")
                timing.records.push_back(r);
    }
    return timing;
}

void checkEvents(CheckResult& result) {
    requireGpu();
    const auto timing = timeSaxpy(false);
    const double ms = median(timing.eventMs);
    if (!(ms > 0))
        throw Error("CUDA events measured no time");
    const double bandwidth = 12.0 * static_cast<double>(timing.n) / (ms * 1e-3);
    const double peak = queryDevices().front().peakBandwidth();
    result.data["median_ms"] = ms;
    result.data["bandwidth_bytes_per_s"] = bandwidth;
    result.data["peak_bandwidth_bytes_per_s"] = peak;
    if (bandwidth > peak * 1.05)
        throw Error("measured bandwidth " + format(bandwidth / 1e9, 0) +
                    " GB/s is above the device's peak of " + format(peak / 1e9, 0) + " GB/s");
    result.message = "saxpy over 2^26 floats: median " + format(ms) + " ms (20 trials), " +
                     format(bandwidth / 1e9, 0) + " GB/s of " + format(peak / 1e9, 0) +
                     " GB/s peak";
}

void checkCupti(CheckResult& result) {
    requireGpu();
    if (!CuptiTracer::available())
        throw SkipCheck{"this build has no CUPTI"};
    const auto timing = timeSaxpy(true);
    if (!timing.cuptiError.empty())
        throw Error("CUPTI could not record: " + timing.cuptiError);
    if (timing.records.size() != timing.eventMs.size())
        throw Error("CUPTI recorded " + std::to_string(timing.records.size()) +
                    " kernel executions, 20 were launched");
    std::vector<double> cuptiMs;
    for (const auto& r : timing.records)
        cuptiMs.push_back(r.milliseconds());
    const double fromCupti = median(cuptiMs);
    const double fromEvents = median(timing.eventMs);
    result.data["cupti_median_ms"] = fromCupti;
    result.data["events_median_ms"] = fromEvents;
    result.data["cupti"] = CuptiTracer::version();
    // Events bracket the launch too, so they may read a little longer than the kernel itself.
    if (!(fromCupti > 0) || fromCupti > fromEvents * 1.05 || fromCupti < fromEvents * 0.5)
        throw Error("CUPTI median " + format(fromCupti) + " ms does not match the events' " +
                    format(fromEvents) + " ms");
    result.message = "CUPTI recorded all 20 kernels: median " + format(fromCupti) + " ms against " +
                     format(fromEvents) + " ms from events";
}

} // namespace

void addMachineChecks(std::vector<SelfTestCheck>& checks) {
    checks.insert(
        checks.end(),
        {
            {"cpu.libtorch", "cpu", "LibTorch operators on the CPU", checkLibTorchCpu},
            {"cpu.nvrtc_compile", "cpu", "NVRTC compiles a kernel to PTX and cubin",
             checkNvrtcCompile},
            {"cpu.nvrtc_diagnostics", "cpu", "NVRTC errors are parsed to file, line and column",
             checkNvrtcDiagnostics},
            {"gpu.driver", "gpu", "the CUDA driver loads and lists GPUs", checkDriver},
            {"gpu.launch", "gpu", "an NVRTC kernel runs on LibTorch tensors and matches LibTorch",
             checkLaunch},
            {"gpu.cuda_events", "gpu", "CUDA events time the kernel", checkEvents},
            {"gpu.cupti", "gpu", "CUPTI's activity records time every kernel", checkCupti},
        });
}

} // namespace dice
