// ascemu/linkage.h — header-only (the default) or a separately compiled runtime (kernels/emu/README.md, section 1).
//
// The emulator's non-template functions are declared in the ascemu headers with ASCEMU_DECL and defined in
// ascemu/impl/<header>_impl.h.  Header-only (no macro): ASCEMU_DECL is `inline` and every header includes its impl
// file at its end, so a kernel, a CPU-twin host main or a test compiles with g++ alone, as it always did.
// -DASCEMU_SEPARATE_RUNTIME: the headers only declare those functions (ASCEMU_DECL is empty) and the kernel's
// translation unit links kernels/emu/runtime/ascemu_runtime.cpp, compiled once per platform and set of flags, which
// defines them (it sets ASCEMU_RUNTIME_TU).  A kernel edit then recompiles the kernel and its templates only.
#pragma once

#if defined(ASCEMU_RUNTIME_TU) && !defined(ASCEMU_SEPARATE_RUNTIME)
#define ASCEMU_SEPARATE_RUNTIME 1
#endif

#ifdef ASCEMU_SEPARATE_RUNTIME
#define ASCEMU_DECL
#else
#define ASCEMU_DECL inline
#endif

// Whether a header brings the definitions of its ASCEMU_DECL functions (its impl file) into this translation unit.
#if !defined(ASCEMU_SEPARATE_RUNTIME) || defined(ASCEMU_RUNTIME_TU)
#define ASCEMU_WITH_IMPL 1
#else
#define ASCEMU_WITH_IMPL 0
#endif
