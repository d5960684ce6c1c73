// ascemu/datacopy.h — DataCopy / DataCopyPad (spec §5.3) and atomic accumulation (§4.8).
#pragma once
#include "ascemu/pipe.h"

// CANN-strict builds (issue 11, deliverable 3).  What CANN's compiler rejects on this platform (a static_assert
// of its dav-m200 / dav-c220 implementation, or a call for which the platform has no overload) does not compile
// here either, and the message names the API and the platform.  Run-time checks remain for what CANN checks at
// run time.  -DASCEMU_CANN_STRICT=0 (or the #define before kernel_operator.h) turns the dtype and Cast-pair
// refusals back into the run-time diagnostics (UNSUPPORTED_DTYPE, UNSUPPORTED_CAST_PAIR, ...), for kernels
// written to exercise those diagnostics.  APIs CANN provides only for newer architectures never compile.
#ifndef ASCEMU_CANN_STRICT
#define ASCEMU_CANN_STRICT 1
#endif
#if ASCEMU_IS_310P
#define ASCEMU_PLATFORM_STR "ascend310p (dav-m200)"
#else
#define ASCEMU_PLATFORM_STR "ascend910b (dav-c220)"
#endif
// A dtype (combination) that CANN rejects at compile time on this platform.
#define ASCEMU_STRICT_DTYPE(API, OK)                                                                        \
    static_assert(!ASCEMU_CANN_STRICT || (OK), API ": this dtype is not supported on " ASCEMU_PLATFORM_STR \
                                                   " (CANN rejects it at compile time)")
// CANN's vector APIs take `uint64_t mask[]`: a const mask array does not convert ([CODE] include/basic_api
// kernel_operator_vec_*_intf.h), so a call with one does not compile with CANN.  ascemu adds a `const uint64_t*`
// overload whose only purpose is to say so.
#define ASCEMU_CONST_MASK_REFUSED(API, T)                                                                        \
    static_assert(ascemu::dependent_false_v<T>, API " takes a non-const uint64_t mask[] on " ASCEMU_PLATFORM_STR \
                                                    " (CANN's signature): a const mask array does not compile")
// An API, or a form of one, that CANN does not provide on this platform (T: any template parameter of the caller).
#define ASCEMU_NOT_ON_PLATFORM(API, T, WHY) \
    static_assert(ascemu::dependent_false_v<T>, API " is not available on " ASCEMU_PLATFORM_STR WHY)

