// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/corpus_synth.h"

#include "core/common/error.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>

namespace dice {

std::string toString(CorpusSplit split) {
    switch (split) {
    case CorpusSplit::Train:
        return "train";
    case CorpusSplit::HeldOutVariant:
        return "heldout_variant";
    case CorpusSplit::HeldOutFamily:
        return "heldout_family";
    case CorpusSplit::HeldOutComposition:
        return "heldout_composition";
    case CorpusSplit::HeldOutPrimitive:
        return "heldout_primitive";
    }
    return "train";
}

namespace {

using Rng = std::mt19937_64;

// ---------------------------------------------------------------------------------------------
// Small helpers

std::string cudaFloat(double v) {
    char buffer[48];
    std::snprintf(buffer, sizeof(buffer), "%.7g", v);
    std::string s = buffer;
    if (s.find_first_of(".e") == std::string::npos)
        s += ".0";
    return s + "f";
}

std::string pyFloat(double v) {
    char buffer[48];
    std::snprintf(buffer, sizeof(buffer), "%.7g", v);
    std::string s = buffer;
    if (s.find_first_of(".e") == std::string::npos)
        s += ".0";
    return s;
}

// Replaces every "$KEY$" of the template.
std::string fill(std::string text, const std::map<std::string, std::string>& values) {
    for (const auto& [key, value] : values) {
        const std::string marker = "$" + key + "$";
        for (std::size_t at = text.find(marker); at != std::string::npos;
             at = text.find(marker, at + value.size()))
            text.replace(at, marker.size(), value);
    }
    return text;
}

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& options) {
    return options[static_cast<std::size_t>(rng() % options.size())];
}

int pickInt(Rng& rng, int low, int high) {
    return low + static_cast<int>(rng() % static_cast<std::uint64_t>(high - low + 1));
}

TensorSpec tensor(const std::string& name, DType dtype, std::vector<std::string> dims,
                  InitSpec init = {}) {
    TensorSpec t;
    t.name = name;
    t.dtype = dtype;
    for (auto& d : dims)
        t.shape.push_back(DimSpec{d});
    t.init = init;
    return t;
}

InitSpec normal(double mean = 0, double stddev = 1) {
    InitSpec s;
    s.kind = InitSpec::Kind::Normal;
    s.a = mean;
    s.b = stddev;
    return s;
}

InitSpec uniform(double low, double high) {
    InitSpec s;
    s.kind = InitSpec::Kind::Uniform;
    s.a = low;
    s.b = high;
    return s;
}

std::string cudaType(DType dtype) {
    switch (dtype) {
    case DType::Float16:
        return "__half";
    case DType::BFloat16:
        return "__nv_bfloat16";
    default:
        return "float";
    }
}

std::string toFloat(DType dtype, const std::string& expr) {
    if (dtype == DType::Float16)
        return "__half2float(" + expr + ")";
    if (dtype == DType::BFloat16)
        return "__bfloat162float(" + expr + ")";
    return expr;
}

std::string fromFloat(DType dtype, const std::string& expr) {
    if (dtype == DType::Float16)
        return "__float2half(" + expr + ")";
    if (dtype == DType::BFloat16)
        return "__float2bfloat16(" + expr + ")";
    return expr;
}

std::string includesFor(DType dtype) {
    if (dtype == DType::Float16)
        return "#include <cuda_fp16.h>\n";
    if (dtype == DType::BFloat16)
        return "#include <cuda_bf16.h>\n";
    return {};
}

std::string dtypeWords(DType dtype) {
    return toString(dtype);
}

// ---------------------------------------------------------------------------------------------
// Activations shared by the families that compose them. The CUDA expression reads `v`; the
// TorchScript expression has $X$ where its argument goes.

struct Activation {
    std::string name;
    std::string cuda;
    std::string ts;
    std::string words;
};

const std::vector<Activation>& activations() {
    static const std::vector<Activation> list = {
        {"relu", "fmaxf(v, 0.0f)", "torch.relu($X$)", "ReLU"},
        {"gelu", "0.5f * v * (1.0f + erff(v * 0.70710678f))", "torch.gelu($X$)", "GELU (erf)"},
        {"silu", "v / (1.0f + expf(-v))", "torch.silu($X$)", "SiLU"},
        {"sigmoid", "1.0f / (1.0f + expf(-v))", "torch.sigmoid($X$)", "sigmoid"},
        {"tanh", "tanhf(v)", "torch.tanh($X$)", "tanh"},
    };
    return list;
}

std::string applyTs(const Activation& a, const std::string& x) {
    return fill(a.ts, {{"X", x}});
}

// ---------------------------------------------------------------------------------------------
// Shapes

struct MapShape {
    std::vector<std::string> dims;
    std::map<std::string, std::int64_t> small;
    std::map<std::string, std::int64_t> bench;
};

// Elementwise tasks see 1-, 2- and 3-dimensional tensors. Bench sizes move a few hundred MB (about
// a millisecond on an H100); small sizes include counts that are not multiples of four.
MapShape mapShape(Rng& rng, int inputs, DType dtype) {
    MapShape s;
    const int rank = pickInt(rng, 1, 3);
    const std::int64_t elementBytes = dtypeSize(dtype);
    const std::int64_t target = (std::int64_t{3} << 28) / ((inputs + 1) * elementBytes);
    if (rank == 1) {
        s.dims = {"N"};
        s.small["N"] = pickInt(rng, 1000, 9000);
        s.bench["N"] = target / 4096 * 4096 + pick(rng, std::vector<std::int64_t>{0, 4, 12});
    } else if (rank == 2) {
        s.dims = {"B", "D"};
        s.small["B"] = pickInt(rng, 3, 24);
        s.small["D"] = pickInt(rng, 64, 700);
        const std::int64_t d = pick(rng, std::vector<std::int64_t>{1024, 4096, 8192, 16384, 65536});
        s.bench["D"] = d;
        s.bench["B"] = std::max<std::int64_t>(1, target / d);
    } else {
        s.dims = {"B", "C", "L"};
        s.small["B"] = pickInt(rng, 2, 6);
        s.small["C"] = pickInt(rng, 3, 16);
        s.small["L"] = pickInt(rng, 17, 300);
        const std::int64_t c = pick(rng, std::vector<std::int64_t>{16, 32, 64, 128});
        const std::int64_t l = pick(rng, std::vector<std::int64_t>{1024, 4096, 16384});
        s.bench["C"] = c;
        s.bench["L"] = l;
        s.bench["B"] = std::max<std::int64_t>(1, target / (c * l));
    }
    return s;
}

struct RowShape {
    std::map<std::string, std::int64_t> small;
    std::map<std::string, std::int64_t> bench;
};

// An image batch [B, C, H, W]: small sizes with counts that are not multiples of four, bench sizes
// of about 2^25 elements from the sides and channel counts given.
struct ImageShape {
    std::map<std::string, std::int64_t> small;
    std::map<std::string, std::int64_t> bench;
};

ImageShape imageShape(Rng& rng, const std::vector<std::int64_t>& sides,
                      const std::vector<std::int64_t>& channelCounts) {
    ImageShape s;
    s.small = {{"B", pickInt(rng, 1, 3)},
               {"C", pickInt(rng, 2, 8)},
               {"H", pickInt(rng, 9, 40)},
               {"W", pickInt(rng, 9, 40)}};
    const std::int64_t side = pick(rng, sides);
    const std::int64_t channels = pick(rng, channelCounts);
    s.bench = {{"B", std::max<std::int64_t>(1, (std::int64_t{1} << 25) / (channels * side * side))},
               {"C", channels},
               {"H", side},
               {"W", side}};
    return s;
}

RowShape rowShape(Rng& rng, std::int64_t maxD = 65536) {
    RowShape s;
    s.small["B"] = pickInt(rng, 3, 33);
    s.small["D"] = pickInt(rng, 5, 600);
    std::vector<std::int64_t> ds;
    for (std::int64_t d : {1024, 2048, 4096, 8192, 16384, 32768, 65536})
        if (d <= maxD)
            ds.push_back(d);
    const std::int64_t d = pick(rng, ds);
    s.bench["D"] = d;
    s.bench["B"] = std::max<std::int64_t>(8, (std::int64_t{1} << 26) / d);
    return s;
}

// ---------------------------------------------------------------------------------------------
// Module text for prompts (KernelBench style): forward computes what the reference computes.

// TorchScript knows the activations as torch.gelu and the like; Python's torch module does not,
// and a KernelBench problem calls them from torch.nn.functional.
std::string eagerPython(std::string text) {
    static const char* const functionalOnly[] = {
        "gelu",       "silu",        "mish",       "softplus", "elu",      "leaky_relu",
        "hardswish",  "hardsigmoid", "hardtanh",   "relu6",    "softsign", "logsigmoid",
        "softshrink", "hardshrink",  "tanhshrink", "glu"};
    for (const char* name : functionalOnly) {
        const std::string from = std::string("torch.") + name + "(";
        const std::string to = std::string("torch.nn.functional.") + name + "(";
        for (std::size_t at = text.find(from); at != std::string::npos;
             at = text.find(from, at + to.size()))
            text.replace(at, from.size(), to);
    }
    return text;
}

std::string moduleText(const std::string& docstring, const std::string& initArgs,
                       const std::string& initBody, const std::string& forwardArgs,
                       const std::string& forwardBody, const std::string& constants,
                       const std::string& inputs, const std::string& initInputs) {
    std::ostringstream out;
    out << "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    \"\"\""
        << docstring << "\"\"\"\n\n    def __init__(self" << initArgs
        << "):\n        super(Model, self).__init__()\n"
        << initBody << "\n    def forward(self, " << forwardArgs << "):\n"
        << eagerPython(forwardBody) << "\n\n"
        << constants << "\n\ndef get_inputs():\n    return [" << inputs
        << "]\n\n\ndef get_init_inputs():\n    return [" << initInputs << "]\n";
    return out.str();
}

std::string sizeConstants(const std::map<std::string, std::int64_t>& bench) {
    std::string out;
    for (const auto& [k, v] : bench)
        out += k + " = " + std::to_string(v) + "\n";
    return out;
}

std::string randnCall(const std::vector<std::string>& dims, DType dtype) {
    std::string call = "torch.randn(";
    for (std::size_t i = 0; i < dims.size(); ++i)
        call += (i ? ", " : "") + dims[i];
    if (dtype != DType::Float32)
        call += std::string(", dtype=torch.") + (dtype == DType::Float16 ? "float16" : "bfloat16");
    return call + ")";
}

// ---------------------------------------------------------------------------------------------
// Elementwise maps over tensors of one shape.

struct MapFamily {
    std::string name;
    int level;
    std::vector<std::string> inputs; // names, also the scalar names in the CUDA expression
    // Draws the variant: CUDA expression, TorchScript expression, title, description.
    std::function<void(Rng&, std::string&, std::string&, std::string&, std::string&)> draw;
    bool halfPrecision = false; // may draw float16/bfloat16 variants
};

std::string mapSolution(const std::string& kernel, const std::vector<std::string>& inputs,
                        const std::string& expr, DType dtype, bool vectorized, int threads) {
    std::ostringstream d;
    d << "#pragma dice device\n" << includesFor(dtype);
    // A plain activation reads `v`; compositions name their inputs.
    const bool readsV =
        expr.find("v") != std::string::npos && expr.find("const float v") == std::string::npos;
    std::string params;
    for (const auto& in : inputs)
        params += (params.empty() ? "" : ", ") + std::string("float ") +
                  (inputs.size() == 1 && readsV ? std::string("v") : in);
    d << "__device__ __forceinline__ float op(" << params << ")\n{\n"
      << "    return " << expr << ";\n}\n\n";
    const std::string t = cudaType(dtype);
    auto pointerParams = [&](bool vec) {
        std::string p;
        for (const auto& in : inputs)
            p += "const " + t + "* __restrict__ " + in + "_in, ";
        p += t + "* __restrict__ out, long long " + std::string(vec ? "n4" : "n");
        return p;
    };
    if (vectorized) {
        d << "extern \"C\" __global__ void " << kernel << "_vec(" << pointerParams(true) << ")\n{\n"
          << "    const long long stride = (long long)gridDim.x * blockDim.x;\n"
          << "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i "
             "+= "
             "stride) {\n";
        for (const auto& in : inputs)
            d << "        const float4 " << in << "4 = reinterpret_cast<const float4*>(" << in
              << "_in)[i];\n";
        std::string lanes[4];
        const char* comps[4] = {"x", "y", "z", "w"};
        for (int c = 0; c < 4; ++c) {
            std::string call = "op(";
            for (std::size_t k = 0; k < inputs.size(); ++k)
                call += (k ? ", " : "") + inputs[k] + "4." + comps[c];
            lanes[c] = call + ")";
        }
        d << "        reinterpret_cast<float4*>(out)[i] = make_float4(" << lanes[0] << ", "
          << lanes[1] << ",\n                                                         " << lanes[2]
          << ", " << lanes[3] << ");\n    }\n}\n\n";
        d << "extern \"C\" __global__ void " << kernel << "_tail(" << pointerParams(false)
          << ", long long start)\n{\n"
          << "    const long long i = start + threadIdx.x;\n"
          << "    if (i < n)\n        out[i] = op(";
        for (std::size_t k = 0; k < inputs.size(); ++k)
            d << (k ? ", " : "") << inputs[k] << "_in[i]";
        d << ");\n}\n";
    } else {
        d << "extern \"C\" __global__ void " << kernel << "_kernel(" << pointerParams(false)
          << ")\n{\n"
          << "    const long long stride = (long long)gridDim.x * blockDim.x;\n"
          << "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += "
             "stride)\n        out[i] = "
          << fromFloat(dtype,
                       [&] {
                           std::string call = "op(";
                           for (std::size_t k = 0; k < inputs.size(); ++k)
                               call += (k ? ", " : "") + toFloat(dtype, inputs[k] + "_in[i]");
                           return call + ")";
                       }())
          << ";\n}\n";
    }
    std::ostringstream h;
    h << "#pragma dice host\ndef forward(";
    for (std::size_t k = 0; k < inputs.size(); ++k)
        h << (k ? ", " : "") << inputs[k] << ": Tensor";
    h << ") -> Tensor:\n";
    for (const auto& in : inputs)
        h << "    assert " << in << ".is_contiguous()\n";
    h << "    out = torch.empty_like(" << inputs[0] << ")\n    n = " << inputs[0]
      << ".numel()\n    threads = " << threads << "\n";
    std::string tuple;
    for (const auto& in : inputs)
        tuple += in + ", ";
    if (vectorized) {
        h << "    n4 = n // 4\n"
          << "    if n4 > 0:\n"
          << "        blocks = min((n4 + threads - 1) // threads, 65536)\n"
          << "        dice.launch(\"" << kernel << "_vec\", [blocks], [threads], (" << tuple
          << "out, n4))\n"
          << "    if n > n4 * 4:\n"
          << "        dice.launch(\"" << kernel << "_tail\", [1], [4], (" << tuple
          << "out, n, n4 * 4))\n";
    } else {
        h << "    blocks = max(1, min((n + threads - 1) // threads, 65536))\n"
          << "    dice.launch(\"" << kernel << "_kernel\", [blocks], [threads], (" << tuple
          << "out, n))\n";
    }
    h << "    return out\n";
    return d.str() + h.str();
}

std::vector<MapFamily> mapFamilies() {
    using S = std::string;
    auto unary = [](S name, S cuda, S ts, S title, S desc) {
        return MapFamily{name,
                         1,
                         {"x"},
                         [=](Rng&, S& c, S& t, S& ti, S& de) {
                             c = cuda;
                             t = ts;
                             ti = title;
                             de = desc;
                         },
                         true};
    };
    std::vector<MapFamily> f;
    f.push_back(unary("relu", "fmaxf(v, 0.0f)", "torch.relu(x)", "ReLU",
                      "Elementwise rectified linear unit: max(x, 0)."));
    f.push_back(
        {"leaky_relu",
         1,
         {"x"},
         [](Rng& rng, S& c, S& t, S& ti, S& de) {
             const double a = pick(rng, std::vector<double>{0.01, 0.02, 0.05, 0.1, 0.2, 0.3});
             c = "v > 0.0f ? v : " + cudaFloat(a) + " * v";
             t = "torch.leaky_relu(x, " + pyFloat(a) + ")";
             ti = "Leaky ReLU";
             de = "Elementwise leaky ReLU with negative slope " + pyFloat(a) + ".";
         },
         true});
    f.push_back(unary("gelu", "0.5f * v * (1.0f + erff(v * 0.70710678f))", "torch.gelu(x)", "GELU",
                      "Elementwise GELU, exact form: 0.5 x (1 + erf(x / sqrt(2)))."));
    f.push_back(unary("gelu_tanh",
                      "0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)))",
                      "torch.gelu(x, approximate='tanh')", "GELU (tanh approximation)",
                      "Elementwise GELU with the tanh approximation."));
    f.push_back(unary("silu", "v / (1.0f + expf(-v))", "torch.silu(x)", "SiLU",
                      "Elementwise SiLU (swish): x * sigmoid(x)."));
    f.push_back(unary("sigmoid", "1.0f / (1.0f + expf(-v))", "torch.sigmoid(x)", "Sigmoid",
                      "Elementwise logistic sigmoid."));
    f.push_back(
        unary("tanh", "tanhf(v)", "torch.tanh(x)", "Tanh", "Elementwise hyperbolic tangent."));
    f.push_back(unary("softplus", "v > 20.0f ? v : log1pf(expf(v))", "torch.softplus(x, 1.0, 20.0)",
                      "Softplus", "Elementwise softplus log(1 + exp(x)), linear above 20."));
    f.push_back({"elu",
                 1,
                 {"x"},
                 [](Rng& rng, S& c, S& t, S& ti, S& de) {
                     const double a = pick(rng, std::vector<double>{0.5, 1.0, 1.5, 2.0});
                     c = "v > 0.0f ? v : " + cudaFloat(a) + " * (expf(v) - 1.0f)";
                     t = "torch.elu(x, " + pyFloat(a) + ")";
                     ti = "ELU";
                     de = "Elementwise ELU with alpha " + pyFloat(a) + ".";
                 },
                 true});
    f.push_back(unary("hardswish", "v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f",
                      "torch.hardswish(x)", "Hardswish", "Elementwise hardswish."));
    f.push_back(unary("hardsigmoid", "fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f",
                      "torch.hardsigmoid(x)", "Hardsigmoid", "Elementwise hardsigmoid."));
    f.push_back(unary("mish", "v * tanhf(v > 20.0f ? v : log1pf(expf(v)))", "torch.mish(x)", "Mish",
                      "Elementwise mish: x * tanh(softplus(x))."));
    f.push_back(unary("relu6", "fminf(fmaxf(v, 0.0f), 6.0f)", "torch.clamp(x, 0.0, 6.0)", "ReLU6",
                      "Elementwise ReLU capped at 6."));
    f.push_back(unary(
        "selu", "1.0507009873554805f * (v > 0.0f ? v : 1.6732632423543772f * (expf(v) - 1.0f))",
        "torch.selu(x)", "SELU", "Elementwise scaled exponential linear unit."));
    f.push_back(unary("softsign", "v / (1.0f + fabsf(v))", "x / (1.0 + torch.abs(x))", "Softsign",
                      "Elementwise softsign: x / (1 + |x|)."));
    f.push_back(
        unary("abs", "fabsf(v)", "torch.abs(x)", "Absolute value", "Elementwise absolute value."));
    f.push_back(unary("square", "v * v", "x * x", "Square", "Elementwise square."));
    f.push_back({"clamp",
                 1,
                 {"x"},
                 [](Rng& rng, S& c, S& t, S& ti, S& de) {
                     const double lo = pick(rng, std::vector<double>{-2.0, -1.0, -0.5, 0.0});
                     const double hi = pick(rng, std::vector<double>{0.5, 1.0, 2.0, 3.0});
                     c = "fminf(fmaxf(v, " + cudaFloat(lo) + "), " + cudaFloat(hi) + ")";
                     t = "torch.clamp(x, " + pyFloat(lo) + ", " + pyFloat(hi) + ")";
                     ti = "Clamp";
                     de = "Elementwise clamp to [" + pyFloat(lo) + ", " + pyFloat(hi) + "].";
                 },
                 true});
    f.push_back(unary("exp", "expf(v)", "torch.exp(x)", "Exponential", "Elementwise exp(x)."));

    auto binary = [](S name, S cuda, S ts, S title, S desc) {
        return MapFamily{name, 1, {"a", "b"}, [=](Rng&, S& c, S& t, S& ti, S& de) {
                             c = cuda;
                             t = ts;
                             ti = title;
                             de = desc;
                         }};
    };
    f.push_back(binary("add", "a + b", "a + b", "Add", "Elementwise sum of two tensors."));
    f.push_back(binary("mul", "a * b", "a * b", "Multiply", "Elementwise product of two tensors."));
    f.push_back(binary("sub", "a - b", "a - b", "Subtract", "Elementwise difference a - b."));
    f.push_back(binary("maximum", "fmaxf(a, b)", "torch.maximum(a, b)", "Maximum",
                       "Elementwise maximum of two tensors."));
    f.push_back(binary("minimum", "fminf(a, b)", "torch.minimum(a, b)", "Minimum",
                       "Elementwise minimum of two tensors."));
    f.push_back({"axpby", 1, {"a", "b"}, [](Rng& rng, S& c, S& t, S& ti, S& de) {
                     const double x = pick(rng, std::vector<double>{0.5, 1.5, 2.0, -1.0, 3.0});
                     const double y = pick(rng, std::vector<double>{0.25, 0.5, -2.0, 1.0});
                     c = cudaFloat(x) + " * a + " + cudaFloat(y) + " * b";
                     t = pyFloat(x) + " * a + " + pyFloat(y) + " * b";
                     ti = "Scaled sum";
                     de = "Elementwise " + pyFloat(x) + " * a + " + pyFloat(y) + " * b.";
                 }});

    // Level 2: compositions that PyTorch runs as several kernels.
    f.push_back({"add_activation", 2, {"a", "b"}, [](Rng& rng, S& c, S& t, S& ti, S& de) {
                     const Activation& act = pick(rng, activations());
                     c = "[&] { const float v = a + b; return " + act.cuda + "; }()";
                     t = applyTs(act, "a + b");
                     ti = "Add then " + act.words;
                     de = "Elementwise " + act.words + " of the sum of two tensors.";
                 }});
    f.push_back({"activation_mul", 2, {"a", "b"}, [](Rng& rng, S& c, S& t, S& ti, S& de) {
                     const Activation& act = pick(rng, activations());
                     c = "[&] { const float v = a; return " + act.cuda + "; }() * b";
                     t = applyTs(act, "a") + " * b";
                     ti = act.words + " gate";
                     de = "Gating: " + act.words + "(a) multiplied elementwise by b.";
                 }});
    f.push_back({"scale_shift_activation", 2, {"x"}, [](Rng& rng, S& c, S& t, S& ti, S& de) {
                     const Activation& act = pick(rng, activations());
                     const double s = pick(rng, std::vector<double>{0.5, 2.0, 1.5, -1.0, 0.125});
                     const double b = pick(rng, std::vector<double>{0.1, -0.5, 1.0, 0.25});
                     c = "[&] { const float v = x * " + cudaFloat(s) + " + " + cudaFloat(b) +
                         "; return " + act.cuda + "; }()";
                     t = applyTs(act, "x * " + pyFloat(s) + " + " + pyFloat(b));
                     ti = "Scale, shift and " + act.words;
                     de = act.words + " of x * " + pyFloat(s) + " + " + pyFloat(b) + ".";
                 }});
    f.push_back({"mul_add", 2, {"a", "b", "c"}, [](Rng&, S& c, S& t, S& ti, S& de) {
                     c = "a * b + c";
                     t = "a * b + c";
                     ti = "Multiply-add";
                     de = "Elementwise a * b + c over three tensors.";
                 }});
    f.push_back({"activation_scale_clamp", 2, {"x"}, [](Rng& rng, S& c, S& t, S& ti, S& de) {
                     const Activation& act = pick(rng, activations());
                     const double s = pick(rng, std::vector<double>{2.0, 0.5, 3.0});
                     const double lo = pick(rng, std::vector<double>{-1.0, -0.5, 0.0});
                     const double hi = pick(rng, std::vector<double>{0.5, 1.0, 2.0});
                     c = "fminf(fmaxf([&] { const float v = x; return " + act.cuda + "; }() * " +
                         cudaFloat(s) + ", " + cudaFloat(lo) + "), " + cudaFloat(hi) + ")";
                     t = "torch.clamp(" + applyTs(act, "x") + " * " + pyFloat(s) + ", " +
                         pyFloat(lo) + ", " + pyFloat(hi) + ")";
                     ti = act.words + ", scale and clamp";
                     de = act.words + " of x, times " + pyFloat(s) + ", clamped to [" +
                          pyFloat(lo) + ", " + pyFloat(hi) + "].";
                 }});
    return f;
}

SynthTask makeMapTask(const MapFamily& family, Rng& rng, int variant) {
    std::string cuda, ts, title, description;
    family.draw(rng, cuda, ts, title, description);
    DType dtype = DType::Float32;
    if (family.halfPrecision) {
        const int roll = pickInt(rng, 0, 9);
        dtype = roll == 0 ? DType::Float16 : roll == 1 ? DType::BFloat16 : DType::Float32;
    }
    const MapShape shape = mapShape(rng, static_cast<int>(family.inputs.size()), dtype);
    const bool vectorized = dtype == DType::Float32 && pickInt(rng, 0, 3) != 0;
    const int threads = pick(rng, std::vector<int>{128, 256, 256, 512});

    SynthTask out;
    Task& task = out.task;
    task.name = family.name + "_v" + std::to_string(variant);
    task.title = title + (dtype == DType::Float32 ? "" : " (" + dtypeWords(dtype) + ")");
    task.level = family.level;
    task.family = family.name;
    task.description = description;
    task.seed = 1000 + static_cast<std::uint64_t>(variant);
    for (const auto& in : family.inputs)
        task.inputs.push_back(tensor(in, dtype, shape.dims, normal()));
    task.presets["small"] = shape.small;
    task.presets["bench"] = shape.bench;
    std::string signature;
    for (const auto& in : family.inputs)
        signature += (signature.empty() ? "" : ", ") + in + ": Tensor";
    task.reference = "def reference(" + signature + ") -> Tensor:\n    return " + ts + "\n";
    std::string dimsProduct;
    for (const auto& d : shape.dims)
        dimsProduct += (dimsProduct.empty() ? "" : " * ") + d;
    task.flops = dimsProduct;
    if (dtype != DType::Float32)
        task.tolerances[dtype] = Tolerance{1e-2, 1e-2};
    task.tags = {"synthetic", "elementwise"};
    std::string forwardArgs, inputsList, forwardBody;
    for (const auto& in : family.inputs) {
        forwardArgs += (forwardArgs.empty() ? "" : ", ") + in + ": torch.Tensor";
        inputsList += (inputsList.empty() ? "" : ", ") + randnCall(shape.dims, dtype);
    }
    task.pytorchModule =
        moduleText(description, "", "", forwardArgs + ") -> (torch.Tensor", "        return " + ts,
                   sizeConstants(shape.bench), inputsList, "");
    out.solution = mapSolution(family.name, family.inputs, cuda, dtype, vectorized, threads);
    out.family = family.name;
    return out;
}

// ---------------------------------------------------------------------------------------------
// Expression trees: elementwise maps drawn as random trees over primitives, so that a model is
// measured on compositions it never saw (every primitive trained, some parent-child pairs never)
// and on primitives it never saw, rather than on templates it can recall.

struct Primitive {
    std::string name;
    int arity = 1;
    std::string cuda; // $A$ and $B$ are the operands, $C$ a drawn constant
    std::string ts;
};

// Every template's result is a leaf, a call or wrapped in parentheses, so an operand needs none
// of its own.
const std::vector<Primitive>& primitives() {
    static const std::vector<Primitive> list = {
        {"relu", 1, "fmaxf($A$, 0.0f)", "torch.relu($A$)"},
        {"tanh", 1, "tanhf($A$)", "torch.tanh($A$)"},
        {"sigmoid", 1, "(1.0f / (1.0f + expf(-$A$)))", "torch.sigmoid($A$)"},
        {"abs", 1, "fabsf($A$)", "torch.abs($A$)"},
        {"square", 1, "($A$ * $A$)", "torch.square($A$)"},
        {"neg", 1, "(-$A$)", "(-$A$)"},
        {"erf", 1, "erff($A$)", "torch.erf($A$)"},
        {"scale", 1, "($C$ * $A$)", "($C$ * $A$)"},
        {"shift", 1, "($A$ + $C$)", "($A$ + $C$)"},
        {"softsign", 1, "($A$ / (1.0f + fabsf($A$)))", "($A$ / (1.0 + torch.abs($A$)))"},
        {"sin", 1, "sinf($A$)", "torch.sin($A$)"},
        {"add", 2, "($A$ + $B$)", "($A$ + $B$)"},
        {"sub", 2, "($A$ - $B$)", "($A$ - $B$)"},
        {"mul", 2, "($A$ * $B$)", "($A$ * $B$)"},
        {"max", 2, "fmaxf($A$, $B$)", "torch.maximum($A$, $B$)"},
        {"min", 2, "fminf($A$, $B$)", "torch.minimum($A$, $B$)"},
    };
    return list;
}

// Never in a training tree: trees with one of them are the held-out primitives' split.
const std::set<std::string>& heldOutPrimitives() {
    static const std::set<std::string> names = {"softsign", "sin"};
    return names;
}

// Parent-child pairs of trained primitives never in a training tree: trees with one of them and
// no held-out primitive are the held-out compositions' split.
const std::set<std::pair<std::string, std::string>>& heldOutPairs() {
    static const std::set<std::pair<std::string, std::string>> pairs = {
        {"sigmoid", "mul"}, {"tanh", "sub"}, {"relu", "max"}, {"square", "tanh"}, {"mul", "erf"}};
    return pairs;
}

struct Tree {
    std::string cuda;
    std::string ts;
    std::set<std::string> used;                          // primitives
    std::set<std::pair<std::string, std::string>> pairs; // parent, child primitive
    std::set<std::string> leaves;                        // inputs read
    std::string root;                                    // primitive at the root, or ""
    int nodes = 0;
    // A binary node with two equal operands (x - x, x + x): nobody writes those.
    bool degenerate = false;
};

Tree drawTree(Rng& rng, const std::vector<std::string>& inputs, int depth) {
    Tree t;
    // Leaves come early a third of the time, so trees are of uneven shape.
    if (depth == 0 || pickInt(rng, 0, 2) == 0) {
        const std::string& leaf = pick(rng, inputs);
        t.cuda = t.ts = leaf;
        t.leaves.insert(leaf);
        return t;
    }
    const Primitive& p = pick(rng, primitives());
    std::vector<Tree> children;
    for (int k = 0; k < p.arity; ++k)
        children.push_back(drawTree(rng, inputs, depth - 1));
    std::map<std::string, std::string> cuda = {{"A", children[0].cuda}};
    std::map<std::string, std::string> ts = {{"A", children[0].ts}};
    if (p.arity == 2) {
        cuda["B"] = children[1].cuda;
        ts["B"] = children[1].ts;
    }
    if (p.cuda.find("$C$") != std::string::npos) {
        const double c = p.name == "scale"
                             ? pick(rng, std::vector<double>{0.5, 2.0, -1.5, 0.25, 3.0})
                             : pick(rng, std::vector<double>{1.0, -0.5, 0.25, -2.0});
        cuda["C"] = cudaFloat(c);
        ts["C"] = pyFloat(c);
    }
    t.cuda = fill(p.cuda, cuda);
    t.ts = fill(p.ts, ts);
    t.root = p.name;
    t.used.insert(p.name);
    t.nodes = 1;
    t.degenerate = p.arity == 2 && children[0].cuda == children[1].cuda;
    for (const Tree& c : children) {
        t.used.insert(c.used.begin(), c.used.end());
        t.pairs.insert(c.pairs.begin(), c.pairs.end());
        t.leaves.insert(c.leaves.begin(), c.leaves.end());
        t.nodes += c.nodes;
        t.degenerate = t.degenerate || c.degenerate;
        if (!c.root.empty())
            t.pairs.insert({p.name, c.root});
    }
    return t;
}

CorpusSplit treeSplit(const Tree& t) {
    for (const auto& name : t.used)
        if (heldOutPrimitives().count(name))
            return CorpusSplit::HeldOutPrimitive;
    for (const auto& pair : t.pairs)
        if (heldOutPairs().count(pair))
            return CorpusSplit::HeldOutComposition;
    return CorpusSplit::Train;
}

struct TreeFamily {
    std::string name;
    std::vector<std::string> inputs;
};

std::vector<TreeFamily> treeFamilies() {
    return {{"expr_tree_unary", {"x"}}, {"expr_tree_binary", {"a", "b"}}};
}

// Which split variant `variant` of a tree family draws for: the last ones the held-out
// compositions' and primitives' (about 15% and 10%), the rest training trees.
CorpusSplit plannedTreeSplit(int variant, int variants) {
    const int compositions = static_cast<int>(variants * 0.15 + 0.5);
    const int primitivesHeld = static_cast<int>(variants * 0.10 + 0.5);
    if (variant >= variants - primitivesHeld)
        return CorpusSplit::HeldOutPrimitive;
    if (variant >= variants - primitivesHeld - compositions)
        return CorpusSplit::HeldOutComposition;
    return CorpusSplit::Train;
}

SynthTask makeTreeTask(const TreeFamily& family, Rng& rng, int variant, CorpusSplit want) {
    // Drawn again until the tree belongs to the split wanted, reads every input and composes at
    // least two primitives; the draws are the family's own stream, so this is deterministic.
    for (int attempt = 0; attempt < 100000; ++attempt) {
        const Tree t = drawTree(rng, family.inputs, pickInt(rng, 2, 4));
        if (t.nodes < 2 || t.degenerate || t.leaves.size() != family.inputs.size() ||
            treeSplit(t) != want || t.cuda.size() > 600)
            continue;
        const std::string text = t.ts;
        MapFamily map{family.name, 2, family.inputs,
                      [&](Rng&, std::string& c, std::string& ts, std::string& title,
                          std::string& description) {
                          c = t.cuda;
                          ts = text;
                          title = "Elementwise expression";
                          description = "Elementwise " + text + ".";
                      },
                      false};
        SynthTask out = makeMapTask(map, rng, variant);
        out.task.tags.push_back("expression-tree");
        out.split = want;
        return out;
    }
    throw Error("no expression tree of the " + toString(want) + " split was drawn for " +
                family.name);
}

// ---------------------------------------------------------------------------------------------
// Row-broadcast maps: x [B, D] with per-column parameters.

struct RowMapFamily {
    std::string name;
    int level;
    std::vector<std::string> params; // per-column vectors
    std::function<void(Rng&, std::string&, std::string&, std::string&, std::string&)> draw;
};

std::vector<RowMapFamily> rowMapFamilies() {
    using S = std::string;
    return {
        {"bias_activation",
         2,
         {"bias"},
         [](Rng& rng, S& c, S& t, S& ti, S& de) {
             const Activation& act = pick(rng, activations());
             c = "[&] { const float v = x + bias; return " + act.cuda + "; }()";
             t = applyTs(act, "x + bias");
             ti = "Bias and " + act.words;
             de = act.words + " of x plus a per-column bias.";
         }},
        {"affine_activation",
         2,
         {"weight", "bias"},
         [](Rng& rng, S& c, S& t, S& ti, S& de) {
             const Activation& act = pick(rng, activations());
             c = "[&] { const float v = x * weight + bias; return " + act.cuda + "; }()";
             t = applyTs(act, "x * weight + bias");
             ti = "Per-column affine and " + act.words;
             de = act.words + " of x * weight + bias with per-column weight and bias.";
         }},
        {"activation_bias",
         2,
         {"bias"},
         [](Rng& rng, S& c, S& t, S& ti, S& de) {
             const Activation& act = pick(rng, activations());
             c = "[&] { const float v = x; return " + act.cuda + "; }() + bias";
             t = applyTs(act, "x") + " + bias";
             ti = act.words + " then bias";
             de = act.words + " of x, then a per-column bias added.";
         }},
    };
}

SynthTask makeRowMapTask(const RowMapFamily& family, Rng& rng, int variant) {
    std::string cuda, ts, title, description;
    family.draw(rng, cuda, ts, title, description);
    const RowShape shape = rowShape(rng);
    const int threads = pick(rng, std::vector<int>{128, 256, 512});

    SynthTask out;
    Task& task = out.task;
    task.name = family.name + "_v" + std::to_string(variant);
    task.title = title;
    task.level = family.level;
    task.family = family.name;
    task.description = description;
    task.seed = 2000 + static_cast<std::uint64_t>(variant);
    task.inputs.push_back(tensor("x", DType::Float32, {"B", "D"}, normal()));
    for (const auto& p : family.params)
        task.parameters.push_back(tensor(p, DType::Float32, {"D"},
                                         p == "weight" ? normal(1.0, 0.2) : uniform(-0.5, 0.5)));
    task.presets["small"] = shape.small;
    task.presets["bench"] = shape.bench;
    std::string signature = "x: Tensor";
    for (const auto& p : family.params)
        signature += ", " + p + ": Tensor";
    task.reference = "def reference(" + signature + ") -> Tensor:\n    return " + ts + "\n";
    task.flops = "B * D";
    task.tags = {"synthetic", "broadcast"};
    std::string initBody, moduleExpr = ts;
    for (const auto& p : family.params) {
        initBody += "        self." + p + " = nn.Parameter(torch.randn(dim))\n";
        for (std::size_t at = moduleExpr.find(p); at != std::string::npos;
             at = moduleExpr.find(p, at + p.size() + 5)) {
            moduleExpr.replace(at, p.size(), "self." + p);
        }
    }
    task.pytorchModule = moduleText(
        description, ", dim: int", initBody, "x: torch.Tensor) -> (torch.Tensor",
        "        return " + moduleExpr, sizeConstants(shape.bench), "torch.randn(B, D)", "D");

    std::ostringstream d;
    d << "#pragma dice device\nextern \"C\" __global__ void " << family.name
      << "_kernel(const float* __restrict__ x_in, ";
    for (const auto& p : family.params)
        d << "const float* __restrict__ " << p << "_in, ";
    d << "float* __restrict__ out, long long n, int d)\n{\n"
      << "    const long long stride = (long long)gridDim.x * blockDim.x;\n"
      << "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += "
         "stride) {\n"
      << "        const int col = (int)(i % d);\n"
      << "        const float x = x_in[i];\n";
    for (const auto& p : family.params)
        d << "        const float " << p << " = " << p << "_in[col];\n";
    d << "        out[i] = " << cuda << ";\n    }\n}\n";
    std::ostringstream h;
    h << "#pragma dice host\ndef forward(" << signature << ") -> Tensor:\n"
      << "    assert x.is_contiguous() and x.dim() == 2\n"
      << "    out = torch.empty_like(x)\n    n = x.numel()\n    threads = " << threads << "\n"
      << "    blocks = max(1, min((n + threads - 1) // threads, 65536))\n"
      << "    dice.launch(\"" << family.name << "_kernel\", [blocks], [threads], (x, ";
    for (const auto& p : family.params)
        h << p << ", ";
    h << "out, n, x.size(1)))\n    return out\n";
    out.solution = d.str() + h.str();
    out.family = family.name;
    return out;
}

// ---------------------------------------------------------------------------------------------
// Row-wise reductions and normalisations: one block per row, warp shuffles, shared memory.

const char* const kBlockReduce = R"(__device__ __forceinline__ float warp_$OP$(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = $COMBINE$;
    return v;
}

