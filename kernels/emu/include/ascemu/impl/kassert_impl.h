// ascemu/impl/kassert_impl.h — a failed ASSERT.
// Definitions of the ASCEMU_DECL functions of ascemu/kassert.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

[[noreturn]] ASCEMU_DECL void assert_failed(const char* expression, const SL& loc) {
    if (!t_core) {  // host code (a program's main): CANN's CPU-debug assert, message and abort
        std::fprintf(stderr, "%s:%u: ASSERT(%s) failed\n", loc.file_name(), (unsigned)loc.line(), expression);
        std::abort();
    }
    diag("KERNEL_ABORT", Sev::Fatal, loc,
         strf("ASSERT(%s) failed: CANN's CPU-debug build aborts here (assert); on the NPU ASSERT compiles to nothing "
              "and the kernel would go on",
              expression),
         jd("expression", expression, "macro", "ASSERT"));
    fatal_exit(2);  // not reached: a fatal record ends the launch
}

}  // namespace ascemu
