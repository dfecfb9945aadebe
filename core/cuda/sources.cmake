# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    cuda/compile_log_parser.cpp
    cuda/compiler_options.cpp
    cuda/cuda_abi_check.cpp
    cuda/cuda_context.cpp
    cuda/cuda_driver.cpp
    cuda/cupti_tracer.cpp
    cuda/device_info.cpp
    cuda/driver_release.cpp
    cuda/header_policy.cpp
    cuda/ncu_report.cpp
    cuda/nsight_compute.cpp
    cuda/nvrtc_compiler.cpp
    cuda/nvtx_range.cpp
    cuda/occupancy.cpp
    cuda/ptx_line_map.cpp
    cuda/sass_disassembler.cpp
    cuda/sass_listing.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    cuda/torch_cuda_bridge.cpp
)
