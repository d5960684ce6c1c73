// ascemu/tensor.h — GlobalTensor / LocalTensor (spec §3.4) and UB operand checks (§5.2).
#pragma once
#include <cstring>
#include <type_traits>

#include "ascemu/macros.h"
#include "ascemu/runtime.h"

// The platform as compile-time error messages name it.
#ifndef ASCEMU_ARCH_LABEL
#if ASCEMU_IS_310P
#define ASCEMU_ARCH_LABEL "ascend310p (__NPU_ARCH__ 2002)"
#else
#define ASCEMU_ARCH_LABEL "ascend910b (__NPU_ARCH__ 2201)"
#endif
#endif

namespace ascemu {

// ------------------------------------------------------------------------------------------------ UB operands
// UB_R / UB_W: read / write the whole extent (uninitialised-read check, written shadow, pipe model).
// UB_PR / UB_PW: pipe model only, for strided operands whose shadow bits the caller handles per lane.
enum UbAccess : unsigned { UB_R = 1, UB_W = 2, UB_PR = 4, UB_PW = 8 };

struct UbView {
    uint32_t off = 0;    // byte offset in the arena
    uint32_t size = 0;   // elements
    int32_t buf = -1;    // index into Core::bufs, -1 = invalid tensor
    uint32_t gen = 0;
    uint8_t pos = 0;
    uint8_t elem = 1;    // element size of the view
};

// ------------------------------------------------------------------------------------------------ pipe model
// §5.5 pipe/event sync model (advisory); the data structures and their invariants are in runtime.h.
inline const char* pipe_ix_name(int p) {
    static const char* n[] = {"S", "V", "MTE2", "MTE3"};
    return p >= 0 && p < PX_N ? n[p] : "?";
}
ASCEMU_DECL int pipe_level(Core* c);
// Instructions are issued by the scalar unit in program order, so a pipe-q instruction issued after the
// scalar waited on p (WaitFlag<p_S>) is ordered after p as well.  The scalar's own UB stores are not
// (that is what S_V / S_MTE3 are for), so S's own component is not inherited.
inline void pipe_inherit(PipeState& s, int q) {
    if (q == PX_S) return;
    for (int x = 1; x < PX_N; ++x) s.vc[q][x] = std::max(s.vc[q][x], s.vc[PX_S][x]);
}
// One flag src -> dst (SetFlag/WaitFlag, or the flag a queue position implies).  The signal snapshots src's
// clock; the caller then starts a new src epoch, so later src writes are not covered.
inline void pipe_signal(PipeState& s, int src, uint32_t* snap) {
    pipe_inherit(s, src);
    for (int x = 0; x < PX_N; ++x) snap[x] = s.vc[src][x];
}
inline void pipe_wait(PipeState& s, int dst, const uint32_t* snap) {
    for (int x = 0; x < PX_N; ++x)
        if (x != dst) s.vc[dst][x] = std::max(s.vc[dst][x], snap[x]);
    s.done[dst] = std::max(s.done[dst], snap[dst]);  // what src knew of dst's own progress
}
// PipeBarrier<PIPE_ALL>, SyncAll: every pipe waits for everything issued so far, then all start a new epoch.
inline void pipe_barrier_all(Core* c) {
    PipeState& s = c->psv;
    uint32_t t[PX_N];
    for (int x = 0; x < PX_N; ++x) t[x] = s.vc[x][x]++;
    for (int q = 0; q < PX_N; ++q) {
        for (int x = 0; x < PX_N; ++x)
            if (x != q) s.vc[q][x] = std::max(s.vc[q][x], t[x]);
        s.done[q] = std::max(s.done[q], t[q]);
    }
}
// PipeBarrier<p> for one pipe: later p instructions wait for earlier ones (only MTE overlap cares).
inline void pipe_barrier_one(Core* c, int p) {
    PipeState& s = c->psv;
    s.done[p] = s.vc[p][p]++;
}

ASCEMU_DECL void pipe_report(Core* c, PipeTag& t, int q, bool write, uint32_t lo, uint32_t hi, const SL& loc,
                             const char* role);

// V -> V read-after-write with no PipeBarrier<PIPE_V> between the two instructions.  CANN's PipeBarrier page asks
// for the barrier between same-pipe instructions with a data dependency and notes that the compiler's automatic
// synchronisation (on by default) inserts it, hence info by default and a warning under pipe_check "strict", as
// PIPE_HAZARD.  Reported once per reading statement and core.
ASCEMU_DECL void pipe_report_vraw(Core* c, const PipeTag& t, uint32_t lo, uint32_t hi, const SL& loc, const char* role);

// A UB access [lo, hi) by the current API's pipe: checks reads (RAW) and writes (WAW) against the tags, then
// tags written bytes.  Write-after-read is not modelled (it would need read tags).
ASCEMU_DECL void pipe_ub(Core* c, uint32_t lo, uint32_t hi, bool rd, bool wr, const SL& loc, const char* role);

// Validates one UB operand covering `bytes` from the view start.  Returns the host pointer, or nullptr when
// the operation must be skipped (invalid tensor, arena overflow).  Marks written bytes for UB_W.
ASCEMU_DECL uint8_t* ub_operand(Core* c, const UbView& v, size_t bytes, unsigned acc, const SL& loc, const char* role,
                                uint32_t align = 32);

ASCEMU_DECL void ub_overlap_check(Core* c, const UbView& d, size_t dbytes, const UbView& s, size_t sbytes, const SL& loc,
                                  const char* srole);

// ------------------------------------------------------------------------------------------------ static tensors
// Static-Tensor programming (no TPipe): LocalTensor(TPosition, addr, tileSize) and LocalMemAllocator place a tensor
// at a UB byte address themselves.  Each such tensor gets a buffer record of its own in Core::bufs, so the operand
// checks (UB_OOB, UB_TENSOR_OVERRUN, the written shadow, the pipe model) apply as they do to TPipe buffers.  The
// creation checks are those of CANN's CPU-debug LocalTensor::CreateTensor (impl/basic_api/kernel_tensor_impl.h):
// a UB position, a 32-byte aligned address and length, a non-empty tensor, and the end inside UB.
inline const char kStaticTensorOwner = 0;  // UbBuf::owner of every static tensor
inline int& live_ub_allocators() {          // LocalMemAllocator<Hardware::UB> objects alive on this core thread
    static thread_local int n = 0;
    return n;
}

inline bool pos_is_ub_code(uint8_t p) {
    using AscendC::TPosition;
    return p == (uint8_t)TPosition::VECIN || p == (uint8_t)TPosition::VECOUT || p == (uint8_t)TPosition::VECCALC;
}

// The buffer record of a static tensor covering UB [addr, addr + bytes): an existing one for the same range (a
// tensor re-created in a loop), else a new one.  -1 when the position is not UB (the tensor stays invalid).
ASCEMU_DECL int32_t static_ub_buf(Core* c, uint8_t pos, uint32_t addr, uint64_t bytes, const SL& loc, const char* api);

template <class T>
inline constexpr bool is_b16_v = sizeof(T) == 2;

// ------------------------------------------------------------------------------------------------ DCache
// §5.1: each core caches scalar GM accesses (GlobalTensor::GetValue/SetValue) in 64-B lines; DMA bypasses the
// cache and costs nothing extra.  A GetValue miss fills the line; a hit returns the cached bytes, and when
// those differ from GM (another core, or a DMA, changed them since the fill) that is DCACHE_STALE_READ: on
// the device the kernel would read the old value (a GetValue poll of a flag never sees the flag change).
// ascemu reports it and refreshes the line, so the launch continues.  DataCacheCleanAndInvalid invalidates.
// [CHOICE] SetValue is write-through (GM and the core's own cached copy at once): the write-back half of
// §5.1 (dirty bytes, DCACHE_DMA_INCOHERENT, DCACHE_LINE_CLOBBER) needs a kernel-end flush hook in launch.h.
ASCEMU_DECL bool dcache_enabled(Core* c);
// Reads n bytes at p (inside one line, inside an allocation) through the cache into out; false = not cached
// (dcache off, or the access straddles a line), the caller reads GM directly.
ASCEMU_DECL bool dcache_read(Core* c, const uint8_t* p, size_t n, void* out, const SL& loc);
// The core's own scalar store also updates its cached copy (write-through, see above).
ASCEMU_DECL void dcache_write(Core* c, const uint8_t* p, const void* v, size_t n);
// DataCacheCleanAndInvalid: SINGLE_CACHE_LINE drops the line holding p, ENTIRE_DATA_CACHE every line.
ASCEMU_DECL void dcache_invalidate(Core* c, const void* p, bool entire);

// GM_LOGICAL_OOB: elements [offset, offset + n) of a GlobalTensor whose SetGlobalBuffer size is `size`.
ASCEMU_DECL void gm_logical_oob(uint64_t offset, uint64_t n, uint64_t size, const SL& loc);

}  // namespace ascemu

