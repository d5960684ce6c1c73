// A reused emulator process (driver `--serve`): one process runs launch after launch of the same binary, so
// each launch skips process start-up and, above all, re-mapping its GM files (launch.h keeps them mapped, with
// their page tables filled). Every launch must still start as a fresh process would:
//   - the emulator's own state: a new Runtime, plus the few statics outside it (serve_reset);
//   - the kernel's own mutable statics (globals, function-local statics and their guard variables, such as
//     KERNEL_TASK_TYPE's registration): their bytes as they were after static initialisation are saved once
//     from the binary's symbol table and copied back before every launch (KernelStatics).
#pragma once
#include <elf.h>
#include <link.h>

#include <span>
#include <string_view>

#include "ascemu/launch.h"
#include "ascemu/linkage.h"

namespace ascemu {

class KernelStatics {
  public:
    // false when the binary has no symbol table (stripped): the caller must not reuse the process
    bool take();
    void restore() const;
    size_t count() const { return objs_.size(); }

  private:
    struct Obj {
        uint8_t* p;
        std::vector<uint8_t> init;
    };
    std::vector<Obj> objs_;

    bool take_from(std::span<const uint8_t> elf);
    static uintptr_t load_bias();
    // .data / .bss (and their -fdata-sections forms); never RELRO (.data.rel.ro is read-only after start-up)
    static bool plain_data_section(std::string_view s);
    // Not the emulator's, the C++ library's, the C library's or the toolchain's objects.
    static bool kernel_symbol(std::string_view n);
};

// The emulator state a launch leaves behind, dropped before the next one.  `kernel_type` is what static
// initialisation registered (a namespace-scope KERNEL_TASK_TYPE_DEFAULT), as a fresh process would have it.
ASCEMU_DECL void serve_reset(int64_t kernel_type);

}  // namespace ascemu

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/serve_impl.h"
#endif