// Every thread gets the block's result.
__device__ float block_$OP$(float v, float* shared)
{
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    v = warp_$OP$(v);
    if (lane == 0)
        shared[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x / 32) ? shared[lane] : $IDENTITY$;
    v = warp_$OP$(v);
    __syncthreads();
    return v;
}
)";

std::string blockReduce(const std::string& op) {
    if (op == "sum")
        return fill(kBlockReduce, {{"OP", "sum"},
                                   {"COMBINE", "v + __shfl_xor_sync(0xffffffffu, v, o)"},
                                   {"IDENTITY", "0.0f"}});
    if (op == "max")
        return fill(kBlockReduce, {{"OP", "max"},
                                   {"COMBINE", "fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o))"},
                                   {"IDENTITY", "__int_as_float(0xff800000)"}});
    return fill(kBlockReduce, {{"OP", "min"},
                               {"COMBINE", "fminf(v, __shfl_xor_sync(0xffffffffu, v, o))"},
                               {"IDENTITY", "__int_as_float(0x7f800000)"}});
}

struct RowReduceFamily {
    std::string name;
    std::string op;      // sum, max, min
    std::string init;    // per-thread initial value
    std::string element; // contribution of v
    std::string finish;  // from the reduced r and d
    std::string ts;
    std::string title;
    std::string description;
};

