// ascemu/util.h — small helpers: bitmaps (written-shadow), JSON writing, string formatting.
#pragma once
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ascemu/fast.h"
#include "ascemu/linkage.h"

namespace ascemu {

// One bit per byte; range ops work on 64-bit words so marking/checking costs 1/8 of the data size.
struct Bitmap {
    std::vector<uint64_t> w;
    size_t n = 0;
    void init(size_t bits, bool val) {
        n = bits;
        w.assign((bits + 63) / 64, val ? ~0ull : 0ull);
    }
    static uint64_t mask_range(unsigned a, unsigned b) {  // bits [a,b) of one word, 0<=a<b<=64
        uint64_t hi = b == 64 ? ~0ull : ((1ull << b) - 1);
        return hi & ~((1ull << a) - 1);
    }
    // shared: the edge words are OR-ed atomically (a GM bitmap, where two cores' adjacent writes may share a
    // word in the parallel modes); a core's own UB bitmap needs no atomics.
    void set(size_t lo, size_t hi, bool shared = false) {
        if (hi > n) hi = n;
        if (lo >= hi) return;
        size_t wl = lo >> 6, wh = (hi - 1) >> 6;
        auto or_word = [&](size_t i, uint64_t m) {
            if (shared) __atomic_fetch_or(&w[i], m, __ATOMIC_RELAXED);
            else w[i] |= m;
        };
        if (wl == wh) { or_word(wl, mask_range(lo & 63, ((hi - 1) & 63) + 1)); return; }
        or_word(wl, mask_range(lo & 63, 64));
        if (wh > wl + 1) std::memset(&w[wl + 1], 0xFF, (wh - wl - 1) * 8);
        or_word(wh, mask_range(0, ((hi - 1) & 63) + 1));
    }
    void clear(size_t lo, size_t hi) {
        if (hi > n) hi = n;
        if (lo >= hi) return;
        size_t wl = lo >> 6, wh = (hi - 1) >> 6;
        if (wl == wh) { w[wl] &= ~mask_range(lo & 63, ((hi - 1) & 63) + 1); return; }
        w[wl] &= ~mask_range(lo & 63, 64);
        if (wh > wl + 1) std::memset(&w[wl + 1], 0, (wh - wl - 1) * 8);
        w[wh] &= ~mask_range(0, ((hi - 1) & 63) + 1);
    }
    bool all(size_t lo, size_t hi) const {
        if (hi > n) return false;
        if (lo >= hi) return true;
        size_t wl = lo >> 6, wh = (hi - 1) >> 6;
        if (wl == wh) { uint64_t m = mask_range(lo & 63, ((hi - 1) & 63) + 1); return (w[wl] & m) == m; }
        uint64_t m = mask_range(lo & 63, 64);
        if ((w[wl] & m) != m) return false;
        if (wh > wl + 1 && !fast::all_ones(&w[wl + 1], (int64_t)(wh - wl - 1))) return false;
        m = mask_range(0, ((hi - 1) & 63) + 1);
        return (w[wh] & m) == m;
    }
    bool get(size_t i) const { return i < n && ((w[i >> 6] >> (i & 63)) & 1); }
    size_t count_unset(size_t lo, size_t hi) const {
        if (hi > n) hi = n;
        if (lo >= hi) return 0;
        size_t c = 0, i = lo;
        for (; i < hi && (i & 63); ++i) c += !get(i);
        const size_t words = (hi - i) / 64;
        c += (size_t)fast::zero_bits(&w[i >> 6], (int64_t)words);
        for (i += words * 64; i < hi; ++i) c += !get(i);
        return c;
    }
};

ASCEMU_DECL std::string strf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

ASCEMU_DECL void json_escape(std::string& o, const char* s);
inline std::string jstr(const std::string& s) { std::string o; json_escape(o, s.c_str()); return o; }
ASCEMU_DECL std::string jnum(double v);

// details builder: jd("requested", 150, "moved", 128, "dtype", "half") -> {"requested":150,...}
inline void jd_add(std::string&) {}
template <class V, class... R>
inline void jd_add(std::string& o, const char* k, V&& v, R&&... rest) {
    if (o.size() > 1) o += ',';
    json_escape(o, k);
    o += ':';
    using D = std::decay_t<V>;
    if constexpr (std::is_same_v<D, bool>) o += v ? "true" : "false";
    else if constexpr (std::is_integral_v<D> || std::is_enum_v<D>) o += std::to_string((long long)v);
    else if constexpr (std::is_floating_point_v<D>) o += jnum((double)v);
    else if constexpr (std::is_same_v<D, std::string>) json_escape(o, v.c_str());
    else if constexpr (std::is_pointer_v<D> && !std::is_same_v<D, const char*> && !std::is_same_v<D, char*>)
        o += strf("\"%p\"", (const void*)v);
    else json_escape(o, v);
    jd_add(o, std::forward<R>(rest)...);
}
template <class... A>
inline std::string jd(A&&... kv) {
    std::string o = "{";
    jd_add(o, std::forward<A>(kv)...);
    o += '}';
    return o;
}

}  // namespace ascemu

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/util_impl.h"
#endif
