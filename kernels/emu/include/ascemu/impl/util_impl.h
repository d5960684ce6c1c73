// ascemu/impl/util_impl.h — string formatting and JSON escaping.
// Definitions of the ASCEMU_DECL functions of ascemu/util.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

ASCEMU_DECL std::string strf(const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int k = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (k < (int)sizeof buf) return std::string(buf, k < 0 ? 0 : k);
    std::string s(k + 1, '\0');
    va_start(ap, fmt);
    std::vsnprintf(s.data(), s.size(), fmt, ap);
    va_end(ap);
    s.resize(k);
    return s;
}

ASCEMU_DECL void json_escape(std::string& o, const char* s) {
    o += '"';
    for (; s && *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
            case '"': o += "\\\""; break;
            case '\\': o += "\\\\"; break;
            case '\n': o += "\\n"; break;
            case '\r': o += "\\r"; break;
            case '\t': o += "\\t"; break;
            default:
                if (ch < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", ch); o += b; }
                else o += (char)ch;
        }
    }
    o += '"';
}

ASCEMU_DECL std::string jnum(double v) {
    if (v != v) return "\"nan\"";
    if (v == __builtin_inf()) return "\"inf\"";
    if (v == -__builtin_inf()) return "\"-inf\"";
    return strf("%.17g", v);
}

}  // namespace ascemu