std::vector<RowReduceFamily> rowReduceFamilies() {
    return {
        {"row_sum", "sum", "0.0f", "v", "r", "torch.sum(x, 1)", "Row sum",
         "Sum of each row of a 2-D tensor."},
        {"row_mean", "sum", "0.0f", "v", "r / (float)d", "torch.mean(x, 1)", "Row mean",
         "Mean of each row of a 2-D tensor."},
        {"row_max", "max", "__int_as_float(0xff800000)", "v", "r", "torch.amax(x, 1)",
         "Row maximum", "Maximum of each row of a 2-D tensor."},
        {"row_min", "min", "__int_as_float(0x7f800000)", "v", "r", "torch.amin(x, 1)",
         "Row minimum", "Minimum of each row of a 2-D tensor."},
        {"row_sum_squares", "sum", "0.0f", "v * v", "r", "torch.sum(x * x, 1)",
         "Row sum of squares", "Sum of squares of each row."},
        {"row_l2_norm", "sum", "0.0f", "v * v", "sqrtf(r)", "torch.sqrt(torch.sum(x * x, 1))",
         "Row L2 norm", "Euclidean norm of each row."},
        {"row_mean_abs", "sum", "0.0f", "fabsf(v)", "r / (float)d", "torch.mean(torch.abs(x), 1)",
         "Row mean absolute value", "Mean of the absolute values of each row."},
    };
}

