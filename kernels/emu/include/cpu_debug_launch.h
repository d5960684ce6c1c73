// cpu_debug_launch.h — what CANN's single-source (.asc) examples include under ASCENDC_CPU_DEBUG:
//
//     #ifdef ASCENDC_CPU_DEBUG
//     #include "cpu_debug_launch.h"
//     #endif
//
// In CANN it carries the CPU-debug glue that turns a `kernel<<<...>>>(...)` launch into a CPU twin run. On the
// emulator `workbench emu-run` / `emu.run_program` rewrite every launch themselves (docs/programs.md), so this header
// only has to exist: ascemu defines ASCENDC_CPU_DEBUG, and without it every such example stops at the #include.
#pragma once
#include "kernel_operator.h"