namespace ascemu {

template <class...>
inline constexpr bool dependent_false_v = false;

// A strided transfer: `count` blocks of `len` bytes; block i is at gm + i*gm_pitch and ub + i*ub_pitch.
struct Xfer {
    uint32_t count;
    uint32_t len;
    uint64_t gm_pitch;
    uint64_t ub_pitch;
};

// GM -> UB.  ub_data_off = byte offset of the data inside each UB row (DataCopyPad left padding).
ASCEMU_DECL bool xfer_gm_to_ub(Core* c, const UbView& dv, const uint8_t* g, const Xfer& x, const SL& loc,
                               const char* api, size_t elem, uint32_t ub_data_off = 0, uint32_t ub_row_bytes = 0);

template <class T>
inline void atomic_add_fn(uint8_t* gm, const uint8_t* ub, size_t bytes, OverflowMode ovf);

inline std::mutex& atomic_mutex(const void* p) { return rt().am[((uintptr_t)p >> 6) % 64]; }

// §5.3 MTE_OVERLAP_NO_BARRIER for UB->GM: MTE3 copies whose GM destinations overlap (e.g. a P310 back-stepped
// tail block) need PipeBarrier<PIPE_MTE3> between them ([DOC] p.896); a flag chain back to MTE3 (done)
// orders them too.  Only the last few destinations not yet known complete are kept.  Atomic copies are exempt.
ASCEMU_DECL bool gm_rows_hit(const PipeGmW& w, uint64_t a, uint64_t b);  // does any row of w meet [a, b)?
ASCEMU_DECL void mte3_overlap_check(Core* c, const uint8_t* g, const Xfer& x, const SL& loc);

// The GM side of an MTE3 transfer: rows of `u` (x.ub_pitch apart) stored, or accumulated under SetAtomicAdd, at
// g with every GM check.  u is UB, or the staged value of Fill.
ASCEMU_DECL bool gm_store(Core* c, uint8_t* g, const uint8_t* u, const Xfer& x, const SL& loc, const char* api,
                          size_t elem, const char* dtype);

// UB -> GM (plain or atomic).
ASCEMU_DECL bool xfer_ub_to_gm(Core* c, uint8_t* g, const UbView& sv, const Xfer& x, const SL& loc, const char* api,
                               size_t elem, const char* dtype);

inline void mte_count(MteStat& m, uint64_t bytes, uint64_t bursts) {
    m.bytes += bytes;
    m.ops++;
    m.bursts += bursts;
    if (bytes < 512) m.small_ops++;
    if (g_events) [[unlikely]]
        ev_moved(t_core, &m == &t_core->tr.ub2ub, bytes);
}

template <class T>
inline uint32_t count_form_bytes(Core* c, uint32_t count, const SL& loc, const char* api) {
    uint64_t bytes = (uint64_t)count * sizeof(T);
    uint64_t moved = bytes / 32 * 32;
    if (moved != bytes) {
        if (moved == 0)
            diag("DATACOPY_ZERO", Sev::Warning, loc,
                 strf("%s of %u %s elements = %llu bytes < 32: nothing is moved (DataCopy rounds the length down to "
                      "32 B)",
                      api, count, dtype_name_v<T>, (unsigned long long)bytes),
                 jd("requested", (long long)bytes, "moved", 0, "untouched", (long long)bytes), DF_STRICT_ERR);
        else
            diag("DATACOPY_ROUNDED", Sev::Warning, loc,
                 strf("%s of %u %s elements = %llu bytes is not a multiple of 32: only %llu bytes move", api, count,
                      dtype_name_v<T>, (unsigned long long)bytes, (unsigned long long)moved),
                 jd("requested", (long long)bytes, "moved", (long long)moved, "untouched", (long long)(bytes - moved)),
                 DF_STRICT_ERR);
    }
    (void)c;
    return (uint32_t)moved;
}

ASCEMU_DECL bool params_ok(const AscendC::DataCopyParams& p, const SL& loc, const char* api);

// GM_LOGICAL_OOB of a count-form DataCopy, except the tail copy of whole 32-byte blocks that gm_check does not report
// either: a GlobalTensor that ends where its aclrtMalloc-model buffer's tensor ends, copied up to ALIGN_UP(size, 32)
// of that buffer (a KernelLaunch-style `SetGlobalBuffer(x + offset, blockLength)` on the last core).
template <typename T>
inline void copy_logical_check(const AscendC::GlobalTensor<T>& g, uint32_t count, const SL& loc) {
    constexpr bool nib = AscendC::is_int4_v<T>;
    if (!g.size_ || (uint64_t)count * (nib ? 2 : 1) <= g.size_) return;
    const uint8_t* base = (const uint8_t*)g.base_;
    if (const GmBuf* b = gm_find(base); b && b->alloc == gm_acl_alloc(b->bytes)) {
        const uint8_t* tensor_end = base + (nib ? (g.size_ + 1) / 2 : g.size_ * sizeof(T));
        const uint8_t* copy_end = base + (uint64_t)count * sizeof(T);
        if (tensor_end == b->base + b->bytes && copy_end <= b->base + gm_rounded(b->bytes)) return;
    }
    g.logical_check(0, count, loc);
}

}  // namespace ascemu