SynthTask makeRowReduceTask(const RowReduceFamily& family, Rng& rng, int variant) {
    const RowShape shape = rowShape(rng);
    const int threads = pick(rng, std::vector<int>{128, 256, 512, 1024});
    SynthTask out;
    Task& task = out.task;
    task.name = family.name + "_v" + std::to_string(variant);
    task.title = family.title;
    task.level = 1;
    task.family = family.name;
    task.description = family.description;
    task.seed = 3000 + static_cast<std::uint64_t>(variant);
    task.inputs.push_back(tensor("x", DType::Float32, {"B", "D"}, normal()));
    task.presets["small"] = shape.small;
    task.presets["bench"] = shape.bench;
    task.reference = "def reference(x: Tensor) -> Tensor:\n    return " + family.ts + "\n";
    task.flops = "B * D";
    task.tags = {"synthetic", "reduction"};
    task.pytorchModule = moduleText(family.description, "", "", "x: torch.Tensor) -> (torch.Tensor",
                                    "        return " + family.ts, sizeConstants(shape.bench),
                                    "torch.randn(B, D)", "");
    std::ostringstream d;
    d << "#pragma dice device\n"
      << blockReduce(family.op) << "\nextern \"C\" __global__ void " << family.name
      << "_kernel(const float* __restrict__ x, float* __restrict__ out, int d)\n{\n"
      << "    __shared__ float shared[32];\n"
      << "    const float* row = x + (long long)blockIdx.x * d;\n"
      << "    float r = " << family.init << ";\n"
      << "    for (int j = threadIdx.x; j < d; j += blockDim.x) {\n"
      << "        const float v = row[j];\n";
    if (family.op == "sum")
        d << "        r += " << family.element << ";\n";
    else
        d << "        r = f" << family.op << "f(r, " << family.element << ");\n";
    d << "    }\n    r = block_" << family.op << "(r, shared);\n"
      << "    if (threadIdx.x == 0)\n        out[blockIdx.x] = " << family.finish << ";\n}\n";
    std::ostringstream h;
    h << "#pragma dice host\ndef forward(x: Tensor) -> Tensor:\n"
      << "    assert x.is_contiguous() and x.dim() == 2\n"
      << "    rows = x.size(0)\n"
      << "    out = torch.empty([rows], dtype=x.dtype, device=x.device)\n"
      << "    dice.launch(\"" << family.name << "_kernel\", [rows], [" << threads
      << "], (x, out, x.size(1)))\n    return out\n";
    out.solution = d.str() + h.str();
    out.family = family.name;
    return out;
}

struct RowNormFamily {
    std::string name;
    int level;
    std::vector<std::string> inputs; // x, and r for residual variants
    std::vector<std::string> params; // weight, bias
    std::function<void(Rng&, std::string& body, std::string& ts, std::string& title,
                       std::string& description)>
        draw;
};

