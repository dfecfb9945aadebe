// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The safetensors format (huggingface/safetensors): an 8-byte little-endian header length N, a
// JSON header of N bytes, then one flat buffer of little-endian, row-major tensor data. This part
// has no LibTorch dependency, so the fuzz target and plain tools can use it; safetensors_torch.h
// turns entries into tensors.
namespace dice {

enum class SafetensorsDType {
    Bool,
    U8,
    I8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F16,
    BF16,
    F32,
    F64,
    C64,
    F8_E4M3,
    F8_E5M2,
    F8_E8M0,
    F8_E4M3FNUZ,
    F8_E5M2FNUZ,
    F4,
    F6_E2M3,
    F6_E3M2,
};

std::string_view toString(SafetensorsDType dtype);
std::optional<SafetensorsDType> parseSafetensorsDType(std::string_view name);
// Bits per element (4 and 6 for the packed sub-byte types).
int dtypeBits(SafetensorsDType dtype);

struct SafetensorsEntry {
    std::string name;
    SafetensorsDType dtype = SafetensorsDType::F32;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0; // offsets into the data buffer; end is one past the last byte
    std::uint64_t end = 0;

    std::int64_t numel() const;
    std::uint64_t bytes() const { return end - begin; }
};

struct SafetensorsHeader {
    std::uint64_t headerBytes = 0; // N, padding included
    std::uint64_t dataBytes = 0;   // size of the buffer after the header
    std::map<std::string, std::string> metadata;
    std::vector<SafetensorsEntry> tensors; // ordered by offset

    const SafetensorsEntry* find(std::string_view name) const;
    // Offset of the data buffer from the start of the file.
    std::uint64_t dataOffset() const { return 8 + headerBytes; }
};

// The largest header the reference implementation accepts.
constexpr std::uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;
// The most tensors one file may hold. A checkpoint's shards hold a few thousand each; the limit
// leaves room for a large mixture of experts saved as one file.
constexpr std::size_t kSafetensorsMaxTensors = 262'144;
// The most JSON values in a header (a tensor takes about ten) and the deepest nesting (a valid
// header nests three levels).
constexpr std::size_t kSafetensorsMaxHeaderValues = std::size_t(1) << 23;
constexpr int kSafetensorsMaxHeaderDepth = 16;

// Parses and validates the start of a safetensors file the way the reference reader does, in time
// linear in the header and within the limits above: the header length, the JSON object (no
// duplicate names, __metadata__ of strings only), every entry's dtype, shape and data_offsets, and
// that the tensors tile the buffer from 0 without holes or overlaps up to exactly the end of the
// file. `data` holds at least the first 8 + N bytes (or all `size` bytes there are); `fileSize` is
// the size of the whole file. Throws FileError naming `origin` and the problem.
SafetensorsHeader parseSafetensorsHeader(const unsigned char* data, std::size_t size,
                                         std::uint64_t fileSize, const std::string& origin);

// A safetensors file mapped into memory read-only. Shared, so that tensors made over the mapping
// can keep it alive.
class SafetensorsFile {
public:
    static std::shared_ptr<const SafetensorsFile> open(const std::string& path);
    ~SafetensorsFile();
    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

    const std::string& path() const { return m_path; }
    const SafetensorsHeader& header() const { return m_header; }
    std::uint64_t fileSize() const { return m_size; }
    // The entry's bytes inside the mapping.
    const unsigned char* data(const SafetensorsEntry& entry) const;

private:
    SafetensorsFile() = default;
    std::string m_path;
    SafetensorsHeader m_header;
    const unsigned char* m_base = nullptr;
    std::uint64_t m_size = 0;
};

// A checkpoint's weights: one model.safetensors or the shards named by
// model.safetensors.index.json, by tensor name.
class SafetensorsCheckpoint {
public:
    struct Tensor {
        std::shared_ptr<const SafetensorsFile> file;
        const SafetensorsEntry* entry = nullptr;
    };

    // Opens model.safetensors.index.json when the folder has one, else model.safetensors.
    static SafetensorsCheckpoint openFolder(const std::string& folder);
    static SafetensorsCheckpoint openIndex(const std::string& indexPath);
    static SafetensorsCheckpoint openFile(const std::string& path);

    const std::map<std::string, Tensor>& tensors() const { return m_tensors; }
    const Tensor* find(const std::string& name) const;
    std::uint64_t totalBytes() const;
    // Where the tensors come from: the index file or the single file.
    const std::string& origin() const { return m_origin; }

private:
    std::string m_origin;
    std::vector<std::shared_ptr<const SafetensorsFile>> m_files;
    std::map<std::string, Tensor> m_tensors;
};

// One tensor to write: its bytes, little-endian and row-major, numel * dtype size long.
struct SafetensorsBlob {
    std::string name;
    SafetensorsDType dtype = SafetensorsDType::F32;
    std::vector<std::int64_t> shape;
    const void* data = nullptr;
    std::uint64_t bytes = 0;
};

// Writes a safetensors file (through a temporary file and a rename). The header is padded with
// spaces to a multiple of 8 bytes and tensors are ordered by descending element size, then by
// name, so that every tensor starts aligned to its element size in a mapped file.
void writeSafetensors(const std::string& path, const std::vector<SafetensorsBlob>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

} // namespace dice