namespace AscendC {

// ---------------------------------------------------------------------------------------- DataCopy count form
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count,
                     const std::source_location loc = std::source_location::current()) {
    using namespace ascemu;
    Core* c = api_enter("DataCopy", loc);
    copy_logical_check(src, count, loc);
    uint32_t moved = count_form_bytes<T>(c, count, loc, "DataCopy");
    if (!moved) return;
    if (xfer_gm_to_ub(c, dst.v_, (const uint8_t*)src.GetPhyAddr(), Xfer{1, moved, 0, 0}, loc, "DataCopy", sizeof(T)))
        mte_count(c->tr.mte2, moved, 1);
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                     const std::source_location loc = std::source_location::current()) {
    using namespace ascemu;
    Core* c = api_enter("DataCopy", loc);
    copy_logical_check(dst, count, loc);
    uint32_t moved = count_form_bytes<T>(c, count, loc, "DataCopy");
    if (!moved) return;
    if (xfer_ub_to_gm(c, (uint8_t*)dst.GetPhyAddr(), src.v_, Xfer{1, moved, 0, 0}, loc, "DataCopy", sizeof(T),
                      dtype_name_v<T>))
        mte_count(c->tr.mte3, moved, 1);
}
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                     const std::source_location loc = std::source_location::current()) {
    using namespace ascemu;
    Core* c = api_enter("DataCopy", loc);
    uint32_t moved = count_form_bytes<T>(c, count, loc, "DataCopy");
    if (!moved) return;
    uint8_t* s = ub_operand(c, src.v_, moved, UB_R, loc, "src");
    uint8_t* d = ub_operand(c, dst.v_, moved, UB_W, loc, "dst");
    if (!s || !d) return;
    std::memmove(d, s, moved);
    mte_count(c->tr.ub2ub, moved, 1);
}

// ---------------------------------------------------------------------------------------- DataCopyParams form
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                     const std::source_location loc = std::source_location::current()) {
    using namespace ascemu;
    Core* c = api_enter("DataCopy", loc);
    if (!params_ok(p, loc, "DataCopy")) return;
    Xfer x{p.blockCount, p.blockLen * 32u, (uint64_t)(p.blockLen + p.srcStride) * 32u,
           (uint64_t)(p.blockLen + p.dstStride) * 32u};
    if (xfer_gm_to_ub(c, dst.v_, (const uint8_t*)src.GetPhyAddr(), x, loc, "DataCopy", sizeof(T)))
        mte_count(c->tr.mte2, (uint64_t)x.count * x.len, x.count);
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                     const std::source_location loc = std::source_location::current()) {
    using namespace ascemu;
    Core* c = api_enter("DataCopy", loc);
    if (!params_ok(p, loc, "DataCopy")) return;
    Xfer x{p.blockCount, p.blockLen * 32u, (uint64_t)(p.blockLen + p.dstStride) * 32u,
           (uint64_t)(p.blockLen + p.srcStride) * 32u};
    if (xfer_ub_to_gm(c, (uint8_t*)dst.GetPhyAddr(), src.v_, x, loc, "DataCopy", sizeof(T), dtype_name_v<T>))
        mte_count(c->tr.mte3, (uint64_t)x.count * x.len, x.count);
}
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                     const std::source_location loc = std::source_location::current()) {
    using namespace ascemu;
    Core* c = api_enter("DataCopy", loc);
    if (!params_ok(p, loc, "DataCopy")) return;
    uint64_t len = p.blockLen * 32ull, sp = (p.blockLen + p.srcStride) * 32ull, dp = (p.blockLen + p.dstStride) * 32ull;
    uint64_t sspan = (p.blockCount - 1) * sp + len, dspan = (p.blockCount - 1) * dp + len;
    uint8_t* s = ub_operand(c, src.v_, sspan, UB_PR, loc, "src");
    uint8_t* d = ub_operand(c, dst.v_, dspan, UB_PW, loc, "dst");
    if (!s || !d) return;
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        c->ubw.set(dst.v_.off + i * dp, dst.v_.off + i * dp + len);
        if (!c->ubw.all(src.v_.off + i * sp, src.v_.off + i * sp + len))
            diag("UB_UNINIT_READ", Sev::Warning, loc, "DataCopy UB->UB reads never-written bytes",
                 jd("block", i), DF_STRICT_ERR);
        std::memmove(d + i * dp, s + i * sp, len);
    }
    mte_count(c->tr.ub2ub, p.blockCount * len, p.blockCount);
}
template <typename T, typename U>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& p,
                     const std::source_location loc = std::source_location::current())
    requires(!std::is_same_v<T, U>)
{
    using namespace ascemu;
    Core* c = api_enter("DataCopy", loc);
    if constexpr (kIs310P) {
        diag("UNSUPPORTED_API", Sev::Error, loc, "DataCopy<T,U> between different UB dtypes is not available on 310P",
             "{}");
        return;
    }
    (void)c;
    DataCopy(dst, src.template ReinterpretCast<T>(), p, loc);
}