// Kernel bodies: the row is `xr` (and `rr` for a residual); `h(j)` reads the value at column j.
std::vector<RowNormFamily> rowNormFamilies() {
    using S = std::string;
    const S softmaxBody = R"(    float m = __int_as_float(0xff800000);
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        m = fmaxf(m, $H$);
    m = block_max(m, shared);
    float s = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        s += expf($H$ - m);
    s = block_sum(s, shared);
$WRITE$)";
    const S statsBody = R"(    float s = 0.0f;
    float q = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x) {
        const float v = $H$;
        s += v;
        q += v * v;
    }
    s = block_sum(s, shared);
    q = block_sum(q, shared);
    const float mean = s / (float)d;
    const float rstd = rsqrtf(fmaxf(q / (float)d - mean * mean, 0.0f) + $EPS$);
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        yr[j] = ($H$ - mean) * rstd * weight[j] + bias[j];
)";
    const S rmsBody = R"(    float q = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x) {
        const float v = $H$;
        q += v * v;
    }
    q = block_sum(q, shared);
    const float rstd = rsqrtf(q / (float)d + $EPS$);
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        yr[j] = $H$ * rstd * weight[j];
)";
    std::vector<RowNormFamily> f;
    f.push_back({"softmax", 1, {"x"}, {}, [=](Rng&, S& body, S& ts, S& ti, S& de) {
                     body = fill(softmaxBody,
                                 {{"WRITE", "    const float inv = 1.0f / s;\n    for (int j = "
                                            "threadIdx.x; j < d; j += blockDim.x)\n        yr[j] = "
                                            "expf($H$ - m) * inv;\n"}});
                     ts = "torch.softmax(x, 1)";
                     ti = "Softmax";
                     de = "Softmax over the last dimension of a 2-D tensor.";
                 }});
    f.push_back({"log_softmax", 1, {"x"}, {}, [=](Rng&, S& body, S& ts, S& ti, S& de) {
                     body = fill(
                         softmaxBody,
                         {{"WRITE", "    const float shift = m + logf(s);\n    for (int j = "
                                    "threadIdx.x; j < d; j += blockDim.x)\n        yr[j] = $H$ "
                                    "- shift;\n"}});
                     ts = "torch.log_softmax(x, 1)";
                     ti = "Log-softmax";
                     de = "Log-softmax over the last dimension of a 2-D tensor.";
                 }});
    f.push_back(
        {"layer_norm", 1, {"x"}, {"weight", "bias"}, [=](Rng& rng, S& body, S& ts, S& ti, S& de) {
             const double eps = pick(rng, std::vector<double>{1e-5, 1e-6});
             body = fill(statsBody, {{"EPS", cudaFloat(eps)}});
             ts = "torch.layer_norm(x, [x.size(1)], weight, bias, " + pyFloat(eps) + ")";
             ti = "Layer norm";
             de = "Layer normalisation over the last dimension with weight and bias (eps " +
                  pyFloat(eps) + ").";
         }});
    f.push_back({"rms_norm", 1, {"x"}, {"weight"}, [=](Rng& rng, S& body, S& ts, S& ti, S& de) {
                     const double eps = pick(rng, std::vector<double>{1e-5, 1e-6});
                     body = fill(rmsBody, {{"EPS", cudaFloat(eps)}});
                     ts = "x * torch.rsqrt(torch.mean(x * x, 1, True) + " + pyFloat(eps) +
                          ") * weight";
                     ti = "RMS norm";
                     de = "RMS normalisation over the last dimension with a weight (eps " +
                          pyFloat(eps) + ").";
                 }});
    f.push_back({"l2_normalize", 1, {"x"}, {}, [](Rng&, S& body, S& ts, S& ti, S& de) {
                     body = R"(    float q = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x) {
        const float v = $H$;
        q += v * v;
    }
    q = block_sum(q, shared);
    const float inv = 1.0f / fmaxf(sqrtf(q), 1e-12f);
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        yr[j] = $H$ * inv;
)";
                     ts = "x / torch.clamp(torch.sqrt(torch.sum(x * x, 1, True)), 1e-12)";
                     ti = "L2 normalise rows";
                     de = "Each row divided by its Euclidean norm (at least 1e-12).";
                 }});
    f.push_back({"scaled_softmax", 2, {"x"}, {}, [=](Rng& rng, S& body, S& ts, S& ti, S& de) {
                     const double s = pick(rng, std::vector<double>{0.125, 0.5, 2.0, 0.088388});
                     body = fill(softmaxBody,
                                 {{"WRITE", "    const float inv = 1.0f / s;\n    for (int j = "
                                            "threadIdx.x; j < d; j += blockDim.x)\n        yr[j] = "
                                            "expf($H$ - m) * inv;\n"}});
                     body = fill(body, {{"H", "xr[j] * " + cudaFloat(s)}});
                     ts = "torch.softmax(x * " + pyFloat(s) + ", 1)";
                     ti = "Scaled softmax";
                     de = "Softmax over the last dimension of x * " + pyFloat(s) + ".";
                 }});
    f.push_back(
        {"add_rms_norm", 2, {"x", "r"}, {"weight"}, [=](Rng& rng, S& body, S& ts, S& ti, S& de) {
             const double eps = pick(rng, std::vector<double>{1e-5, 1e-6});
             body = fill(rmsBody, {{"EPS", cudaFloat(eps)}, {"H", "(xr[j] + rr[j])"}});
             ts = "(x + r) * torch.rsqrt(torch.mean((x + r) * (x + r), 1, True) + " + pyFloat(eps) +
                  ") * weight";
             ti = "Residual add and RMS norm";
             de = "RMS normalisation of x + r over the last dimension with a weight (eps " +
                  pyFloat(eps) + ").";
         }});
    f.push_back({"add_layer_norm",
                 2,
                 {"x", "r"},
                 {"weight", "bias"},
                 [=](Rng& rng, S& body, S& ts, S& ti, S& de) {
                     const double eps = pick(rng, std::vector<double>{1e-5, 1e-6});
                     body = fill(statsBody, {{"EPS", cudaFloat(eps)}, {"H", "(xr[j] + rr[j])"}});
                     ts =
                         "torch.layer_norm(x + r, [x.size(1)], weight, bias, " + pyFloat(eps) + ")";
                     ti = "Residual add and layer norm";
                     de = "Layer normalisation of x + r over the last dimension (eps " +
                          pyFloat(eps) + ").";
                 }});
    return f;
}

SynthTask makeRowNormTask(const RowNormFamily& family, Rng& rng, int variant) {
    std::string body, ts, title, description;
    family.draw(rng, body, ts, title, description);
    body = fill(body, {{"H", "xr[j]"}});
    const RowShape shape = rowShape(rng);
    const int threads = pick(rng, std::vector<int>{128, 256, 512, 1024});
    SynthTask out;
    Task& task = out.task;
    task.name = family.name + "_v" + std::to_string(variant);
    task.title = title;
    task.level = family.level;
    task.family = family.name;
    task.description = description;
    task.seed = 4000 + static_cast<std::uint64_t>(variant);
    for (const auto& in : family.inputs)
        task.inputs.push_back(tensor(in, DType::Float32, {"B", "D"}, normal()));
    for (const auto& p : family.params)
        task.parameters.push_back(tensor(p, DType::Float32, {"D"},
                                         p == "weight" ? normal(1.0, 0.2) : uniform(-0.5, 0.5)));
    task.presets["small"] = shape.small;
    task.presets["bench"] = shape.bench;
    std::string signature;
    for (const auto& in : family.inputs)
        signature += (signature.empty() ? "" : ", ") + in + ": Tensor";
    for (const auto& p : family.params)
        signature += ", " + p + ": Tensor";
    task.reference = "def reference(" + signature + ") -> Tensor:\n    return " + ts + "\n";
    task.flops = "5 * B * D";
    task.tags = {"synthetic", "row"};
    std::string initBody, moduleExpr = ts, forwardArgs, inputsList;
    for (const auto& p : family.params) {
        initBody += "        self." + p + " = nn.Parameter(torch.randn(dim))\n";
        for (std::size_t at = moduleExpr.find(p); at != std::string::npos;
             at = moduleExpr.find(p, at + p.size() + 5))
            moduleExpr.replace(at, p.size(), "self." + p);
    }
    for (const auto& in : family.inputs) {
        forwardArgs += (forwardArgs.empty() ? "" : ", ") + in + ": torch.Tensor";
        inputsList += (inputsList.empty() ? "" : ", ") + std::string("torch.randn(B, D)");
    }
    task.pytorchModule =
        moduleText(description, family.params.empty() ? "" : ", dim: int", initBody,
                   forwardArgs + ") -> (torch.Tensor", "        return " + moduleExpr,
                   sizeConstants(shape.bench), inputsList, family.params.empty() ? "" : "D");

    const bool usesMax = body.find("block_max") != std::string::npos;
    std::ostringstream d;
    d << "#pragma dice device\n" << blockReduce("sum");
    if (usesMax)
        d << "\n" << blockReduce("max");
    d << "\nextern \"C\" __global__ void " << family.name << "_kernel(";
    for (const auto& in : family.inputs)
        d << "const float* __restrict__ " << in << ", ";
    for (const auto& p : family.params)
        d << "const float* __restrict__ " << p << ", ";
    d << "float* __restrict__ y, int d)\n{\n    __shared__ float shared[32];\n"
      << "    const long long offset = (long long)blockIdx.x * d;\n"
      << "    const float* xr = x + offset;\n";
    if (family.inputs.size() > 1)
        d << "    const float* rr = r + offset;\n";
    d << "    float* yr = y + offset;\n" << body << "}\n";
    std::ostringstream h;
    h << "#pragma dice host\ndef forward(" << signature << ") -> Tensor:\n";
    for (const auto& in : family.inputs)
        h << "    assert " << in << ".is_contiguous() and " << in << ".dim() == 2\n";
    h << "    y = torch.empty_like(x)\n"
      << "    dice.launch(\"" << family.name << "_kernel\", [x.size(0)], [" << threads << "], (";
    for (const auto& in : family.inputs)
        h << in << ", ";
    for (const auto& p : family.params)
        h << p << ", ";
    h << "y, x.size(1)))\n    return y\n";
    out.solution = d.str() + h.str();
    out.family = family.name;
    return out;
}

// ---------------------------------------------------------------------------------------------
// Scan: cumulative sum along rows, one block per row. Each thread sums a contiguous chunk, the
// block scans the chunk totals in shared memory, then each thread writes its chunk's prefix.

