// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tokenizer/unicode_nfc.h"

#include "core/common/error.h"
#include "core/common/utf8.h"

#include <dlfcn.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace dice {

namespace {

constexpr int kNewestIcu = 90;
constexpr int kOldestIcu = 50;
// UErrorCode values used here: U_ZERO_ERROR, and U_BUFFER_OVERFLOW_ERROR when the output does
// not fit. Warnings are negative, errors positive.
constexpr int kBufferOverflow = 15;

void* openIcu(std::string& name) {
    if (void* handle = dlopen("libicuuc.so", RTLD_NOW | RTLD_LOCAL)) {
        name = "libicuuc.so";
        return handle;
    }
    for (int v = kNewestIcu; v >= kOldestIcu; --v) {
        const std::string candidate = "libicuuc.so." + std::to_string(v);
        if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            name = candidate;
            return handle;
        }
    }
    return nullptr;
}

std::u16string toUtf16(std::string_view utf8) {
    std::u16string out;
    out.reserve(utf8.size());
    std::size_t pos = 0;
    while (pos < utf8.size()) {
        char32_t c = 0;
        if (!decodeUtf8(utf8, pos, c))
            throw Error("NFC normalisation: the text is not valid UTF-8 at byte " +
                        std::to_string(pos));
        if (c < 0x10000) {
            out += static_cast<char16_t>(c);
        } else {
            c -= 0x10000;
            out += static_cast<char16_t>(0xD800 + (c >> 10));
            out += static_cast<char16_t>(0xDC00 + (c & 0x3FF));
        }
    }
    return out;
}

std::string toUtf8(const char16_t* text, std::size_t length) {
    std::string out;
    out.reserve(length * 3 / 2);
    for (std::size_t i = 0; i < length; ++i) {
        char32_t c = text[i];
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < length && text[i + 1] >= 0xDC00 &&
            text[i + 1] <= 0xDFFF) {
            c = 0x10000 + ((c - 0xD800) << 10) + (text[i + 1] - 0xDC00);
            ++i;
        }
        appendUtf8(out, c);
    }
    return out;
}

} // namespace

const NfcNormalizer& NfcNormalizer::instance() {
    static const NfcNormalizer normalizer;
    return normalizer;
}

NfcNormalizer::NfcNormalizer() {
    std::string library;
    void* handle = openIcu(library);
    if (!handle) {
        m_loadError = "ICU (libicuuc.so or libicuuc.so." + std::to_string(kOldestIcu) + " to ." +
                      std::to_string(kNewestIcu) +
                      ") could not be loaded; install the ICU runtime (Debian: libicu72)";
        return;
    }
    // ICU renames its C functions with its major version unless it was built without renaming;
    // the file name gives the version when it has one, otherwise every candidate is tried.
    std::vector<std::string> suffixes;
    const auto dot = library.rfind(".so.");
    if (dot != std::string::npos)
        suffixes.push_back("_" + library.substr(dot + 4));
    for (int v = kNewestIcu; v >= kOldestIcu; --v)
        suffixes.push_back("_" + std::to_string(v));
    suffixes.push_back("");
    for (const auto& suffix : suffixes) {
        void* getInstance = dlsym(handle, ("unorm2_getNFCInstance" + suffix).c_str());
        if (!getInstance)
            continue;
        void* normalize = dlsym(handle, ("unorm2_normalize" + suffix).c_str());
        void* span = dlsym(handle, ("unorm2_spanQuickCheckYes" + suffix).c_str());
        if (!normalize || !span)
            continue;
        int status = 0;
        m_nfc = reinterpret_cast<GetInstanceFn>(getInstance)(&status);
        if (status > 0 || !m_nfc) {
            m_loadError = library + ": unorm2_getNFCInstance failed (ICU error " +
                          std::to_string(status) + "); is ICU's data library installed?";
            return;
        }
        m_normalize = reinterpret_cast<NormalizeFn>(normalize);
        m_spanQuickCheckYes = reinterpret_cast<SpanFn>(span);
        m_available = true;
        m_description =
            library + " (ICU" +
            (suffix.empty() ? std::string(" without version suffix") : " " + suffix.substr(1)) +
            ")";
        return;
    }
    m_loadError = library + " does not export unorm2_getNFCInstance with a version suffix from _" +
                  std::to_string(kOldestIcu) + " to _" + std::to_string(kNewestIcu);
}

bool NfcNormalizer::triviallyNfc(std::string_view utf8) {
    // Code points below U+0300 are encoded in at most two bytes with a lead byte below 0xCC.
    for (char ch : utf8)
        if (static_cast<unsigned char>(ch) >= 0xCC)
            return false;
    return true;
}

std::string NfcNormalizer::normalize(std::string_view utf8) const {
    if (triviallyNfc(utf8))
        return std::string(utf8);
    if (!m_available)
        throw Error("NFC normalisation is not available: " + m_loadError);
    const std::u16string source = toUtf16(utf8);
    if (source.size() > static_cast<std::size_t>(std::numeric_limits<int>::max() / 4))
        throw Error("NFC normalisation: the text is too long (" + std::to_string(utf8.size()) +
                    " bytes)");
    const int length = static_cast<int>(source.size());
    int status = 0;
    const int normalizedPrefix = m_spanQuickCheckYes(m_nfc, source.data(), length, &status);
    if (status <= 0 && normalizedPrefix == length)
        return std::string(utf8);
    std::u16string result(source.size() + source.size() / 2 + 16, u'\0');
    status = 0;
    int written = m_normalize(m_nfc, source.data(), length, result.data(),
                              static_cast<int>(result.size()), &status);
    if (status == kBufferOverflow) {
        result.assign(static_cast<std::size_t>(written), u'\0');
        status = 0;
        written = m_normalize(m_nfc, source.data(), length, result.data(),
                              static_cast<int>(result.size()), &status);
    }
    if (status > 0)
        throw Error("NFC normalisation failed (ICU error " + std::to_string(status) + ")");
    return toUtf8(result.data(), static_cast<std::size_t>(written));
}

} // namespace dice
