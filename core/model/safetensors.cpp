// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/safetensors.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <sys/mman.h>

namespace dice {

namespace {

struct DTypeInfo {
    SafetensorsDType dtype;
    const char* name;
    int bits;
};

constexpr std::array<DTypeInfo, 22> kDTypes = {{
    {SafetensorsDType::Bool, "BOOL", 8},
    {SafetensorsDType::U8, "U8", 8},
    {SafetensorsDType::I8, "I8", 8},
    {SafetensorsDType::I16, "I16", 16},
    {SafetensorsDType::U16, "U16", 16},
    {SafetensorsDType::I32, "I32", 32},
    {SafetensorsDType::U32, "U32", 32},
    {SafetensorsDType::I64, "I64", 64},
    {SafetensorsDType::U64, "U64", 64},
    {SafetensorsDType::F16, "F16", 16},
    {SafetensorsDType::BF16, "BF16", 16},
    {SafetensorsDType::F32, "F32", 32},
    {SafetensorsDType::F64, "F64", 64},
    {SafetensorsDType::C64, "C64", 64},
    {SafetensorsDType::F8_E4M3, "F8_E4M3", 8},
    {SafetensorsDType::F8_E5M2, "F8_E5M2", 8},
    {SafetensorsDType::F8_E8M0, "F8_E8M0", 8},
    {SafetensorsDType::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8},
    {SafetensorsDType::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8},
    {SafetensorsDType::F4, "F4", 4},
    {SafetensorsDType::F6_E2M3, "F6_E2M3", 6},
    {SafetensorsDType::F6_E3M2, "F6_E3M2", 6},
}};

const DTypeInfo& info(SafetensorsDType dtype) {
    for (const auto& i : kDTypes)
        if (i.dtype == dtype)
            return i;
    return kDTypes[0];
}

std::string nameText(const std::string& name) {
    // Names come from outside; keep control bytes out of messages.
    std::string out = "'";
    for (unsigned char c : name.substr(0, 200)) {
        if (c < 0x20 || c == 0x7f) {
            char buffer[8];
            std::snprintf(buffer, sizeof(buffer), "\\x%02x", c);
            out += buffer;
        } else {
            out += static_cast<char>(c);
        }
    }
    if (name.size() > 200)
        out += "...";
    return out + "'";
}

// A first pass over the header that builds nothing. It refuses what the plain parse after it
// would hide or pay for: a tensor named twice (the parse keeps the last), nesting deeper than a
// header has (three levels), more tensors or JSON values than a real file holds. nlohmann's parse
// with a callback could see duplicates as well, but it rescans the enclosing object each time an
// entry ends, which is quadratic: minutes for a header of 100 000 tensors. Both passes are linear.
class HeaderScan : public nlohmann::json_sax<nlohmann::json> {
public:
    std::string problem; // why the scan stopped, when it did

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return open(); }
    bool start_array(std::size_t) override { return open(); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& name) override {
        if (m_depth != 1)
            return true;
        if (name != "__metadata__" && ++m_tensors > kSafetensorsMaxTensors)
            return stop("safetensors header has more than " +
                        std::to_string(kSafetensorsMaxTensors) +
                        " tensors, the most one file may hold");
        if (!m_names.insert(name).second)
            return stop("safetensors header names " + nameText(name) + " twice");
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) override {
        return stop(std::string("safetensors header is not valid JSON: ") + e.what());
    }

private:
    bool stop(std::string why) {
        problem = std::move(why);
        return false;
    }
    bool value() {
        if (++m_values > kSafetensorsMaxHeaderValues)
            return stop("safetensors header holds more than " +
                        std::to_string(kSafetensorsMaxHeaderValues) + " JSON values");
        return true;
    }
    bool open() {
        if (++m_depth > kSafetensorsMaxHeaderDepth)
            return stop("safetensors header nests JSON deeper than " +
                        std::to_string(kSafetensorsMaxHeaderDepth) + " levels");
        return value();
    }
    bool close() {
        --m_depth;
        return true;
    }

