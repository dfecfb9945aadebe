// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace dice {

// bfloat16 autocast for forward passes on CUDA while it lives; the weights and the optimizer stay
// float32. Does nothing when not enabled (or in a build without CUDA).
class AutocastScope {
public:
    explicit AutocastScope(bool enabled);
    ~AutocastScope();
    AutocastScope(const AutocastScope&) = delete;
    AutocastScope& operator=(const AutocastScope&) = delete;

    // Whether CUDA autocast is on in this thread: a layer run again for its gradient runs as it
    // first ran, on whichever thread the backward pass uses.
    static bool active();

private:
    bool m_enabled;
};

} // namespace dice
