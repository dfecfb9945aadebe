// SPDX-License-Identifier: GPL-3.0-or-later
// The model's fused attention kernels without a GPU: their CUDA source, compiled by the host
// compiler beside a small emulation of a block's threads (each a std::thread; __syncthreads and
// the warp shuffles are barriers), run on random float32 inputs and compared with LibTorch's
// masked attention, the computation they replace. A row's result must not depend on the batch.
#include <torch/torch.h>

#include "core/model/decode_kernels.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace {

// Everything the kernels' source needs from CUDA, on the host.
const char* const kEmulation = R"(#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

struct dim3 { unsigned x = 1, y = 1, z = 1; };
struct uint4 { unsigned x, y, z, w; };
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return {a, b, c, d}; }
static thread_local dim3 threadIdx;
static dim3 blockIdx, blockDim, gridDim;
static std::unique_ptr<std::barrier<>> g_block;
static std::vector<std::unique_ptr<std::barrier<>>> g_warps;
static float g_lanes[1024];
static std::vector<uint4> g_dynamic;
inline void __syncthreads() { g_block->arrive_and_wait(); }
inline float __shfl_xor_sync(unsigned, float v, int offset) {
    const unsigned t = threadIdx.x;
    g_lanes[t] = v;
    g_warps[t / 32]->arrive_and_wait();
    const float r = g_lanes[(t & ~31u) | ((t & 31u) ^ static_cast<unsigned>(offset))];
    g_warps[t / 32]->arrive_and_wait();
    return r;
}
inline float __int_as_float(unsigned v) { float f; std::memcpy(&f, &v, 4); return f; }
inline float rsqrtf(float v) { return 1.0f / std::sqrt(v); }
using std::max;
using std::min;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __shared__ static
)";

const char* const kDriver = R"(
template <typename F>
void launch(dim3 grid, unsigned threads, F kernel) {
    gridDim = grid;
    blockDim = {threads, 1, 1};
    for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
            for (unsigned x = 0; x < grid.x; ++x) {
                blockIdx = {x, y, z};
                g_block = std::make_unique<std::barrier<>>(threads);
                g_warps.clear();
                for (unsigned w = 0; w < threads / 32; ++w)
                    g_warps.push_back(std::make_unique<std::barrier<>>(32));
                std::vector<std::thread> team;
                for (unsigned t = 0; t < threads; ++t)
                    team.emplace_back([&, t] {
                        threadIdx = {t, 1, 1};
                        kernel();
                    });
                for (auto& member : team)
                    member.join();
            }
}

template <typename T>
std::vector<T> readAll(std::ifstream& in, std::size_t count) {
    std::vector<T> v(count);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(T)));
    return v;
}

// argv: input output rows kv_heads heads block capacity span
int main(int argc, char** argv) {
    if (argc != 9)
        return 2;
    const int rows = std::atoi(argv[3]), kvHeads = std::atoi(argv[4]), heads = std::atoi(argv[5]),
              block = std::atoi(argv[6]), span = std::atoi(argv[8]);
    const long long capacity = std::atoll(argv[7]);
    const int dim = DICE_HEAD_DIM, queries = block * (heads / kvHeads);
    std::ifstream in(argv[1], std::ios::binary);
    const auto starts = readAll<long long>(in, rows);
    const auto query = readAll<float>(in, std::size_t(rows) * kvHeads * queries * dim);
    const auto cacheK = readAll<float>(in, std::size_t(rows) * kvHeads * capacity * dim);
    const auto cacheV = readAll<float>(in, std::size_t(rows) * kvHeads * capacity * dim);
    if (!in)
        return 3;
    const int chunks = (span + kAttendChunk - 1) / kAttendChunk;
    std::vector<float> partial(std::size_t(rows) * kvHeads * chunks * queries * (dim + 2));
    std::vector<float> out(std::size_t(rows) * block * heads * dim);
    const std::size_t shared = 2 * kAttendChunk * dim * sizeof(float) +
                               std::size_t(queries) * (dim + kAttendChunk) * sizeof(float);
    g_dynamic.assign(shared / sizeof(uint4) + 1, uint4{});
    launch({unsigned(chunks), unsigned(kvHeads), unsigned(rows)}, kAttendThreads, [&] {
        attend_chunk(query.data(), cacheK.data(), cacheV.data(), starts.data(), partial.data(),
                     queries, block, kvHeads, capacity, span, 1.0f / std::sqrt(float(dim)));
    });
    launch({unsigned(rows * kvHeads * queries), 1, 1}, (dim + 31) / 32 * 32, [&] {
        attend_combine(partial.data(), out.data(), chunks, queries, block, heads, kvHeads, dim);
    });
    std::ofstream(argv[2], std::ios::binary)
        .write(reinterpret_cast<const char*>(out.data()),
               static_cast<std::streamsize>(out.size() * sizeof(float)));
    return 0;
}
)";

constexpr int kDim = 16;
constexpr int kKvHeads = 2;
constexpr int kHeads = 4;
constexpr int kBlock = 4;
constexpr std::int64_t kCapacity = 80;

struct Inputs {
    torch::Tensor starts; // int64 [rows]
    torch::Tensor query;  // [rows, kv, group * block, dim], folded as qk_norm_rope writes it
    torch::Tensor cacheK; // [rows, kv, capacity, dim]
    torch::Tensor cacheV;
};

