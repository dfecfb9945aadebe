// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/reward/reward_service.h"

#include <string>
#include <vector>

// Batch files of `dice eval --batch` (docs/reward.md): one JSON object per line, a candidate and
// what it is judged against.
namespace dice {

// Reads the lines of `text` (named `origin` in errors). Paths in it are relative to
// `baseDirectory`. Throws Error naming the line and the field that is wrong.
std::vector<RewardItem> parseRewardBatch(const std::string& text, const std::string& origin,
                                         const std::string& baseDirectory);
// The same for a file: a regular file of at most 1 GiB.
std::vector<RewardItem> readRewardBatch(const std::string& path);

} // namespace dice
