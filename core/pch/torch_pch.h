// SPDX-License-Identifier: GPL-3.0-or-later
// Precompiled header for the core files that use LibTorch: its headers cost seconds per file.
#pragma once

#include <torch/script.h>
#include <torch/torch.h>