// LibTorch's masked attention of the folded queries, unfolded to [rows, block, heads * dim].
torch::Tensor reference(const Inputs& in, std::int64_t span) {
    const std::int64_t n = in.query.size(0), g = kHeads / kKvHeads;
    const auto keys = in.cacheK.narrow(2, 0, span);
    const auto values = in.cacheV.narrow(2, 0, span);
    const auto scores =
        torch::matmul(in.query, keys.transpose(-1, -2)) / std::sqrt(static_cast<double>(kDim));
    const auto visible = (torch::arange(span).unsqueeze(0) < (in.starts + kBlock).unsqueeze(1))
                             .view({n, 1, 1, span});
    const auto weights = torch::softmax(scores.masked_fill(visible.logical_not(), -INFINITY), -1);
    return torch::matmul(weights, values)
        .view({n, kKvHeads, g, kBlock, kDim})
        .permute({0, 3, 1, 2, 4})
        .reshape({n, kBlock, kHeads * kDim});
}

} // namespace

class TestDecodeKernelsCpu : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_program;

    // The kernels' output for these inputs, or an undefined tensor after a failure it reports.
    torch::Tensor run(const Inputs& in, std::int64_t span) {
        const std::string input = m_dir.filePath("in.bin").toStdString();
        const std::string output = m_dir.filePath("out.bin").toStdString();
        {
            std::ofstream f(input, std::ios::binary);
            for (const auto& t : {in.starts, in.query, in.cacheK, in.cacheV}) {
                const auto c = t.contiguous();
                f.write(static_cast<const char*>(c.data_ptr()),
                        static_cast<std::streamsize>(c.numel() * c.element_size()));
            }
        }
        QProcess p;
        p.start(m_program, {QString::fromStdString(input), QString::fromStdString(output),
                            QString::number(in.query.size(0)), QString::number(kKvHeads),
                            QString::number(kHeads), QString::number(kBlock),
                            QString::number(kCapacity), QString::number(span)});
        if (!p.waitForFinished(120000) || p.exitCode() != 0) {
            qWarning("the emulated kernels failed: %s", p.readAllStandardError().constData());
            return {};
        }
        auto out = torch::empty({in.query.size(0), kBlock, kHeads * kDim});
        std::ifstream f(output, std::ios::binary);
        f.read(static_cast<char*>(out.data_ptr()),
               static_cast<std::streamsize>(out.numel() * sizeof(float)));
        return f ? out : torch::Tensor();
    }

private Q_SLOTS:
    void initTestCase() {
        const QString compiler = QStandardPaths::findExecutable(QStringLiteral("c++"));
        if (compiler.isEmpty())
            QSKIP("no host C++ compiler (c++) on PATH");
        QVERIFY(m_dir.isValid());
        std::string source = dice::DecodeKernels::source();
        const std::string dynamic = "extern __shared__ uint4 staged[];";
        const auto at = source.find(dynamic);
        QVERIFY2(at != std::string::npos, "the kernels' dynamic shared memory moved");
        source.replace(at, dynamic.size(), "uint4* staged = g_dynamic.data();");
        const QString file = m_dir.filePath(QStringLiteral("kernels.cpp"));
        std::ofstream(file.toStdString())
            << kEmulation << "#define DICE_ELEMENT 0\n#define DICE_HEAD_DIM " << kDim << "\n"
            << source << kDriver;
        m_program = m_dir.filePath(QStringLiteral("kernels"));
        QProcess cc;
        cc.start(compiler, {QStringLiteral("-std=c++20"), QStringLiteral("-O1"),
                            QStringLiteral("-pthread"), file, QStringLiteral("-o"), m_program});
        QVERIFY(cc.waitForFinished(300000));
        QVERIFY2(cc.exitCode() == 0, cc.readAllStandardError().constData());
    }

    // Rows at different starts, over a span longer than any of them needs: every row sees the
    // positions before its own start + block and nothing after, as LibTorch's mask says.
    void attentionMatchesMaskedAttention() {
        torch::manual_seed(11);
        Inputs in;
        in.starts = torch::tensor({5, 40, 17}, torch::kLong);
        in.query = torch::randn({3, kKvHeads, (kHeads / kKvHeads) * kBlock, kDim});
        in.cacheK = torch::randn({3, kKvHeads, kCapacity, kDim});
        in.cacheV = torch::randn({3, kKvHeads, kCapacity, kDim});
        for (const std::int64_t span : {std::int64_t(44), std::int64_t(70)}) {
            const auto got = run(in, span);
            QVERIFY(got.defined());
            const double difference = (got - reference(in, span)).abs().max().item<double>();
            QVERIFY2(difference < 1e-5, std::to_string(difference).c_str());
        }
    }

    // A row alone, over its own span, gives the same bits as in the batch.
    void aRowDoesNotDependOnTheBatch() {
        torch::manual_seed(12);
        Inputs in;
        in.starts = torch::tensor({33, 6}, torch::kLong);
        in.query = torch::randn({2, kKvHeads, (kHeads / kKvHeads) * kBlock, kDim});
        in.cacheK = torch::randn({2, kKvHeads, kCapacity, kDim});
        in.cacheV = torch::randn({2, kKvHeads, kCapacity, kDim});
        const auto batch = run(in, 37);
        Inputs alone;
        alone.starts = in.starts.narrow(0, 1, 1);
        alone.query = in.query.narrow(0, 1, 1);
        alone.cacheK = in.cacheK.narrow(0, 1, 1);
        alone.cacheV = in.cacheV.narrow(0, 1, 1);
        const auto single = run(alone, 10);
        QVERIFY(batch.defined() && single.defined());
        QVERIFY(torch::equal(batch.narrow(0, 1, 1), single));
    }
};

QTEST_GUILESS_MAIN(TestDecodeKernelsCpu)
#include "tst_decode_kernels_cpu.moc"
