// ascemu/kassert.h — the kernel-side `ASSERT(expr)` macro.
//
// CANN (impl/basic_api/kernel_macros.h of cann/asc-devkit) defines ASSERT(x) as the C library's assert(x) in a
// CPU-debug build (ASCENDC_CPU_DEBUG == 1): a false expression prints the file:line and aborts the debug process.
// For the NPU it expands to nothing, so the expression is not even evaluated on the device.  ascemu follows the
// CPU-debug meaning (that is what ASSERT is written for) and reports the failure as a fatal KERNEL_ABORT record
// with the kernel's file:line, the core and the expression, so the launch ends the way the CPU twin's does.
//
// Because the device build drops the macro, kernels also compile that write it with no `;` after it.  The
// expansion is therefore one if-else statement whose else branch takes the next statement: `ASSERT(x);` ends in an
// empty else branch, `ASSERT(x) next();` runs next() as that branch (always, since a failure never returns), and
// `if (c) ASSERT(x); else other();` keeps its meaning.  Only an ASSERT without `;` right before a `}` is rejected.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <source_location>

#include "ascemu/runtime.h"

namespace ascemu {

[[noreturn]] ASCEMU_DECL void assert_failed(const char* expression, const SL& loc);

}  // namespace ascemu

#ifndef ASSERT
#define ASSERT(expr) \
    if (!static_cast<bool>(expr)) ::ascemu::assert_failed(#expr, std::source_location::current()); else
#endif

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/kassert_impl.h"
#endif