// ---------------------------------------------------------------------------------------- DataCopyPad (910B)
namespace ascemu_detail {
template <typename T>
inline void pad_gm_to_ub(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint16_t blockCount, uint32_t blockLen,
                         uint32_t srcStride, uint32_t dstStride, bool isPad, uint8_t l, uint8_t r, T padv,
                         const std::source_location& loc) {
    using namespace ascemu;
    Core* c = api_enter("DataCopyPad", loc);
    if constexpr (kIs310P) {
        diag("UNSUPPORTED_API", Sev::Error, loc, "DataCopyPad is not available on 310P (dav-m200); no effect", "{}");
        return;
    } else {
        if (blockCount < 1 || blockCount > 4095 || blockLen < 1 || l * sizeof(T) > 32 || r * sizeof(T) > 32) {
            diag("PARAM_RANGE", Sev::Error, loc,
                 strf("DataCopyPad: blockCount %u / blockLen %u / leftPadding %u / rightPadding %u out of range",
                      blockCount, blockLen, l, r),
                 jd("blockCount", blockCount, "blockLen", blockLen, "leftPadding", l, "rightPadding", r));
            return;
        }
        uint32_t lb = l * sizeof(T), rb = r * sizeof(T);
        uint32_t rowb = (lb + blockLen + rb + 31u) / 32u * 32u;
        Xfer x{blockCount, blockLen, (uint64_t)blockLen + srcStride, (uint64_t)rowb + dstStride * 32ull};
        // data rows; the padding bytes are written below
        if (!xfer_gm_to_ub(c, dst.v_, (const uint8_t*)src.GetPhyAddr(), x, loc, "DataCopyPad", sizeof(T), lb, rowb - lb))
            return;
        // isPad loads paddingValue into the pad register (set_mov_pad_val in dav_c220 DataCopyPadGm2UBImpl);
        // without it the padding takes the register's value when SetPadValue (or an earlier isPad copy) set it,
        // else the hardware's unspecified bytes (left unwritten here)
        if (isPad) {
            c->pad_value = 0;
            std::memcpy(&c->pad_value, &padv, sizeof(T));
            c->pad_value_set = true;
        } else if (c->pad_value_set && (l || r)) {
            std::memcpy(&padv, &c->pad_value, sizeof(T));
            isPad = true;
        }
        if (isPad) {
            uint8_t* u = c->ub + dst.v_.off;
            for (uint32_t i = 0; i < blockCount; ++i) {
                uint8_t* row = u + (uint64_t)i * x.ub_pitch;
                for (uint32_t k = 0; k < l; ++k) std::memcpy(row + k * sizeof(T), &padv, sizeof(T));
                for (uint32_t k = 0; k < r; ++k) std::memcpy(row + lb + blockLen + k * sizeof(T), &padv, sizeof(T));
            }
        }
        if (isPad)  // the pad bytes count as written; the rest of each row keeps its previous contents
            for (uint32_t i = 0; i < blockCount; ++i) {
                uint64_t ro = dst.v_.off + (uint64_t)i * x.ub_pitch;
                c->ubw.set(ro, ro + lb);
                c->ubw.set(ro + lb + blockLen, ro + lb + blockLen + rb);
            }
        mte_count(c->tr.mte2, (uint64_t)blockCount * blockLen, blockCount);
    }
}
template <typename T>
inline void pad_ub_to_gm(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint16_t blockCount, uint32_t blockLen,
                         uint32_t srcStride, uint32_t dstStride, const std::source_location& loc) {
    using namespace ascemu;
    Core* c = api_enter("DataCopyPad", loc);
    if constexpr (kIs310P) {
        diag("UNSUPPORTED_API", Sev::Error, loc, "DataCopyPad is not available on 310P (dav-m200); no effect", "{}");
        return;
    } else {
        if (blockCount < 1 || blockCount > 4095 || blockLen < 1) {
            diag("PARAM_RANGE", Sev::Error, loc,
                 strf("DataCopyPad: blockCount %u / blockLen %u out of range", blockCount, blockLen),
                 jd("blockCount", blockCount, "blockLen", blockLen));
            return;
        }
        uint32_t rowb = (blockLen + 31u) / 32u * 32u;
        Xfer x{blockCount, blockLen, (uint64_t)blockLen + dstStride, (uint64_t)rowb + srcStride * 32ull};
        if (xfer_ub_to_gm(c, (uint8_t*)dst.GetPhyAddr(), src.v_, x, loc, "DataCopyPad", sizeof(T), dtype_name_v<T>))
            mte_count(c->tr.mte3, (uint64_t)blockCount * blockLen, blockCount);
    }
}
}  // namespace ascemu_detail