SynthTask makeScanTask(Rng& rng, int variant) {
    RowShape shape = rowShape(rng, 8192);
    const int threads = pick(rng, std::vector<int>{128, 256, 512});
    SynthTask out;
    Task& task = out.task;
    task.name = "cumsum_v" + std::to_string(variant);
    task.title = "Cumulative sum";
    task.level = 1;
    task.family = "cumsum";
    task.description = "Inclusive cumulative sum along each row of a 2-D tensor.";
    task.seed = 5000 + static_cast<std::uint64_t>(variant);
    task.inputs.push_back(tensor("x", DType::Float32, {"B", "D"}, normal()));
    task.presets["small"] = shape.small;
    task.presets["bench"] = shape.bench;
    task.reference = "def reference(x: Tensor) -> Tensor:\n    return torch.cumsum(x, 1)\n";
    task.flops = "B * D";
    // Sums of thousands of terms in another order differ by more than 1e-4 near zero.
    task.tolerances[DType::Float32] = Tolerance{1e-3, 1e-3};
    task.tags = {"synthetic", "scan"};
    task.pytorchModule = moduleText(task.description, "", "", "x: torch.Tensor) -> (torch.Tensor",
                                    "        return torch.cumsum(x, 1)", sizeConstants(shape.bench),
                                    "torch.randn(B, D)", "");
    out.solution = fill(R"(#pragma dice device
extern "C" __global__ void cumsum_kernel(const float* __restrict__ x, float* __restrict__ y, int d)
{
    __shared__ float totals[$T$];
    const int t = threadIdx.x;
    const long long offset = (long long)blockIdx.x * d;
    const int chunk = (d + $T$ - 1) / $T$;
    const int begin = min(d, t * chunk);
    const int end = min(d, begin + chunk);
    float s = 0.0f;
    for (int j = begin; j < end; ++j)
        s += x[offset + j];
    totals[t] = s;
    __syncthreads();
    for (int step = 1; step < $T$; step <<= 1) {
        const float add = t >= step ? totals[t - step] : 0.0f;
        __syncthreads();
        totals[t] += add;
        __syncthreads();
    }
    float running = t > 0 ? totals[t - 1] : 0.0f;
    for (int j = begin; j < end; ++j) {
        running += x[offset + j];
        y[offset + j] = running;
    }
}
#pragma dice host
def forward(x: Tensor) -> Tensor:
    assert x.is_contiguous() and x.dim() == 2
    y = torch.empty_like(x)
    dice.launch("cumsum_kernel", [x.size(0)], [$T$], (x, y, x.size(1)))
    return y
)",
                        {{"T", std::to_string(threads)}});
    out.family = "cumsum";
    return out;
}

// Depthwise convolution (one K x K filter per channel, stride 1) of a [B, C, H, W] tensor, with
// zero padding of 0 or K / 2 and a bias per channel: one thread per output element.
SynthTask makeDepthwiseConvTask(Rng& rng, int variant) {
    const int k = pick(rng, std::vector<int>{3, 5});
    const int pad = rng() % 2 == 0 ? 0 : k / 2;
    const int threads = pick(rng, std::vector<int>{128, 256, 512});
    SynthTask out;
    Task& task = out.task;
    task.name = "depthwise_conv2d_v" + std::to_string(variant);
    task.title = "Depthwise convolution " + std::to_string(k) + "x" + std::to_string(k) +
                 (pad ? ", padding " + std::to_string(pad) : std::string());
    task.level = 1;
    task.family = "depthwise_conv2d";
    task.description = "Each channel of x [B, C, H, W] convolved with its own " +
                       std::to_string(k) + "x" + std::to_string(k) + " filter (stride 1, " +
                       (pad ? "zero padding " + std::to_string(pad) : std::string("no padding")) +
                       "), plus the channel's bias.";
    task.seed = 7500 + static_cast<std::uint64_t>(variant);
    InitSpec fanIn;
    fanIn.kind = InitSpec::Kind::UniformFanIn;
    fanIn.fanIn = std::to_string(k * k);
    task.inputs.push_back(tensor("x", DType::Float32, {"B", "C", "H", "W"}, normal()));
    task.parameters.push_back(
        tensor("weight", DType::Float32, {"C", "1", std::to_string(k), std::to_string(k)}, fanIn));
    task.parameters.push_back(tensor("bias", DType::Float32, {"C"}, fanIn));
    const ImageShape shape = imageShape(rng, {56, 112, 128}, {32, 64, 128});
    task.presets["small"] = shape.small;
    task.presets["bench"] = shape.bench;
    const std::string padding = std::to_string(pad);
    task.reference = "def reference(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:\n"
                     "    return torch.conv2d(x, weight, bias, [1, 1], [" +
                     padding + ", " + padding + "], [1, 1], x.size(1))\n";
    task.flops = "2 * B * C * H * W * " + std::to_string(k * k);
    task.tags = {"synthetic", "conv"};
    task.pytorchModule =
        moduleText(task.description, ", channels: int",
                   "        self.channels = channels\n"
                   "        self.weight = nn.Parameter(torch.randn(channels, 1, " +
                       std::to_string(k) + ", " + std::to_string(k) + ") / " + std::to_string(k) +
                       ")\n"
                       "        self.bias = nn.Parameter(torch.randn(channels) * 0.1)\n",
                   "x: torch.Tensor) -> (torch.Tensor",
                   "        return torch.nn.functional.conv2d(x, self.weight, self.bias, 1, " +
                       padding + ", 1, self.channels)",
                   sizeConstants(task.presets["bench"]), "torch.randn(B, C, H, W)", "C");
    out.solution = fill(R"(#pragma dice device
extern "C" __global__ void depthwise_conv2d_kernel(const float* __restrict__ x,
                                                   const float* __restrict__ w,
                                                   const float* __restrict__ bias,
                                                   float* __restrict__ y, int c, int h, int wd,
                                                   int ho, int wo, long long total)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    const int ox = (int)(i % wo);
    const int oy = (int)((i / wo) % ho);
    const long long plane = i / ((long long)wo * ho);
    const int ch = (int)(plane % c);
    const float* p = x + plane * h * wd;
    const float* f = w + ch * $K$ * $K$;
    float acc = bias[ch];
    for (int dy = 0; dy < $K$; ++dy) {
        const int iy = oy + dy - $P$;
        if (iy < 0 || iy >= h)
            continue;
        for (int dx = 0; dx < $K$; ++dx) {
            const int ix = ox + dx - $P$;
            if (ix >= 0 && ix < wd)
                acc += p[(long long)iy * wd + ix] * f[dy * $K$ + dx];
        }
    }
    y[i] = acc;
}
#pragma dice host
def forward(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    assert x.is_contiguous() and weight.is_contiguous() and x.dim() == 4
    assert weight.size(0) == x.size(1) and bias.numel() == x.size(1)
    ho = x.size(2) + 2 * $P$ - $K$ + 1
    wo = x.size(3) + 2 * $P$ - $K$ + 1
    y = torch.empty([x.size(0), x.size(1), ho, wo], dtype=x.dtype, device=x.device)
    total = y.numel()
    dice.launch("depthwise_conv2d_kernel", [(total + $T$ - 1) // $T$], [$T$],
                (x, weight, bias, y, x.size(1), x.size(2), x.size(3), ho, wo, total))
    return y
)",
                        {{"K", std::to_string(k)}, {"P", padding}, {"T", std::to_string(threads)}});
    out.family = "depthwise_conv2d";
    return out;
}

// A reduction over the middle dimension of x [B, D1, D2] (what torch.sum(x, 1) and the like
// compute): one thread per output element walks its column of D1 values, neighbouring threads
// reading neighbouring addresses.
SynthTask makeDimReduceTask(Rng& rng, int variant) {
    struct Op {
        std::string name, words, ts, init, combine, finish;
        bool index;
    };
    static const std::vector<Op> ops = {
        {"sum", "sum", "torch.sum(x, 1)", "0.0f", "acc += v;", "acc", false},
        {"mean", "mean", "torch.mean(x, 1)", "0.0f", "acc += v;", "acc / (float)d1", false},
        {"max", "maximum", "torch.amax(x, [1])", "__int_as_float(0xff800000)",
         "acc = fmaxf(acc, v);", "acc", false},
        {"min", "minimum", "torch.amin(x, [1])", "__int_as_float(0x7f800000)",
         "acc = fminf(acc, v);", "acc", false},
        {"argmax", "index of the first maximum", "torch.argmax(x, 1)", "__int_as_float(0xff800000)",
         "if (v > acc) {\n            acc = v;\n            best = k;\n        }", "best", true},
        {"argmin", "index of the first minimum", "torch.argmin(x, 1)", "__int_as_float(0x7f800000)",
         "if (v < acc) {\n            acc = v;\n            best = k;\n        }", "best", true},
    };
    const Op& op = pick(rng, ops);
    const int threads = pick(rng, std::vector<int>{128, 256, 512});
    SynthTask out;
    Task& task = out.task;
    task.name = "dim_reduce_v" + std::to_string(variant);
    task.title = "Reduction over a dimension: " + op.name;
    task.level = 1;
    task.family = "dim_reduce";
    task.description = "The " + op.words +
                       " of x [B, D1, D2] over its middle dimension: out[b, j] "
                       "reduces x[b, :, j].";
    task.seed = 8000 + static_cast<std::uint64_t>(variant);
    task.inputs.push_back(tensor("x", DType::Float32, {"B", "D1", "D2"}, normal()));
    task.presets["small"] = {
        {"B", pickInt(rng, 2, 5)}, {"D1", pickInt(rng, 3, 300)}, {"D2", pickInt(rng, 3, 300)}};
    const std::int64_t d1 = pick(rng, std::vector<std::int64_t>{256, 1024, 4096});
    const std::int64_t d2 = pick(rng, std::vector<std::int64_t>{255, 1024, 4095});
    task.presets["bench"] = {{"B", std::max<std::int64_t>(1, (std::int64_t{1} << 26) / (d1 * d2))},
                             {"D1", d1},
                             {"D2", d2}};
    task.reference = "def reference(x: Tensor) -> Tensor:\n    return " + op.ts + "\n";
    task.flops = "B * D1 * D2";
    // Sums of thousands of terms in another order differ by more than 1e-4 near zero.
    if (op.name == "sum")
        task.tolerances[DType::Float32] = Tolerance{1e-3, 1e-3};
    task.tags = {"synthetic", "dim_reduction"};
    task.pytorchModule = moduleText(task.description, "", "", "x: torch.Tensor) -> (torch.Tensor",
                                    "        return " + op.ts, sizeConstants(task.presets["bench"]),
                                    "torch.randn(B, D1, D2)", "");
    out.solution =
        fill(R"(#pragma dice device
extern "C" __global__ void dim_reduce_kernel(const float* __restrict__ x, $OUT$* __restrict__ y,
                                             int d1, int d2, long long total)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    const long long b = i / d2;
    const int j = (int)(i % d2);
    const float* p = x + b * d1 * d2 + j;
    float acc = $INIT$;
$BEST$    for (int k = 0; k < d1; ++k) {
        const float v = p[(long long)k * d2];
        $COMBINE$
    }
    y[i] = $FINISH$;
}
#pragma dice host
def forward(x: Tensor) -> Tensor:
    assert x.is_contiguous() and x.dim() == 3
$EMPTY$    total = out.numel()
    dice.launch("dim_reduce_kernel", [(total + $T$ - 1) // $T$], [$T$],
                (x, out, x.size(1), x.size(2), total))
    return out
)",
             {{"OUT", op.index ? "long long" : "float"},
              {"INIT", op.init},
              {"BEST", op.index ? "    long long best = 0;\n" : ""},
              {"COMBINE", op.combine},
              {"FINISH", op.finish},
              {"EMPTY", op.index ? "    # dtype 4 is torch.int64: the host compiler resolves no "
                                   "dtype names.\n"
                                   "    out = torch.empty([x.size(0), x.size(2)], dtype=4, "
                                   "device=x.device)\n"
                                 : "    out = torch.empty([x.size(0), x.size(2)], "
                                   "dtype=x.dtype, device=x.device)\n"},
              {"T", std::to_string(threads)}});
    out.family = "dim_reduce";
    return out;
}