    int m_depth = 0;
    std::size_t m_tensors = 0;
    std::size_t m_values = 0;
    std::unordered_set<std::string> m_names;
};

std::uint64_t readUnsigned(const nlohmann::json& value, const std::string& origin,
                           const std::string& what) {
    if (value.is_number_unsigned())
        return value.get<std::uint64_t>();
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
        return static_cast<std::uint64_t>(value.get<std::int64_t>());
    throw FileError(origin, what + " must be a non-negative integer, not " + value.dump());
}

SafetensorsEntry parseEntry(const std::string& name, const nlohmann::json& value,
                            const std::string& origin) {
    const std::string where = "tensor " + nameText(name);
    if (!value.is_object())
        throw FileError(origin, where + " is not a JSON object");
    SafetensorsEntry entry;
    entry.name = name;
    const auto dtype = value.find("dtype");
    if (dtype == value.end() || !dtype->is_string())
        throw FileError(origin, where + " has no dtype string");
    const auto parsed = parseSafetensorsDType(dtype->get<std::string>());
    if (!parsed)
        throw FileError(origin,
                        where + " has the unknown dtype " + nameText(dtype->get<std::string>()));
    entry.dtype = *parsed;

    const auto shape = value.find("shape");
    if (shape == value.end() || !shape->is_array())
        throw FileError(origin, where + " has no shape array");
    std::uint64_t numel = 1;
    constexpr std::uint64_t kLimit = std::uint64_t(1) << 56;
    for (const auto& dim : *shape) {
        const std::uint64_t d = readUnsigned(dim, origin, where + ": every shape dimension");
        if (d > kLimit || (d != 0 && numel > kLimit / d))
            throw FileError(origin, where + " has a shape too large to address");
        numel *= d;
        entry.shape.push_back(static_cast<std::int64_t>(d));
    }

    const auto offsets = value.find("data_offsets");
    if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2)
        throw FileError(origin, where + " needs data_offsets [begin, end]");
    entry.begin = readUnsigned((*offsets)[0], origin, where + ": data_offsets begin");
    entry.end = readUnsigned((*offsets)[1], origin, where + ": data_offsets end");
    if (entry.end < entry.begin)
        throw FileError(origin, where + " has data_offsets that end before they begin");

    const std::uint64_t bits = numel * static_cast<std::uint64_t>(dtypeBits(entry.dtype));
    if (bits % 8 != 0)
        throw FileError(origin, where + " has " + std::to_string(numel) + " " +
                                    std::string(toString(entry.dtype)) +
                                    " elements, which do not fill whole bytes");
    if (entry.end - entry.begin != bits / 8)
        throw FileError(origin, where + " holds " + std::to_string(entry.end - entry.begin) +
                                    " bytes, but its dtype and shape need " +
                                    std::to_string(bits / 8));
    return entry;
}

} // namespace

std::string_view toString(SafetensorsDType dtype) {
    return info(dtype).name;
}

std::optional<SafetensorsDType> parseSafetensorsDType(std::string_view name) {
    for (const auto& i : kDTypes)
        if (name == i.name)
            return i.dtype;
    return std::nullopt;
}

int dtypeBits(SafetensorsDType dtype) {
    return info(dtype).bits;
}

std::int64_t SafetensorsEntry::numel() const {
    std::int64_t n = 1;
    for (auto d : shape)
        n *= d;
    return n;
}

