// SPDX-License-Identifier: GPL-3.0-or-later
// The model's fused decoding kernels without a GPU: their CUDA source, compiled by the host
// compiler beside a small emulation of a block's threads (each a std::thread; __syncthreads and
// the warp shuffles are barriers), run on random float32 inputs and compared with the LibTorch
// operators they replace. An attention row's result must not depend on the batch.
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

void writeAll(const char* path, const std::vector<float>& v) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(v.data()),
               static_cast<std::streamsize>(v.size() * sizeof(float)));
}

unsigned threadsFor(int elements) { return std::max(32u, (unsigned(elements) + 31) / 32 * 32); }

// The cache as the kernels read it. Contiguous: a page per row. Paged: a row's pages in the
// reverse order of its positions and interleaved with the other rows' (column c of row r is page
// (tablePages - 1 - c) * rows + r), and one scratch page after them.
struct Paging {
    long long pageTokens = 0;
    int tablePages = 1;
    long long pages = 0;
    std::vector<int> table;
};

Paging paging(int rows, long long capacity, long long pageTokens) {
    Paging p;
    p.pageTokens = pageTokens > 0 ? pageTokens : capacity;
    p.tablePages = int((capacity + p.pageTokens - 1) / p.pageTokens);
    p.pages = pageTokens > 0 ? (long long)rows * p.tablePages + 1 : rows;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < p.tablePages; ++c)
            p.table.push_back(pageTokens > 0 ? (p.tablePages - 1 - c) * rows + r : r);
    return p;
}

std::size_t paged(const Paging& p, int row, int kvHeads, int kv, long long position, int dim) {
    const long long page = p.table[std::size_t(row) * p.tablePages + position / p.pageTokens];
    return std::size_t(((page * kvHeads + kv) * p.pageTokens + position % p.pageTokens) * dim);
}

// [rows, kv_heads, capacity, dim] to the pages, and back.
std::vector<float> toPages(const std::vector<float>& c, const Paging& p, int rows, int kvHeads,
                           long long capacity, int dim) {
    std::vector<float> out(std::size_t(p.pages * kvHeads * p.pageTokens * dim));
    for (int r = 0; r < rows; ++r)
        for (int h = 0; h < kvHeads; ++h)
            for (long long at = 0; at < capacity; ++at)
                std::copy_n(c.begin() + long(((r * kvHeads + h) * capacity + at) * dim), dim,
                            out.begin() + long(paged(p, r, kvHeads, h, at, dim)));
    return out;
}

void fromPages(const float* pages, float* c, const Paging& p, int rows, int kvHeads,
               long long capacity, int dim) {
    for (int r = 0; r < rows; ++r)
        for (int h = 0; h < kvHeads; ++h)
            for (long long at = 0; at < capacity; ++at)
                std::copy_n(pages + paged(p, r, kvHeads, h, at, dim), dim,
                            c + ((r * kvHeads + h) * capacity + at) * dim);
}