// Pooling over square windows of a [B, C, H, W] tensor with no padding: one thread per output
// element, the window's size and stride baked into the kernel.
SynthTask makePoolTask(bool maximum, Rng& rng, int variant) {
    const int k = pickInt(rng, 2, 3);
    const int stride = pickInt(rng, 1, k);
    const int threads = pick(rng, std::vector<int>{128, 256, 512});
    const std::string family = maximum ? "max_pool2d" : "avg_pool2d";
    const std::string op = maximum ? "max_pool2d" : "avg_pool2d";
    const std::string sizes = "[" + std::to_string(k) + ", " + std::to_string(k) + "], [" +
                              std::to_string(stride) + ", " + std::to_string(stride) + "]";
    SynthTask out;
    Task& task = out.task;
    task.name = family + "_v" + std::to_string(variant);
    task.title = std::string(maximum ? "Max" : "Average") + " pooling " + std::to_string(k) + "x" +
                 std::to_string(k) + ", stride " + std::to_string(stride);
    task.level = 1;
    task.family = family;
    task.description = std::string(maximum ? "Maximum" : "Mean") + " over each " +
                       std::to_string(k) + "x" + std::to_string(k) +
                       " window of every channel of x [B, C, H, W], windows " +
                       std::to_string(stride) + " apart, no padding.";
    task.seed = 7000 + static_cast<std::uint64_t>(variant);
    task.inputs.push_back(tensor("x", DType::Float32, {"B", "C", "H", "W"}, normal()));
    const ImageShape shape = imageShape(rng, {64, 112, 128, 256}, {16, 32, 64});
    task.presets["small"] = shape.small;
    task.presets["bench"] = shape.bench;
    task.reference =
        "def reference(x: Tensor) -> Tensor:\n    return torch." + op + "(x, " + sizes + ")\n";
    task.flops = "B * C * H * W";
    task.tags = {"synthetic", "pool"};
    task.pytorchModule =
        moduleText(task.description, "", "", "x: torch.Tensor) -> (torch.Tensor",
                   "        return torch.nn.functional." + op + "(x, " + sizes + ")",
                   sizeConstants(task.presets["bench"]), "torch.randn(B, C, H, W)", "");
    const std::string window = maximum ? "            acc = fmaxf(acc, p[dy * w + dx]);\n"
                                       : "            acc += p[dy * w + dx];\n";
    out.solution =
        fill(R"(#pragma dice device
extern "C" __global__ void $NAME$_kernel(const float* __restrict__ x, float* __restrict__ y, int h,
                                         int w, int ho, int wo, long long total)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    const int ox = (int)(i % wo);
    const int oy = (int)((i / wo) % ho);
    const long long plane = i / ((long long)wo * ho);
    const float* p = x + plane * h * w + (long long)(oy * $S$) * w + ox * $S$;
    float acc = $INIT$;
    for (int dy = 0; dy < $K$; ++dy)
        for (int dx = 0; dx < $K$; ++dx)
$WINDOW$    y[i] = $FINISH$;
}
#pragma dice host
def forward(x: Tensor) -> Tensor:
    assert x.is_contiguous() and x.dim() == 4
    ho = (x.size(2) - $K$) // $S$ + 1
    wo = (x.size(3) - $K$) // $S$ + 1
    y = torch.empty([x.size(0), x.size(1), ho, wo], dtype=x.dtype, device=x.device)
    total = y.numel()
    dice.launch("$NAME$_kernel", [(total + $T$ - 1) // $T$], [$T$],
                (x, y, x.size(2), x.size(3), ho, wo, total))
    return y
)",
             {{"NAME", family},
              {"K", std::to_string(k)},
              {"S", std::to_string(stride)},
              {"T", std::to_string(threads)},
              {"INIT", maximum ? "__int_as_float(0xff800000)" : "0.0f"},
              {"WINDOW", window},
              {"FINISH", maximum ? "acc" : "acc * (1.0f / " + std::to_string(k * k) + ".0f)"}});
    out.family = family;
    return out;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Row chains: fusions drawn as a chain of stages over the rows of x [B, D]: an elementwise map,
// a row-wide stage (softmax, log-softmax, RMS norm, layer norm, L2 normalisation, centring), and
// another elementwise map, in one kernel with one block per row.

// A chain of 0 to `most` trained unary primitives around "$X$" (the operand), for CUDA and
// TorchScript.
std::pair<std::string, std::string> drawUnaryChain(Rng& rng, int least, int most) {
    static const std::vector<std::string> names = {"relu", "tanh", "sigmoid", "abs",  "square",
                                                   "neg",  "erf",  "scale",   "shift"};
    std::string cuda = "$X$", ts = "$X$";
    const int count = pickInt(rng, least, most);
    for (int k = 0; k < count; ++k) {
        const std::string& name = pick(rng, names);
        const Primitive& p = *std::find_if(primitives().begin(), primitives().end(),
                                           [&](const Primitive& q) { return q.name == name; });
        std::map<std::string, std::string> c = {{"A", cuda}}, t = {{"A", ts}};
        if (p.cuda.find("$C$") != std::string::npos) {
            const double v = name == "scale" ? pick(rng, std::vector<double>{0.5, 2.0, -1.5, 0.25})
                                             : pick(rng, std::vector<double>{1.0, -0.5, 0.25});
            c["C"] = cudaFloat(v);
            t["C"] = pyFloat(v);
        }
        cuda = fill(p.cuda, c);
        ts = fill(p.ts, t);
    }
    return {cuda, ts};
}

struct RowStage {
    std::string name;
    std::string words;
    std::vector<std::string> reductions; // block reductions the body uses
    std::string body;                    // reads p(j) = pre(row[j]), writes o[j] = post(...)
    std::string ts;                      // of y
};

// The row's maximum m and sum s of exp(y - m), which softmax and log-softmax finish from.
const char* const kRowSoftmaxStatistics = R"(    float m = __int_as_float(0xff800000);
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        m = fmaxf(m, pre(row[j]));
    m = block_max(m, shared);
    float s = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        s += expf(pre(row[j]) - m);
    s = block_sum(s, shared);
)";

// The row's sum of squares s, which RMS norm and L2 normalisation finish from.
const char* const kRowSumOfSquares = R"(    float s = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x) {
        const float v = pre(row[j]);
        s += v * v;
    }
)";

const std::vector<RowStage>& rowStages() {
    static const std::vector<RowStage> list = {
        {"softmax",
         "softmax",
         {"max", "sum"},
         std::string(kRowSoftmaxStatistics) +
             R"(    for (int j = threadIdx.x; j < d; j += blockDim.x)
        o[j] = post(expf(pre(row[j]) - m) / s);
)",
         "torch.softmax(y, 1)"},
        {"log_softmax",
         "log-softmax",
         {"max", "sum"},
         std::string(kRowSoftmaxStatistics) +
             R"(    const float shift = m + logf(s);
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        o[j] = post(pre(row[j]) - shift);
)",
         "torch.log_softmax(y, 1)"},
        {"rms_norm",
         "RMS normalisation",
         {"sum"},
         std::string(kRowSumOfSquares) +
             R"(    s = block_sum(s, shared);
    const float r = rsqrtf(s / (float)d + 1e-6f);
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        o[j] = post(pre(row[j]) * r);
)",
         "y * torch.rsqrt(torch.mean(y * y, 1, True) + 1e-6)"},
        {"layer_norm",
         "layer normalisation",
         {"sum"},
         R"(    float s = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        s += pre(row[j]);
    const float mean = block_sum(s, shared) / (float)d;
    float q = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x) {
        const float c = pre(row[j]) - mean;
        q += c * c;
    }
    const float r = rsqrtf(block_sum(q, shared) / (float)d + 1e-5f);
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        o[j] = post((pre(row[j]) - mean) * r);
)",
         "torch.layer_norm(y, [y.size(1)], None, None, 1e-5)"},
        {"l2_normalize",
         "L2 normalisation",
         {"sum"},
         std::string(kRowSumOfSquares) +
             R"(    const float n = fmaxf(sqrtf(block_sum(s, shared)), 1e-12f);
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        o[j] = post(pre(row[j]) / n);
)",
         "y / torch.clamp(torch.sqrt(torch.sum(y * y, 1, True)), 1e-12)"},
        {"center",
         "centring (the row's mean subtracted)",
         {"sum"},
         R"(    float s = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        s += pre(row[j]);
    const float mean = block_sum(s, shared) / (float)d;
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        o[j] = post(pre(row[j]) - mean);
)",
         "y - torch.mean(y, 1, True)"},
    };
    return list;
}

// `__device__ float NAME(float v)` returning the CUDA expression over $X$ at v.
std::string deviceMap(const std::string& name, const std::string& cuda) {
    return "__device__ __forceinline__ float " + name + "(float v)\n{\n    return " +
           fill(cuda, {{"X", "v"}}) + ";\n}\n\n";
}

// A kernel of one block per row of x [rows, d] that writes the row stage of pre(x) to out.
std::string rowStageKernel(const std::string& name, const RowStage& stage) {
    return "extern \"C\" __global__ void " + name +
           "(const float* __restrict__ x, float* __restrict__ out, int d)\n{\n"
           "    __shared__ float shared[32];\n"
           "    const float* row = x + (long long)blockIdx.x * d;\n"
           "    float* o = out + (long long)blockIdx.x * d;\n" +
           stage.body + "}\n";
}

SynthTask makeRowChainTask(Rng& rng, int variant) {
    const auto [preCuda, preTs] = drawUnaryChain(rng, 1, 2);
    const RowStage& stage = pick(rng, rowStages());
    const auto [postCuda, postTs] = drawUnaryChain(rng, 0, 1);
    const RowShape shape = rowShape(rng);
    const int threads = pick(rng, std::vector<int>{128, 256, 512});
    const std::string pre = fill(preTs, {{"X", "x"}});
    const std::string post = fill(postTs, {{"X", "z"}});

    SynthTask out;
    Task& task = out.task;
    task.name = "row_chain_v" + std::to_string(variant);
    task.title = "Row chain: map, " + stage.words + ", map";
    task.level = 2;
    task.family = "row_chain";
    task.description = "For each row of x: y = " + pre + ", then z, the " + stage.words +
                       " of y over the row" + (post == "z" ? "" : ", then " + post) + ".";
    task.seed = 5000 + static_cast<std::uint64_t>(variant);
    task.inputs.push_back(tensor("x", DType::Float32, {"B", "D"}, normal()));
    task.presets["small"] = shape.small;
    task.presets["bench"] = shape.bench;
    const std::string body = "y = " + pre + "\n    z = " + stage.ts + "\n    return " + post;
    task.reference = "def reference(x: Tensor) -> Tensor:\n    " + body + "\n";
    task.flops = "B * D";
    task.tags = {"synthetic", "row_chain"};
    task.pytorchModule =
        moduleText(task.description, "", "", "x: torch.Tensor) -> (torch.Tensor",
                   "        y = " + pre + "\n        z = " + stage.ts + "\n        return " + post,
                   sizeConstants(shape.bench), "torch.randn(B, D)", "");
    std::ostringstream d;
    d << "#pragma dice device\n";
    for (const auto& op : stage.reductions)
        d << blockReduce(op) << "\n";
    d << deviceMap("pre", preCuda) << deviceMap("post", postCuda)
      << rowStageKernel("row_chain_kernel", stage);
    std::ostringstream h;
    h << "#pragma dice host\ndef forward(x: Tensor) -> Tensor:\n"
      << "    assert x.is_contiguous() and x.dim() == 2\n"
      << "    out = torch.empty_like(x)\n"
      << "    dice.launch(\"row_chain_kernel\", [x.size(0)], [" << threads
      << "], (x, out, x.size(1)))\n    return out\n";
    out.solution = d.str() + h.str();
    out.family = "row_chain";
    return out;
}

