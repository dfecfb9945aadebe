// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Whether this build runs under AddressSanitizer (the asan presets). Its shadow memory is
// reserved as private writable memory, which RLIMIT_DATA counts: a process of such a build
// cannot be held to a data limit of a few gigabytes.
namespace dice {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

} // namespace dice
