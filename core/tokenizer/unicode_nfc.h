// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>

namespace dice {

// Unicode NFC through ICU's C API, loaded at run time with dlopen rather than linked: ICU's
// symbols carry its major version (unorm2_normalize_72), and the machines differ (ICU 72 with
// headers on Debian, only an ICU 74 runtime on the GPU machine). One process-wide instance;
// thread-safe.
class NfcNormalizer {
public:
    // The process's normalizer; loads ICU on first use.
    static const NfcNormalizer& instance();

    bool available() const { return m_available; }
    // Why ICU could not be used (empty when available).
    const std::string& loadError() const { return m_loadError; }
    // "libicuuc.so.72 (ICU 72)".
    const std::string& description() const { return m_description; }

    // True when the text is certainly NFC already without asking ICU (ASCII, and every code
    // point below U+0300, where no character composes or decomposes).
    static bool triviallyNfc(std::string_view utf8);

    // The NFC form of valid UTF-8 text. Throws dice::Error when ICU is not available or fails.
    std::string normalize(std::string_view utf8) const;

    NfcNormalizer(const NfcNormalizer&) = delete;
    NfcNormalizer& operator=(const NfcNormalizer&) = delete;

private:
    NfcNormalizer();

    using NormalizerPtr = const void*;
    using GetInstanceFn = NormalizerPtr (*)(int*);
    using NormalizeFn = int (*)(NormalizerPtr, const char16_t*, int, char16_t*, int, int*);
    using SpanFn = int (*)(NormalizerPtr, const char16_t*, int, int*);

    bool m_available = false;
    std::string m_loadError;
    std::string m_description;
    NormalizerPtr m_nfc = nullptr;
    NormalizeFn m_normalize = nullptr;
    SpanFn m_spanQuickCheckYes = nullptr;
};

} // namespace dice