// A matrix product's epilogue chain: y = x @ W^T + b, a map over y fused into the product's store
// and, in about half the variants, a row stage over y's rows in a second kernel. The product is
// the plain 16 x 16 shared-memory tiling a small model can write whole, which is far from cuBLAS
// on large products: the bench sizes (at most 256 each way) are those where the launches the
// fusion saves weigh most, so that curation against eager PyTorch may keep some.
SynthTask makeLinearChainTask(Rng& rng, int variant) {
    const auto [mapCuda, mapTs] = drawUnaryChain(rng, 1, 2);
    const bool rows = rng() % 2 == 0;
    const RowStage& stage = pick(rng, rowStages());
    const auto [postCuda, postTs] = drawUnaryChain(rng, 0, 1);
    const int threads = pick(rng, std::vector<int>{64, 128, 256});
    const std::string map = fill(mapTs, {{"X", "y"}});
    const std::string post = fill(postTs, {{"X", "z"}});

    SynthTask out;
    Task& task = out.task;
    task.name = "linear_chain_v" + std::to_string(variant);
    task.title = rows ? "Linear, map, " + stage.words + ", map" : "Linear and map";
    task.level = 2;
    task.family = "linear_chain";
    task.description = "y = x @ W^T + b, then y = " + map +
                       (rows ? ", then z, the " + stage.words + " of y over each row" +
                                   (post == "z" ? "" : ", then " + post)
                             : "") +
                       ".";
    task.seed = 6000 + static_cast<std::uint64_t>(variant);
    InitSpec fanIn;
    fanIn.kind = InitSpec::Kind::UniformFanIn;
    fanIn.fanIn = "K";
    task.inputs.push_back(tensor("x", DType::Float32, {"M", "K"}, normal()));
    task.parameters.push_back(tensor("weight", DType::Float32, {"N", "K"}, fanIn));
    task.parameters.push_back(tensor("bias", DType::Float32, {"N"}, fanIn));
    task.presets["small"] = {
        {"M", pickInt(rng, 3, 70)}, {"K", pickInt(rng, 5, 300)}, {"N", pickInt(rng, 3, 200)}};
    task.presets["bench"] = {{"M", pick(rng, std::vector<std::int64_t>{64, 128, 256})},
                             {"K", pick(rng, std::vector<std::int64_t>{64, 128, 256})},
                             {"N", pick(rng, std::vector<std::int64_t>{64, 128, 256})}};
    std::string body = "y = torch.linear(x, weight, bias)\n    y = " + map;
    if (rows)
        body += "\n    z = " + stage.ts + "\n    return " + post;
    else
        body += "\n    return y";
    task.reference =
        "def reference(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:\n    " + body + "\n";
    task.flops = "2 * M * N * K";
    task.tags = {"synthetic", "matmul", "epilogue"};
    std::string forward = "        y = torch.nn.functional.linear(x, self.weight, self.bias)\n"
                          "        y = " +
                          map;
    if (rows)
        forward += "\n        z = " + stage.ts + "\n        return " + post;
    else
        forward += "\n        return y";
    task.pytorchModule =
        moduleText(task.description, ", in_features: int, out_features: int",
                   "        self.weight = nn.Parameter(torch.randn(out_features, in_features) / "
                   "in_features ** 0.5)\n"
                   "        self.bias = nn.Parameter(torch.randn(out_features) * 0.1)\n",
                   "x: torch.Tensor) -> (torch.Tensor", forward,
                   sizeConstants(task.presets["bench"]), "torch.randn(M, K)", "K, N");

    std::ostringstream d;
    d << "#pragma dice device\n";
    if (rows)
        for (const auto& op : stage.reductions)
            d << blockReduce(op) << "\n";
    d << deviceMap("epilogue", mapCuda);
    if (rows)
        d << deviceMap("pre", "$X$") << deviceMap("post", postCuda);
    d << "extern \"C\" __global__ void linear_chain_gemm(const float* __restrict__ x, "
         "const float* __restrict__ w,\n"
         "                                  const float* __restrict__ bias, "
         "float* __restrict__ y, int m, int n, int k)\n{\n"
         "    __shared__ float xs[16][17];\n"
         "    __shared__ float ws[16][17];\n"
         "    const int row = blockIdx.y * 16 + threadIdx.y;\n"
         "    const int col = blockIdx.x * 16 + threadIdx.x;\n"
         "    const int wrow = blockIdx.x * 16 + threadIdx.y;\n"
         "    float acc = 0.0f;\n"
         "    for (int t = 0; t < k; t += 16) {\n"
         "        const int kk = t + threadIdx.x;\n"
         "        xs[threadIdx.y][threadIdx.x] = row < m && kk < k ? x[(long long)row * k + kk] "
         ": 0.0f;\n"
         "        ws[threadIdx.y][threadIdx.x] = wrow < n && kk < k ? w[(long long)wrow * k + kk] "
         ": 0.0f;\n"
         "        __syncthreads();\n"
         "        for (int i = 0; i < 16; ++i)\n"
         "            acc += xs[threadIdx.y][i] * ws[threadIdx.x][i];\n"
         "        __syncthreads();\n"
         "    }\n"
         "    if (row < m && col < n)\n"
         "        y[(long long)row * n + col] = epilogue(acc + bias[col]);\n"
         "}\n";
    if (rows)
        d << "\n" << rowStageKernel("linear_chain_rows", stage);
    std::ostringstream h;
    h << "#pragma dice host\n"
         "def forward(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:\n"
         "    assert x.is_contiguous() and weight.is_contiguous() and x.dim() == 2\n"
         "    m = x.size(0)\n"
         "    n = weight.size(0)\n"
         "    assert weight.size(1) == x.size(1) and bias.numel() == n\n"
         "    y = torch.empty([m, n], dtype=x.dtype, device=x.device)\n"
         "    dice.launch(\"linear_chain_gemm\", [(n + 15) // 16, (m + 15) // 16], [16, 16],\n"
         "                (x, weight, bias, y, m, n, x.size(1)))\n";
    if (rows)
        h << "    out = torch.empty_like(y)\n"
          << "    dice.launch(\"linear_chain_rows\", [m], [" << threads << "], (y, out, n))\n"
          << "    return out\n";
    else
        h << "    return y\n";
    out.solution = d.str() + h.str();
    out.family = "linear_chain";
    return out;
}

std::vector<FamilyInfo> synthFamilies() {
    std::vector<FamilyInfo> out;
    for (const auto& f : mapFamilies())
        out.push_back({f.name, f.level, "map"});
    for (const auto& f : rowMapFamilies())
        out.push_back({f.name, f.level, "row_map"});
    for (const auto& f : rowReduceFamilies())
        out.push_back({f.name, 1, "row_reduce"});
    for (const auto& f : rowNormFamilies())
        out.push_back({f.name, f.level, "row_norm"});
    out.push_back({"cumsum", 1, "scan"});
    out.push_back({"max_pool2d", 1, "pool"});
    out.push_back({"avg_pool2d", 1, "pool"});
    out.push_back({"depthwise_conv2d", 1, "conv"});
    out.push_back({"dim_reduce", 1, "dim_reduce"});
    for (const auto& f : treeFamilies())
        out.push_back({f.name, 2, "map"});
    out.push_back({"row_chain", 2, "row_chain"});
    out.push_back({"linear_chain", 2, "linear_chain"});
    return out;
}

int treeVariantCount(const SynthOptions& options) {
    return options.treeVariants > 0 ? options.treeVariants : options.variantsPerFamily;
}

std::vector<std::string> defaultHeldOutFamilies() {
    // One of each kind: an activation, a binary map, a fusion, a reduction, a normalisation.
    return {"softsign", "minimum", "mul_add", "row_min", "add_layer_norm"};
}

std::vector<SynthTask> synthesizeTasks(const SynthOptions& options) {
    const auto families = synthFamilies();
    std::set<std::string> known;
    for (const auto& f : families)
        known.insert(f.name);
    const auto heldOut =
        options.heldOutFamilies.empty() ? defaultHeldOutFamilies() : options.heldOutFamilies;
    for (const auto& name : heldOut)
        if (!known.count(name))
            throw Error("unknown family \"" + name + "\" among the held-out families");
    for (const auto& name : options.families)
        if (!known.count(name))
            throw Error("unknown family \"" + name + "\" among the families asked for");
    const std::set<std::string> wanted(options.families.begin(), options.families.end());
    const std::set<std::string> heldOutSet(heldOut.begin(), heldOut.end());
    if (options.variantsPerFamily < 1 || options.variantsPerFamily > 10000)
        throw Error("variants per family must be between 1 and 10000");
    if (options.treeVariants < 0 || options.treeVariants > 10000)
        throw Error("expression-tree variants must be between 0 and 10000");
    const int treeVariants = treeVariantCount(options);

    std::vector<SynthTask> out;
    // A family whose tasks choose their own split (the expression trees) keeps it unless the
    // whole family is held out.
    auto emit = [&](const std::string& family, const std::function<SynthTask(Rng&, int)>& make,
                    bool ownSplit = false, int variants = 0) {
        if (variants == 0)
            variants = options.variantsPerFamily;
        if (!wanted.empty() && !wanted.count(family))
            return;
        // Each family draws from its own stream, so adding a family changes no other's tasks.
        Rng rng(options.seed * 1000003ULL + std::hash<std::string>{}(family));
        const int heldOutVariants =
            heldOutSet.count(family)
                ? 0
                : static_cast<int>(variants * options.heldOutVariantShare + 0.5);
        for (int v = 0; v < variants; ++v) {
            SynthTask t = make(rng, v);
            if (heldOutSet.count(family))
                t.split = CorpusSplit::HeldOutFamily;
            else if (!ownSplit && v >= variants - heldOutVariants)
                t.split = CorpusSplit::HeldOutVariant;
            out.push_back(std::move(t));
        }
    };
    for (const auto& f : mapFamilies())
        emit(f.name, [&](Rng& rng, int v) { return makeMapTask(f, rng, v); });
    for (const auto& f : rowMapFamilies())
        emit(f.name, [&](Rng& rng, int v) { return makeRowMapTask(f, rng, v); });
    for (const auto& f : rowReduceFamilies())
        emit(f.name, [&](Rng& rng, int v) { return makeRowReduceTask(f, rng, v); });
    for (const auto& f : rowNormFamilies())
        emit(f.name, [&](Rng& rng, int v) { return makeRowNormTask(f, rng, v); });
    emit("cumsum", [&](Rng& rng, int v) { return makeScanTask(rng, v); });
    emit("max_pool2d", [&](Rng& rng, int v) { return makePoolTask(true, rng, v); });
    emit("avg_pool2d", [&](Rng& rng, int v) { return makePoolTask(false, rng, v); });
    emit("depthwise_conv2d", [&](Rng& rng, int v) { return makeDepthwiseConvTask(rng, v); });
    emit("dim_reduce", [&](Rng& rng, int v) { return makeDimReduceTask(rng, v); });
    emit("row_chain", [&](Rng& rng, int v) { return makeRowChainTask(rng, v); });
    emit("linear_chain", [&](Rng& rng, int v) { return makeLinearChainTask(rng, v); });
    for (const auto& f : treeFamilies())
        emit(
            f.name,
            [&](Rng& rng, int v) {
                return makeTreeTask(f, rng, v, plannedTreeSplit(v, treeVariants));
            },
            true, treeVariants);
    return out;
}

} // namespace dice