namespace AscendC {

template <typename T>
class LocalTensor;

// ------------------------------------------------------------------------------------------------ GlobalTensor
// int4b_t tensors are packed two values a byte (element 2k in the low nibble of byte k): sizes and element offsets
// count values, addresses bytes (offset / 2), as CANN's kernel_tensor_impl.h.  DataCopy of them moves count bytes on
// 310P and 910B (CANN's DataCopy takes count / 32 blocks of 32 bytes for a 1-byte type), i.e. 2 * count values.
template <typename T>
inline constexpr bool is_int4_v = std::is_same_v<T, int4b_t>;

template <typename T>
class GlobalTensor {
    static constexpr bool kNib = is_int4_v<T>;

  public:
    using PrimType = T;
    GlobalTensor() = default;
    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
        base_ = buffer;
        origin_ = buffer;
        size_ = bufferSize;
    }
    void SetGlobalBuffer(__gm__ T* buffer) {
        base_ = buffer;
        origin_ = buffer;
        size_ = 0;
    }
    T GetValue(const uint64_t offset, const std::source_location loc = std::source_location::current()) const {
        using namespace ascemu;
        Core* c = api_enter("GlobalTensor::GetValue", loc);
        maybe_yield(c);
        T v;
        std::memset((void*)&v, 0xFF, sizeof(T));
        const uint8_t* p = (const uint8_t*)(base_ + (kNib ? offset / 2 : offset));
        value_check(offset, loc);
        gm_note_view(p, origin_);
        GmAccess a = gm_check(p, sizeof(T), false, sizeof(T), loc, "GlobalTensor::GetValue");
        c->tr.gm_get++;
        if (a.ok == sizeof(T)) {
            gm_uninit_check(a, loc, "GlobalTensor::GetValue");
            if (!dcache_read(c, p, sizeof(T), (void*)&v, loc)) std::memcpy((void*)&v, p, sizeof(T));
            gm_note_read(c, p, sizeof(T), loc, "GlobalTensor::GetValue");
        }
        if constexpr (kNib) return T(uint32_t(v.storage >> (4 * (offset % 2))));
        return v;
    }
    void SetValue(const uint64_t offset, const T& value,
                  const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("GlobalTensor::SetValue", loc);
        maybe_yield(c);
        uint8_t* p = (uint8_t*)(base_ + (kNib ? offset / 2 : offset));
        value_check(offset, loc);
        gm_note_view(p, origin_);
        GmAccess a = gm_check(p, sizeof(T), true, sizeof(T), loc, "GlobalTensor::SetValue");
        c->tr.gm_set++;
        if (a.ok == sizeof(T)) {
            T w = value;
            if constexpr (kNib) {  // the other nibble of the byte stays
                const unsigned sh = 4 * (offset % 2);
                w.storage = uint8_t((*p & (0xF0u >> sh)) | ((value.storage & 0xFu) << sh));
            }
            std::memcpy(p, (const void*)&w, sizeof(T));
            dcache_write(c, p, (const void*)&w, sizeof(T));
            gm_after_write(c, a, p, sizeof(T), false, loc, "GlobalTensor::SetValue");
        }
    }
    GlobalTensor operator[](const uint64_t offset) const {
        GlobalTensor g;
        g.base_ = base_ + (kNib ? offset / 2 : offset);
        g.origin_ = origin_;
        g.size_ = size_ > offset ? size_ - offset : 0;
        g.logical_ = size_ ? true : logical_;
        return g;
    }
    // A raw reference into GM, as CANN's (include/basic_api/kernel_tensor.h declares it for every architecture).
    // Accesses through it bypass the DCache model and the written / race bookkeeping (spec P5); the address is
    // checked: an element outside every GM allocation is reported and the reference goes to a scratch element.
    __gm__ T& operator()(const uint64_t offset, const std::source_location loc = std::source_location::current()) const {
        using namespace ascemu;
        static_assert(!kNib, "GlobalTensor<int4b_t>::operator(): a reference cannot name half a byte; use GetValue");
        if (!t_core) return base_[offset];
        api_enter("GlobalTensor::operator()", loc);
        logical_check(offset, 1, loc);
        gm_note_view(base_ + offset, origin_);
        if (gm_check(base_ + offset, sizeof(T), false, sizeof(T), loc, "GlobalTensor::operator()").ok == sizeof(T))
            return base_[offset];
        static thread_local T scratch;
        std::memset((void*)&scratch, 0xFF, sizeof(T));
        return scratch;
    }
    // CANN declares GlobalTensor::ReinterpretCast only for __NPU_ARCH__ 3510 / 5102 (Ascend 950 generation; the
    // `#if` around it in include/basic_api/kernel_tensor.h of cann/asc-devkit), so CANN's compiler rejects it for
    // 310P (2002) and 910B (2201): a compile error here too.
    template <typename U>
    GlobalTensor<U> ReinterpretCast() const {
        static_assert(sizeof(U) == 0,
                      "GlobalTensor::ReinterpretCast needs a newer architecture: CANN provides it for __NPU_ARCH__ "
                      "3510/5102 (Ascend 950) only, not for " ASCEMU_ARCH_LABEL
                      "; reinterpret the __gm__ pointer and call SetGlobalBuffer instead");
        return {};
    }
    uint64_t GetSize() const { return size_; }
    // The APIs that take a GlobalTensor's address from here are judged by the allocation it was set on (gm_check).
    __gm__ T* GetPhyAddr() const {
        ascemu::gm_note_view(base_, origin_);
        return base_;
    }
    __gm__ T* GetPhyAddr(const uint64_t offset) const {
        __gm__ T* p = base_ + (kNib ? offset / 2 : offset);
        ascemu::gm_note_view(p, origin_);
        return p;
    }
    // CANN's signature; ascemu has no L2, so the hint changes nothing (CacheMode in api_types.h).
    template <CacheRwMode rwMode = CacheRwMode::RW>
    void SetL2CacheHint(CacheMode mode) {
        (void)mode;
    }