// argv: MODE input output rows kv_heads heads block capacity span page_tokens; the input holds
// the arrays each mode reads, in order (caches contiguous), and the output what it writes.
int main(int argc, char** argv) {
    if (argc != 11)
        return 2;
    const std::string mode = argv[1];
    const int rows = std::atoi(argv[4]), kvHeads = std::atoi(argv[5]), heads = std::atoi(argv[6]),
              block = std::atoi(argv[7]), span = std::atoi(argv[9]);
    const long long capacity = std::atoll(argv[8]);
    const int dim = DICE_HEAD_DIM, queries = block * (heads / kvHeads);
    const std::size_t cache = std::size_t(rows) * kvHeads * capacity * dim;
    const Paging pages = paging(rows, capacity, std::atoll(argv[10]));
    std::ifstream in(argv[2], std::ios::binary);
    if (mode == "attend") {
        const auto starts = readAll<long long>(in, rows);
        const auto query = readAll<float>(in, std::size_t(rows) * kvHeads * queries * dim);
        const auto cacheK = toPages(readAll<float>(in, cache), pages, rows, kvHeads, capacity, dim);
        const auto cacheV = toPages(readAll<float>(in, cache), pages, rows, kvHeads, capacity, dim);
        if (!in)
            return 3;
        const int chunks = (span + kAttendChunk - 1) / kAttendChunk;
        std::vector<float> partial(std::size_t(rows) * kvHeads * chunks * queries * (dim + 2));
        std::vector<float> out(std::size_t(rows) * block * heads * dim);
        const std::size_t shared = 2 * kAttendChunk * dim * sizeof(float) +
                                   std::size_t(queries) * (dim + kAttendChunk) * sizeof(float);
        g_dynamic.assign(shared / sizeof(uint4) + 1, uint4{});
        launch({unsigned(chunks), unsigned(kvHeads), unsigned(rows)}, kAttendThreads, [&] {
            attend_chunk(query.data(), cacheK.data(), cacheV.data(), pages.table.data(),
                         pages.tablePages, pages.pageTokens, starts.data(), partial.data(),
                         queries, block, kvHeads, span, 1.0f / std::sqrt(float(dim)));
        });
        launch({unsigned(rows * kvHeads * queries), 1, 1}, threadsFor(dim), [&] {
            attend_combine(partial.data(), out.data(), chunks, queries, block, heads, kvHeads,
                           dim);
        });
        writeAll(argv[3], out);
    } else if (mode == "rope") {
        // Queries, then the cache's keys and values, in one output.
        const int tokens = rows * block, all = heads + 2 * kvHeads;
        const auto qkv = readAll<float>(in, std::size_t(tokens) * all * dim);
        const auto qWeight = readAll<float>(in, dim);
        const auto kWeight = readAll<float>(in, dim);
        const auto starts = readAll<long long>(in, rows);
        const auto invFreq = readAll<float>(in, dim / 2);
        if (!in)
            return 3;
        std::vector<float> out(std::size_t(tokens) * heads * dim + 2 * cache);
        float* query = out.data();
        const std::size_t pageFloats = std::size_t(pages.pages * kvHeads * pages.pageTokens * dim);
        std::vector<float> cacheK(pageFloats), cacheV(pageFloats);
        launch({unsigned(tokens * all), 1, 1}, threadsFor(dim), [&] {
            qk_norm_rope(qkv.data(), qWeight.data(), kWeight.data(), starts.data(),
                         invFreq.data(), query, cacheK.data(), cacheV.data(), pages.table.data(),
                         pages.tablePages, pages.pageTokens, block, heads, kvHeads, dim, 1e-6f);
        });
        float* contiguousK = query + std::size_t(tokens) * heads * dim;
        fromPages(cacheK.data(), contiguousK, pages, rows, kvHeads, capacity, dim);
        fromPages(cacheV.data(), contiguousK + cache, pages, rows, kvHeads, capacity, dim);
        writeAll(argv[3], out);
    } else if (mode == "norm") {
        // rows of `span` columns: x, delta, weight; out: the sum, then the normalised rows.
        const auto x = readAll<float>(in, std::size_t(rows) * span);
        const auto delta = readAll<float>(in, std::size_t(rows) * span);
        const auto weight = readAll<float>(in, span);
        if (!in)
            return 3;
        std::vector<float> out(2 * std::size_t(rows) * span);
        launch({unsigned(rows), 1, 1}, threadsFor(std::min(span, 1024)), [&] {
            add_rms_norm(x.data(), delta.data(), out.data(), weight.data(),
                         out.data() + std::size_t(rows) * span, span, 1e-6f);
        });
        writeAll(argv[3], out);
    } else if (mode == "linear") {
        // x [rows, span], w [heads, span], bias [heads]: heads columns of span products each.
        const auto x = readAll<float>(in, std::size_t(rows) * span);
        const auto w = readAll<float>(in, std::size_t(heads) * span);
        const auto bias = readAll<float>(in, heads);
        if (!in)
            return 3;
        std::vector<float> out(std::size_t(rows) * heads);
        launch({unsigned((heads + 7) / 8), 1, 1}, 256, [&] {
            small_rows_linear(x.data(), w.data(), bias.data(), out.data(), rows, heads, span);
        });
        writeAll(argv[3], out);
    } else if (mode == "silu") {
        // rows of 2 * span: gate then up.
        const auto gateUp = readAll<float>(in, 2 * std::size_t(rows) * span);
        if (!in)
            return 3;
        std::vector<float> out(std::size_t(rows) * span);
        const long long total = (long long)rows * span;
        launch({unsigned((total + 255) / 256), 1, 1}, 256,
               [&] { silu_mul(gateUp.data(), out.data(), span, total); });
        writeAll(argv[3], out);
    } else {
        return 2;
    }
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
    // The cache's pages in the runs: 0 contiguous, else positions a page.
    std::int64_t m_pageTokens = 0;

    // Runs the emulated kernels of `mode` on the tensors given (written in order) and reads
    // back `count` floats, or returns an undefined tensor after a failure it reports.
    torch::Tensor run(const QString& mode, const std::vector<torch::Tensor>& inputs,
                      std::int64_t count, std::int64_t rows, std::int64_t span) {
        return runWith(mode, inputs, count, rows, kHeads, span);
    }

    // As run, with another number of heads (the product's columns).
    torch::Tensor runWith(const QString& mode, const std::vector<torch::Tensor>& inputs,
                          std::int64_t count, std::int64_t rows, std::int64_t heads,
                          std::int64_t span) {
        const std::string input = m_dir.filePath("in.bin").toStdString();
        const std::string output = m_dir.filePath("out.bin").toStdString();
        {
            std::ofstream f(input, std::ios::binary);
            for (const auto& t : inputs) {
                const auto c = t.contiguous();
                f.write(static_cast<const char*>(c.data_ptr()),
                        static_cast<std::streamsize>(c.numel() * c.element_size()));
            }
        }
        QProcess p;
        p.start(m_program,
                {mode, QString::fromStdString(input), QString::fromStdString(output),
                 QString::number(rows), QString::number(kKvHeads), QString::number(heads),
                 QString::number(kBlock), QString::number(kCapacity), QString::number(span),
                 QString::number(m_pageTokens)});
        if (!p.waitForFinished(120000) || p.exitCode() != 0) {
            qWarning("the emulated kernels failed: %s", p.readAllStandardError().constData());
            return {};
        }
        auto out = torch::empty({count});
        std::ifstream f(output, std::ios::binary);
        f.read(static_cast<char*>(out.data_ptr()),
               static_cast<std::streamsize>(count * sizeof(float)));
        return f ? out : torch::Tensor();
    }

    torch::Tensor attend(const Inputs& in, std::int64_t span) {
        const std::int64_t n = in.query.size(0);
        const auto out = run(QStringLiteral("attend"), {in.starts, in.query, in.cacheK, in.cacheV},
                             n * kBlock * kHeads * kDim, n, span);
        return out.defined() ? out.view({n, kBlock, kHeads * kDim}) : out;
    }

    // Each cache test runs on a contiguous cache and on pages of 32 positions in scrambled order.
    void pagings() {
        QTest::addColumn<qint64>("pageTokens");
        QTest::newRow("contiguous") << qint64(0);
        QTest::newRow("paged") << qint64(32);
    }
    void usePaging() {
        QFETCH(qint64, pageTokens);
        m_pageTokens = pageTokens;
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
    void attentionMatchesMaskedAttention_data() { pagings(); }
    void attentionMatchesMaskedAttention() {
        usePaging();
        torch::manual_seed(11);
        Inputs in;
        in.starts = torch::tensor({5, 40, 17}, torch::kLong);
        in.query = torch::randn({3, kKvHeads, (kHeads / kKvHeads) * kBlock, kDim});
        in.cacheK = torch::randn({3, kKvHeads, kCapacity, kDim});
        in.cacheV = torch::randn({3, kKvHeads, kCapacity, kDim});
        for (const std::int64_t span : {std::int64_t(44), std::int64_t(70)}) {
            const auto got = attend(in, span);
            QVERIFY(got.defined());
            const double difference = (got - reference(in, span)).abs().max().item<double>();
            QVERIFY2(difference < 1e-5, std::to_string(difference).c_str());
        }
    }

    // The residual sum and the next RMSNorm in one launch.
    void addRmsNormMatchesTheOperators() {
        torch::manual_seed(13);
        const std::int64_t rows = 3, cols = 50;
        const auto x = torch::randn({rows, cols}), delta = torch::randn({rows, cols}),
                   weight = torch::randn({cols});
        const auto got =
            run(QStringLiteral("norm"), {x, delta, weight}, 2 * rows * cols, rows, cols);
        QVERIFY(got.defined());
        const auto sum = x + delta;
        const auto normed = weight * sum * torch::rsqrt(sum.pow(2).mean(-1, true) + 1e-6);
        QVERIFY(torch::allclose(got.narrow(0, 0, rows * cols).view({rows, cols}), sum));
        QVERIFY(torch::allclose(got.narrow(0, rows * cols, rows * cols).view({rows, cols}), normed,
                                1e-5, 1e-5));
    }

    // The products of a pass of a few rows: every row count the kernel takes, columns that do
    // not fill the last block, a depth of several pieces per lane.
    void smallRowsLinearMatchesTheProduct() {
        torch::manual_seed(16);
        const std::int64_t columns = 13, depth = 520;
        for (const std::int64_t rows : {std::int64_t(1), std::int64_t(4), std::int64_t(8)}) {
            const auto x = torch::randn({rows, depth}), w = torch::randn({columns, depth}),
                       bias = torch::randn({columns});
            const auto got = runWith(QStringLiteral("linear"), {x, w, bias}, rows * columns, rows,
                                     columns, depth);
            QVERIFY(got.defined());
            QVERIFY(
                torch::allclose(got.view({rows, columns}), torch::linear(x, w, bias), 1e-4, 1e-4));
        }
    }

    void siluMulMatchesTheOperators() {
        torch::manual_seed(14);
        const std::int64_t rows = 3, inter = 37;
        const auto gateUp = torch::randn({rows, 2 * inter});
        const auto got = run(QStringLiteral("silu"), {gateUp}, rows * inter, rows, inter);
        QVERIFY(got.defined());
        const auto want = torch::silu(gateUp.narrow(1, 0, inter)) * gateUp.narrow(1, inter, inter);
        QVERIFY(torch::allclose(got.view({rows, inter}), want, 1e-5, 1e-5));
    }

    // Per-head RMSNorm of q and k, the rotary embedding at each row's positions, the queries
    // folded for grouped attention, keys and values written into the cache at the block's places
    // and nowhere else.
    void qkNormRopeMatchesTheOperators_data() { pagings(); }
    void qkNormRopeMatchesTheOperators() {
        usePaging();
        torch::manual_seed(15);
        const std::int64_t rows = 2, all = kHeads + 2 * kKvHeads, g = kHeads / kKvHeads,
                           half = kDim / 2;
        const auto qkv = torch::randn({rows * kBlock, all, kDim});
        const auto qWeight = torch::randn({kDim}), kWeight = torch::randn({kDim});
        const auto starts = torch::tensor({3, 20}, torch::kLong);
        const auto invFreq =
            torch::pow(1e6, torch::arange(0, kDim, 2).to(torch::kFloat) / kDim).reciprocal();
        const std::int64_t cache = rows * kKvHeads * kCapacity * kDim;
        const auto got = run(QStringLiteral("rope"), {qkv, qWeight, kWeight, starts, invFreq},
                             rows * kBlock * kHeads * kDim + 2 * cache, rows, 0);
        QVERIFY(got.defined());

        const auto x = qkv.view({rows, kBlock, all, kDim});
        auto norm = [](const torch::Tensor& t, const torch::Tensor& w) {
            return w * t * torch::rsqrt(t.pow(2).mean(-1, true) + 1e-6);
        };
        const auto positions = (starts.unsqueeze(1) + torch::arange(kBlock)).to(torch::kFloat);
        const auto angles = positions.unsqueeze(-1) * invFreq;
        const auto cos = torch::cat({angles.cos(), angles.cos()}, -1).unsqueeze(2);
        const auto sin = torch::cat({angles.sin(), angles.sin()}, -1).unsqueeze(2);
        auto rope = [&](const torch::Tensor& t) {
            const auto rotated = torch::cat({-t.narrow(-1, half, half), t.narrow(-1, 0, half)}, -1);
            return t * cos + rotated * sin;
        };
        const auto q = rope(norm(x.narrow(2, 0, kHeads), qWeight));
        const auto k = rope(norm(x.narrow(2, kHeads, kKvHeads), kWeight));
        const auto v = x.narrow(2, kHeads + kKvHeads, kKvHeads);
        const auto folded = q.view({rows, kBlock, kKvHeads, g, kDim}).permute({0, 2, 3, 1, 4});
        auto cacheK = torch::zeros({rows, kKvHeads, kCapacity, kDim});
        auto cacheV = torch::zeros({rows, kKvHeads, kCapacity, kDim});
        for (std::int64_t r = 0; r < rows; ++r) {
            const std::int64_t at = starts[r].item<std::int64_t>();
            cacheK[r].narrow(1, at, kBlock).copy_(k[r].transpose(0, 1));
            cacheV[r].narrow(1, at, kBlock).copy_(v[r].transpose(0, 1));
        }
        const std::int64_t queries = rows * kBlock * kHeads * kDim;
        QVERIFY(torch::allclose(got.narrow(0, 0, queries), folded.reshape({-1}), 1e-5, 1e-5));
        QVERIFY(torch::allclose(got.narrow(0, queries, cache), cacheK.reshape({-1}), 1e-5, 1e-5));
        QVERIFY(torch::equal(got.narrow(0, queries + cache, cache), cacheV.reshape({-1})));
    }

    // A row alone, over its own span, gives the same bits as in the batch.
    void aRowDoesNotDependOnTheBatch_data() { pagings(); }
    void aRowDoesNotDependOnTheBatch() {
        usePaging();
        torch::manual_seed(12);
        Inputs in;
        in.starts = torch::tensor({33, 6}, torch::kLong);
        in.query = torch::randn({2, kKvHeads, (kHeads / kKvHeads) * kBlock, kDim});
        in.cacheK = torch::randn({2, kKvHeads, kCapacity, kDim});
        in.cacheV = torch::randn({2, kKvHeads, kCapacity, kDim});
        const auto batch = attend(in, 37);
        Inputs alone;
        alone.starts = in.starts.narrow(0, 1, 1);
        alone.query = in.query.narrow(0, 1, 1);
        alone.cacheK = in.cacheK.narrow(0, 1, 1);
        alone.cacheV = in.cacheV.narrow(0, 1, 1);
        const auto single = attend(alone, 10);
        QVERIFY(batch.defined() && single.defined());
        QVERIFY(torch::equal(batch.narrow(0, 1, 1), single));
    }
};

QTEST_GUILESS_MAIN(TestDecodeKernelsCpu)
#include "tst_decode_kernels_cpu.moc"
