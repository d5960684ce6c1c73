// ascemu/impl/list_tensor_impl.h — malformed tensor lists.
// Definitions of the ASCEMU_DECL functions of ascemu/list_tensor.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

ASCEMU_DECL void list_fault(const SL& loc, const char* api, const std::string& why) {
    diag("PARAM_RANGE", Sev::Error, loc, strf("%s: %s", api, why.c_str()), jd("api", api));
}

}  // namespace ascemu