    // ascemu-internal
    // offset and n in storage units of T, as the copies count them (bytes for int4b_t: 2 values each).
    void logical_check(uint64_t offset, uint64_t n, const std::source_location& loc) const {
        const uint64_t k = kNib ? 2 : 1;
        if (size_ && (offset + n) * k > size_) ascemu::gm_logical_oob(offset * k, n * k, size_, loc);
    }
    void value_check(uint64_t offset, const std::source_location& loc) const {  // one element
        if (size_ && offset + 1 > size_) ascemu::gm_logical_oob(offset, 1, size_, loc);
    }

    __gm__ T* base_ = nullptr;
    const void* origin_ = nullptr;  // what SetGlobalBuffer was given: the tensor's allocation (gm_note_view)
    uint64_t size_ = 0;
    bool logical_ = false;
};

// ------------------------------------------------------------------------------------------------ LocalTensor
// v_.size counts storage units of T (bytes for int4b_t); GetSize() counts values.
template <typename T>
class LocalTensor {
    static constexpr bool kNib = is_int4_v<T>;

  public:
    using PrimType = T;
    LocalTensor() = default;
    // The whole-tensor operator forms (dst = src0 + src1, dst = src0 < src1, ...): vector.h's expression objects.
    template <class Expr>
        requires requires(const Expr& e, const LocalTensor& d) { e.ascemu_assign_to(d); }
    void operator=(const Expr& e) {
        e.ascemu_assign_to(*this);
    }
    // Static-Tensor programming: a tensor of tileSize elements at UB byte address `addr` (see static_ub_buf).
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize,
                const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = t_core;
        if (!c) return;  // built outside a launch: stays invalid (UB_INVALID_TENSOR when used)
        api_enter("LocalTensor(pos, addr, tileSize)", loc);
        int32_t b = static_ub_buf(c, (uint8_t)pos, addr, (uint64_t)tileSize * sizeof(T), loc, "LocalTensor(pos, addr, tileSize)");
        if (b >= 0) v_ = UbView{addr, tileSize, b, c->bufs[b].gen, (uint8_t)pos, (uint8_t)sizeof(T)};
    }

    T GetValue(const uint32_t index, const std::source_location loc = std::source_location::current()) const {
        using namespace ascemu;
        Core* c = api_enter("LocalTensor::GetValue", loc);
        c->psv.cur = PX_S;
        c->tr.ub_get++;
        T v;
        std::memset((void*)&v, 0xFF, sizeof(T));
        UbView e = v_;
        e.off = v_.off + (kNib ? index / 2 : index * (uint32_t)sizeof(T));
        uint8_t* p = ub_operand(c, e, sizeof(T), UB_R, loc, "tensor", 1);
        if (p) std::memcpy((void*)&v, p, sizeof(T));
        if constexpr (kNib) return T(uint32_t(v.storage >> (4 * (index % 2))));
        return v;
    }
    template <typename T1>
    void SetValue(const uint32_t index, const T1 value,
                  const std::source_location loc = std::source_location::current()) const {
        using namespace ascemu;
        Core* c = api_enter("LocalTensor::SetValue", loc);
        c->psv.cur = PX_S;
        c->tr.ub_set++;
        UbView e = v_;
        e.off = v_.off + (kNib ? index / 2 : index * (uint32_t)sizeof(T));
        uint8_t* p = ub_operand(c, e, sizeof(T), UB_W, loc, "tensor", 1);
        if (p) {
            T v = static_cast<T>(value);
            if constexpr (kNib) {  // read-modify-write of the byte: the other nibble stays (CANN's SetValue)
                const unsigned sh = 4 * (index % 2);
                v.storage = uint8_t((*p & (0xF0u >> sh)) | ((v.storage & 0xFu) << sh));
            }
            std::memcpy(p, (const void*)&v, sizeof(T));
        }
    }
    struct Ref {
        LocalTensor t;
        uint32_t i;
        operator T() const { return t.GetValue(i); }
        Ref& operator=(const T& v) {
            t.SetValue(i, v);
            return *this;
        }
    };
    Ref operator()(const uint32_t index) const { return Ref{*this, index}; }

    LocalTensor operator[](const uint32_t offset) const {
        LocalTensor r = *this;
        const uint32_t units = kNib ? offset / 2 : offset;
        r.v_.off = v_.off + units * (uint32_t)sizeof(T);
        r.v_.size = v_.size > units ? v_.size - units : 0;
        return r;
    }
    template <typename U>
    LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> r;
        r.v_ = v_;
        r.v_.size = (uint32_t)((uint64_t)v_.size * sizeof(T) / sizeof(U));
        r.v_.elem = sizeof(U);
        return r;
    }
    uint32_t GetSize() const { return kNib ? v_.size * 2 : v_.size; }
    void SetSize(const uint32_t size) { v_.size = kNib ? size / 2 : size; }
    uint32_t GetLength() const { return v_.size * (uint32_t)sizeof(T); }
    uint64_t GetPhyAddr() const { return v_.off; }
    uint64_t GetPhyAddr(const uint32_t offset) const { return v_.off + (kNib ? offset / 2 : offset * sizeof(T)); }
    TPosition GetPosition() const { return (TPosition)v_.pos; }
    void SetUserTag(int32_t tag) { tag_ = tag; }
    int32_t GetUserTag() const { return tag_; }
    void SetAddrWithOffset(LocalTensor<T>& src, uint32_t offset) { *this = src[offset]; }
    template <class U>
    void SetAddrWithOffset(LocalTensor<U>& src, uint32_t offset) {
        v_ = src.v_;
        v_.off += offset * (uint32_t)sizeof(U);
        v_.size = (uint32_t)((uint64_t)(src.v_.size > offset ? src.v_.size - offset : 0) * sizeof(U) / sizeof(T));
        v_.elem = sizeof(T);
    }

    // ascemu-internal
    void elem_oob(ascemu::Core* c, uint32_t index, const std::source_location& loc) const {
        ascemu::diag("UB_TENSOR_OVERRUN", ascemu::Sev::Error, loc,
                     ascemu::strf("%s index %u is past the tensor size %u", c->last_api, index, v_.size),
                     ascemu::jd("index", index, "size", v_.size, "ub_offset", v_.off));
    }
    T* host_ptr() const { return (T*)(ascemu::t_core->ub + v_.off); }
    ascemu::UbView v_{};
    int32_t tag_ = 0;
};

}  // namespace AscendC

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/tensor_impl.h"
#endif
