// ascemu/impl/serve_impl.h — the reused process: the kernel's statics from the symbol table, the per-launch reset.
// Definitions of the ASCEMU_DECL functions of ascemu/serve.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

ASCEMU_DECL bool KernelStatics::take() {
    // mapped, not read: only the headers and the symbol table are touched (the debug info is most of the file)
    int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st{};
    void* m = ::fstat(fd, &st) == 0 && st.st_size > 0
                  ? ::mmap(nullptr, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
    ::close(fd);
    if (m == MAP_FAILED) return false;
    const bool ok = take_from({(const uint8_t*)m, (size_t)st.st_size});
    ::munmap(m, (size_t)st.st_size);
    return ok;
}

ASCEMU_DECL void KernelStatics::restore() const {
    for (auto& o : objs_) std::memcpy(o.p, o.init.data(), o.init.size());
}

ASCEMU_DECL bool KernelStatics::take_from(std::span<const uint8_t> elf) {
    if (elf.size() < sizeof(Elf64_Ehdr) || std::memcmp(elf.data(), ELFMAG, SELFMAG) != 0) return false;
    auto* eh = (const Elf64_Ehdr*)elf.data();
    if (eh->e_shoff == 0 || eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > elf.size()) return false;
    auto* sh = (const Elf64_Shdr*)(elf.data() + eh->e_shoff);
    const char* shnames = (const char*)elf.data() + sh[eh->e_shstrndx].sh_offset;
    const uintptr_t bias = load_bias();
    bool found = false;
    for (int s = 0; s < eh->e_shnum; ++s) {
        if (sh[s].sh_type != SHT_SYMTAB || sh[s].sh_offset + sh[s].sh_size > elf.size()) continue;
        found = true;
        auto* syms = (const Elf64_Sym*)(elf.data() + sh[s].sh_offset);
        const char* names = (const char*)elf.data() + sh[sh[s].sh_link].sh_offset;
        for (size_t i = 0; i < sh[s].sh_size / sizeof(Elf64_Sym); ++i) {
            const Elf64_Sym& y = syms[i];
            if (ELF64_ST_TYPE(y.st_info) != STT_OBJECT || y.st_size == 0 || y.st_shndx == SHN_UNDEF ||
                y.st_shndx >= eh->e_shnum)
                continue;
            if (!plain_data_section(shnames + sh[y.st_shndx].sh_name) || !kernel_symbol(names + y.st_name))
                continue;
            auto* p = (uint8_t*)(bias + y.st_value);
            objs_.push_back({p, std::vector<uint8_t>(p, p + y.st_size)});
        }
    }
    return found;
}

ASCEMU_DECL uintptr_t KernelStatics::load_bias() {
    uintptr_t bias = 0;
    dl_iterate_phdr([](dl_phdr_info* info, size_t, void* out) { *(uintptr_t*)out = info->dlpi_addr; return 1; },
                    &bias);  // the first object is the executable
    return bias;
}

ASCEMU_DECL bool KernelStatics::plain_data_section(std::string_view s) {
    if (s.starts_with(".data.rel.ro")) return false;
    return s == ".data" || s == ".bss" || s.starts_with(".data.") || s.starts_with(".bss.");
}

ASCEMU_DECL bool KernelStatics::kernel_symbol(std::string_view n) {
    if (n.find('@') != std::string_view::npos || n.starts_with("__") || n.starts_with("DW.ref.") ||
        n.starts_with("completed.") || n == "stdin" || n == "stdout" || n == "stderr" || n == "environ")
        return false;
    if (n.size() > 1 && n[0] == '_' && std::isupper((unsigned char)n[1]) && !n.starts_with("_Z")) return false;
    for (std::string_view ns : {"N6ascemu", "NK6ascemu", "N7AscendC", "NK7AscendC", "NSt", "NKSt", "St",
                                "N9__gnu_cxx", "TV", "TI", "TS", "TT"})
        for (std::string_view pre : {"_Z", "_ZZ", "_ZGV", "_ZGVZ"})
            if (n.size() > pre.size() + ns.size() && n.substr(0, pre.size()) == pre &&
                n.substr(pre.size(), ns.size()) == ns)
                return false;
    return true;
}

ASCEMU_DECL void serve_reset(int64_t kernel_type) {
    Runtime* old = rt_slot();
    for (auto& b : old->gm)
        if (!gm_mappings().count(b->base)) std::free(b->base);
    gm_release_unused_files();
    rt_slot() = new Runtime();
    rt().kernel_type = kernel_type;
    delete old;
    t_core = nullptr;
    g_crash_written = 0;
}

}  // namespace ascemu