template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                        const DataCopyPadExtParams<T>& pad,
                        const std::source_location loc = std::source_location::current()) {
    ascemu_detail::pad_gm_to_ub(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, pad.isPad,
                                pad.leftPadding, pad.rightPadding, (T)pad.paddingValue, loc);
}
// CANN declares DataCopyPad's PaddingMode template parameter for __NPU_ARCH__ 3510 / 5102 only
// (include/basic_api/kernel_operator_data_copy_intf.h): on 310P and 910B `DataCopyPad<T, mode>` does not compile.
template <typename T, PaddingMode mode, class... Args>
inline void DataCopyPad(const Args&...) {
    static_assert(ascemu::dependent_false_v<T>, "DataCopyPad<T, PaddingMode> is not available on " ASCEMU_PLATFORM_STR
                                                ": CANN has the padding-mode template parameter on Ascend 950 "
                                                "(__NPU_ARCH__ 3510/5102) only; call DataCopyPad<T>");
}
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                        const DataCopyPadParams& pad, const std::source_location loc = std::source_location::current()) {
    T v;
    uint64_t pv = pad.paddingValue;
    std::memcpy(&v, &pv, sizeof(T));
    ascemu_detail::pad_gm_to_ub(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, pad.isPad,
                                pad.leftPadding, pad.rightPadding, v, loc);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p,
                        const std::source_location loc = std::source_location::current()) {
    ascemu_detail::pad_ub_to_gm(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, loc);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                        const std::source_location loc = std::source_location::current()) {
    ascemu_detail::pad_ub_to_gm(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, loc);
}

// SetPadValue: loads the pad register that DataCopyPad (GM -> UB) pads with when isPad is false (910B; CANN refuses
// it at run time elsewhere: dav_m200 has no set_mov_pad_val).  pos: VECIN, VECOUT or MAX.
template <typename T, TPosition pos = TPosition::MAX>
inline void SetPadValue(T paddingValue, const std::source_location loc = std::source_location::current()) {
    using namespace ascemu;
    static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::MAX,
                  "SetPadValue: pos must be TPosition::VECIN, VECOUT or MAX");
    Core* c = api_enter("SetPadValue", loc);
    c->psv.cur = PX_S;
    if constexpr (kIs310P) {
        diag("UNSUPPORTED_API", Sev::Error, loc,
             strf("SetPadValue is not available on %s (dav-m200); no effect", kProfile.name),
             jd("api", "SetPadValue", "platform", kProfile.name));
    } else {
        c->pad_value = 0;
        std::memcpy(&c->pad_value, &paddingValue, std::min<size_t>(sizeof(T), 8));
        c->pad_value_set = true;
    }
}

}  // namespace AscendC

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/datacopy_impl.h"
#endif
