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
// `if (c) ASSERT(x); else other();` keeps its meaning.  The two sites no macro can serve (an ASSERT glued to the
// expression before it, `n = m ASSERT(m != 0);`, and one right before a `}` with no `;`) are rewritten by the build
// before g++ reads the kernel (workbench/running/emu/rewrite.py assert_sites): the first into
// `n = m +ASCEMU_ASSERT_TERM(m != 0);` (after a call, `,ASCEMU_ASSERT_TERM(...)`), a term that checks and leaves the
// expression's value unchanged; the second gets its `;`.  CANN's CPU-debug build rejects both (assert(x) is an
// expression that cannot follow another); its device build compiles them with ASSERT gone.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <source_location>
#include <utility>

#include "ascemu/runtime.h"

namespace ascemu {

[[noreturn]] ASCEMU_DECL void assert_failed(const char* expression, const SL& loc);

// The check of an ASSERT glued to an expression: `value + term` and `value , term` are `value` itself (a void value
// takes the built-in comma).
struct AssertTerm {
    AssertTerm(bool ok, const char* expression, const SL& loc) {
        if (!ok) assert_failed(expression, loc);
    }
};
template <class T>
T operator+(T&& value, const AssertTerm&) {
    return std::forward<T>(value);
}
template <class T>
T operator,(T&& value, const AssertTerm&) {
    return std::forward<T>(value);
}

}  // namespace ascemu

#ifndef ASSERT
#define ASSERT(expr) \
    if (!static_cast<bool>(expr)) ::ascemu::assert_failed(#expr, std::source_location::current()); else
#endif

#define ASCEMU_ASSERT_TERM(expr) \
    ::ascemu::AssertTerm(static_cast<bool>(expr), #expr, std::source_location::current())

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/kassert_impl.h"
#endif