const SafetensorsEntry* SafetensorsHeader::find(std::string_view name) const {
    for (const auto& t : tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

SafetensorsHeader parseSafetensorsHeader(const unsigned char* data, std::size_t size,
                                         std::uint64_t fileSize, const std::string& origin) {
    if (fileSize < 8 || size < 8)
        throw FileError(origin, "too small for a safetensors file (" + std::to_string(fileSize) +
                                    " bytes; the header length alone takes 8)");
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | data[i];
    if (n > kSafetensorsMaxHeaderBytes)
        throw FileError(origin, "safetensors header length " + std::to_string(n) +
                                    " exceeds the limit of " +
                                    std::to_string(kSafetensorsMaxHeaderBytes) + " bytes");
    if (8 + n > fileSize || 8 + n > size)
        throw FileError(origin, "truncated: the safetensors header needs " + std::to_string(n) +
                                    " bytes after the length, the file has " +
                                    std::to_string(fileSize - 8));
    const unsigned char* text = data + 8;
    if (n == 0 || text[0] != '{')
        throw FileError(origin, "safetensors header does not start with '{'");
    HeaderScan scan;
    nlohmann::json root;
    try {
        if (!nlohmann::json::sax_parse(text, text + n, &scan))
            throw FileError(origin, scan.problem);
        root = nlohmann::json::parse(text, text + n);
    } catch (const nlohmann::json::exception& e) {
        throw FileError(origin, std::string("safetensors header is not valid JSON: ") + e.what());
    }
    if (!root.is_object())
        throw FileError(origin, "safetensors header is not a JSON object");

    SafetensorsHeader header;
    header.headerBytes = n;
    header.dataBytes = fileSize - 8 - n;
    for (const auto& [key, value] : root.items()) {
        if (key == "__metadata__") {
            if (!value.is_object())
                throw FileError(origin, "__metadata__ is not a JSON object");
            for (const auto& [mk, mv] : value.items()) {
                if (!mv.is_string())
                    throw FileError(origin,
                                    "__metadata__ value of " + nameText(mk) + " is not a string");
                header.metadata[mk] = mv.get<std::string>();
            }
            continue;
        }
        header.tensors.push_back(parseEntry(key, value, origin));
    }
    std::sort(header.tensors.begin(), header.tensors.end(),
              [](const SafetensorsEntry& a, const SafetensorsEntry& b) {
                  return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
              });
    std::uint64_t expected = 0;
    const SafetensorsEntry* previous = nullptr;
    for (const auto& t : header.tensors) {
        if (t.begin != expected) {
            const std::string after = previous ? " (after " + nameText(previous->name) + ")"
                                               : std::string(" (the first)");
            throw FileError(origin, "tensor " + nameText(t.name) + " starts at byte " +
                                        std::to_string(t.begin) + " of the data, expected " +
                                        std::to_string(expected) + after + ": " +
                                        (t.begin > expected ? "a hole" : "an overlap"));
        }
        expected = t.end;
        previous = &t;
    }
    if (expected != header.dataBytes)
        throw FileError(origin, "the tensors end at byte " + std::to_string(expected) +
                                    " of the data, but the file holds " +
                                    std::to_string(header.dataBytes) + " data bytes" +
                                    (expected > header.dataBytes ? " (truncated)" : ""));
    return header;
}

std::shared_ptr<const SafetensorsFile> SafetensorsFile::open(const std::string& path) {
    const RegularFile opened(path, limits::kSafetensors);
    std::shared_ptr<SafetensorsFile> file(new SafetensorsFile());
    file->m_path = path;
    file->m_size = opened.size();
    if (file->m_size > 0) {
        void* base = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, opened.descriptor(), 0);
        if (base == MAP_FAILED)
            throw FileError(path, std::string("cannot map into memory: ") + std::strerror(errno));
        file->m_base = static_cast<const unsigned char*>(base);
    }
    file->m_header = parseSafetensorsHeader(file->m_base, file->m_size, file->m_size, path);
    return file;
}

SafetensorsFile::~SafetensorsFile() {
    if (m_base)
        ::munmap(const_cast<unsigned char*>(m_base), m_size);
}

const unsigned char* SafetensorsFile::data(const SafetensorsEntry& entry) const {
    return m_base + m_header.dataOffset() + entry.begin;
}

SafetensorsCheckpoint SafetensorsCheckpoint::openFile(const std::string& path) {
    SafetensorsCheckpoint checkpoint;
    checkpoint.m_origin = path;
    auto file = SafetensorsFile::open(path);
    checkpoint.m_files.push_back(file);
    for (const auto& entry : file->header().tensors)
        checkpoint.m_tensors[entry.name] = Tensor{file, &entry};
    return checkpoint;
}

SafetensorsCheckpoint SafetensorsCheckpoint::openIndex(const std::string& indexPath) {
    nlohmann::json index;
    try {
        index = nlohmann::json::parse(readTextFile(indexPath, limits::kSafetensorsIndex));
    } catch (const nlohmann::json::exception& e) {
        throw FileError(indexPath, std::string("not valid JSON: ") + e.what());
    }
    if (!index.is_object())
        throw FileError(indexPath, "not a JSON object");
    const auto map = index.find("weight_map");
    if (map == index.end() || !map->is_object())
        throw FileError(indexPath, "has no \"weight_map\" object");
    const std::filesystem::path folder = std::filesystem::path(indexPath).parent_path();
    SafetensorsCheckpoint checkpoint;
    checkpoint.m_origin = indexPath;
    // Each shard's tensors by name: the index names every tensor, and a search of the shard's
    // list per name would make opening a checkpoint quadratic in its tensors.
    struct Shard {
        std::shared_ptr<const SafetensorsFile> file;
        std::unordered_map<std::string_view, const SafetensorsEntry*> entries;
    };
    std::map<std::string, Shard> shards;
    for (const auto& [name, shardValue] : map->items()) {
        if (!shardValue.is_string())
            throw FileError(indexPath,
                            "weight_map entry " + nameText(name) + " does not name a file");
        const std::string shard = shardValue.get<std::string>();
        const std::filesystem::path relative(shard);
        bool escapes = shard.empty() || relative.is_absolute();
        for (const auto& part : relative)
            escapes = escapes || part == "..";
        if (escapes)
            throw FileError(indexPath, "weight_map entry " + nameText(name) + " names the file " +
                                           nameText(shard) + " outside the checkpoint folder");
        auto found = shards.find(shard);
        if (found == shards.end()) {
            Shard opened{SafetensorsFile::open((folder / relative).string()), {}};
            for (const auto& e : opened.file->header().tensors)
                opened.entries.emplace(e.name, &e);
            checkpoint.m_files.push_back(opened.file);
            found = shards.emplace(shard, std::move(opened)).first;
        }
        const auto entry = found->second.entries.find(name);
        if (entry == found->second.entries.end())
            throw FileError(found->second.file->path(),
                            "has no tensor " + nameText(name) + ", which " +
                                std::filesystem::path(indexPath).filename().string() +
                                " places there");
        checkpoint.m_tensors[name] = Tensor{found->second.file, entry->second};
    }
    if (checkpoint.m_tensors.empty())
        throw FileError(indexPath, "weight_map names no tensors");
    return checkpoint;
}

SafetensorsCheckpoint SafetensorsCheckpoint::openFolder(const std::string& folder) {
    const std::filesystem::path dir(folder);
    const auto index = dir / "model.safetensors.index.json";
    if (std::filesystem::exists(index))
        return openIndex(index.string());
    const auto single = dir / "model.safetensors";
    if (std::filesystem::exists(single))
        return openFile(single.string());
    throw FileError(folder, "has neither model.safetensors nor model.safetensors.index.json");
}

const SafetensorsCheckpoint::Tensor* SafetensorsCheckpoint::find(const std::string& name) const {
    const auto found = m_tensors.find(name);
    return found == m_tensors.end() ? nullptr : &found->second;
}

std::uint64_t SafetensorsCheckpoint::totalBytes() const {
    std::uint64_t total = 0;
    for (const auto& [name, t] : m_tensors)
        total += t.entry->bytes();
    return total;
}

void writeSafetensors(const std::string& path, const std::vector<SafetensorsBlob>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    std::vector<const SafetensorsBlob*> order;
    std::set<std::string> names;
    for (const auto& t : tensors) {
        if (t.name == "__metadata__" || !names.insert(t.name).second)
            throw Error("cannot write " + path + ": the tensor name " + nameText(t.name) +
                        " is reserved or used twice");
        std::uint64_t numel = 1;
        for (auto d : t.shape) {
            if (d < 0)
                throw Error("cannot write " + path + ": tensor " + nameText(t.name) +
                            " has a negative dimension");
            numel *= static_cast<std::uint64_t>(d);
        }
        if (numel * static_cast<std::uint64_t>(dtypeBits(t.dtype)) != t.bytes * 8 ||
            (t.bytes > 0 && !t.data))
            throw Error("cannot write " + path + ": tensor " + nameText(t.name) + " has " +
                        std::to_string(t.bytes) + " bytes, its dtype and shape need " +
                        std::to_string(numel * static_cast<std::uint64_t>(dtypeBits(t.dtype)) / 8));
        order.push_back(&t);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const SafetensorsBlob* a, const SafetensorsBlob* b) {
                         const int ba = dtypeBits(a->dtype), bb = dtypeBits(b->dtype);
                         return ba != bb ? ba > bb : a->name < b->name;
                     });
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty())
        header["__metadata__"] = metadata;
    std::uint64_t offset = 0;
    for (const auto* t : order) {
        header[t->name] = {{"dtype", toString(t->dtype)},
                           {"shape", t->shape},
                           {"data_offsets", {offset, offset + t->bytes}}};
        offset += t->bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');

    const std::string temporary = path + ".tmp";
    std::FILE* out = std::fopen(temporary.c_str(), "wb");
    if (!out)
        throw FileError(temporary, std::string("cannot create: ") + std::strerror(errno));
    bool ok = true;
    unsigned char length[8];
    std::uint64_t n = text.size();
    for (int i = 0; i < 8; ++i)
        length[i] = static_cast<unsigned char>((n >> (8 * i)) & 0xff);
    ok = ok && std::fwrite(length, 1, 8, out) == 8;
    ok = ok && std::fwrite(text.data(), 1, text.size(), out) == text.size();
    for (const auto* t : order)
        ok = ok && (t->bytes == 0 || std::fwrite(t->data, 1, t->bytes, out) == t->bytes);
    ok = (std::fclose(out) == 0) && ok;
    if (!ok) {
        std::remove(temporary.c_str());
        throw FileError(temporary, "write failed");
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec)
        throw FileError(path, "cannot replace: " + ec.message());
}

} // namespace dice
