// ascemu/tensor.h — GlobalTensor / LocalTensor (spec §3.4) and UB operand checks (§5.2).
#pragma once
#include <cstring>
#include <type_traits>

#include "ascemu/macros.h"
#include "ascemu/runtime.h"

namespace ascemu {

// ------------------------------------------------------------------------------------------------ UB operands
enum UbAccess : unsigned { UB_R = 1, UB_W = 2 };

struct UbView {
    uint32_t off = 0;    // byte offset in the arena
    uint32_t size = 0;   // elements
    int32_t buf = -1;    // index into Core::bufs, -1 = invalid tensor
    uint32_t gen = 0;
    uint8_t pos = 0;
    uint8_t elem = 1;    // element size of the view
};

// Validates one UB operand covering `bytes` from the view start.  Returns the host pointer, or nullptr when
// the operation must be skipped (invalid tensor, arena overflow).  Marks written bytes for UB_W.
inline uint8_t* ub_operand(Core* c, const UbView& v, size_t bytes, unsigned acc, const SL& loc, const char* role,
                           uint32_t align = 32) {
    if (v.buf < 0 || (size_t)v.buf >= c->bufs.size()) {
        diag("UB_INVALID_TENSOR", Sev::Error, loc,
             strf("%s operand %s is not a live UB tensor (default-constructed, or returned by a DeQue on an empty "
                  "queue); operation skipped",
                  c->last_api, role),
             jd("operand", role));
        return nullptr;
    }
    const UbBuf& b = c->bufs[v.buf];
    if (b.gen != v.gen)
        diag("UB_USE_AFTER_FREE", Sev::Error, loc,
             strf("%s operand %s uses a tensor whose buffer was freed (FreeTensor) since it was obtained", c->last_api,
                  role),
             jd("operand", role, "ub_offset", v.off, "tensor_gen", v.gen, "buffer_gen", b.gen));
    if (align > 1 && (v.off % align) != 0)
        diag("UB_MISALIGNED", Sev::Error, loc,
             strf("%s operand %s at UB offset %u is not %u-byte aligned", c->last_api, role, v.off, align),
             jd("operand", role, "ub_offset", v.off, "align", align));
    uint64_t end = (uint64_t)v.off + bytes;
    uint32_t ubsz = kProfile.ub_size;
    if (end > ubsz) {
        diag("UB_OOB", Sev::Error, loc,
             strf("%s operand %s covers UB [%u, %llu), past the %u-byte arena; operation skipped", c->last_api, role,
                  v.off, (unsigned long long)end, ubsz),
             jd("operand", role, "ub_offset", v.off, "bytes", bytes, "ub_size", ubsz));
        return nullptr;
    }
    if (end > b.hi || v.off < b.lo)
        diag("UB_TENSOR_OVERRUN", Sev::Error, loc,
             strf("%s operand %s covers UB [%u, %llu) but its buffer is [%u, %u)", c->last_api, role, v.off,
                  (unsigned long long)end, b.lo, b.hi),
             jd("operand", role, "ub_offset", v.off, "bytes", bytes, "buffer_lo", b.lo, "buffer_hi", b.hi));
    if ((acc & UB_R) && bytes && !c->ubw.all(v.off, end))
        diag("UB_UNINIT_READ", Sev::Warning, loc,
             strf("%s operand %s reads never-written UB bytes in [%u, %llu) (poison)", c->last_api, role, v.off,
                  (unsigned long long)end),
             jd("operand", role, "ub_offset", v.off, "bytes", bytes), DF_STRICT_ERR);
    if (acc & UB_W) {
        if (b.state == SlotState::EnQ)
            diag("QUE_WRITE_AFTER_ENQUE", Sev::Warning, loc,
                 strf("%s writes operand %s after it was EnQue'd", c->last_api, role), jd("operand", role));
        c->ubw.set(v.off, end);
    }
    return c->ub + v.off;
}

inline void ub_overlap_check(Core* c, const UbView& d, size_t dbytes, const UbView& s, size_t sbytes, const SL& loc,
                             const char* srole) {
    if (d.off == s.off) return;
    if (d.off < s.off + sbytes && s.off < d.off + dbytes)
        diag("UB_PARTIAL_OVERLAP", Sev::Warning, loc,
             strf("%s: dst [%u, %zu) partially overlaps %s [%u, %zu)", c->last_api, d.off, d.off + dbytes, srole, s.off,
                  s.off + sbytes),
             jd("dst", d.off, "src", s.off));
}

template <class T>
inline constexpr bool is_b16_v = sizeof(T) == 2;

}  // namespace ascemu

namespace AscendC {

template <typename T>
class LocalTensor;

// ------------------------------------------------------------------------------------------------ GlobalTensor
template <typename T>
class GlobalTensor {
  public:
    using PrimType = T;
    GlobalTensor() = default;
    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
        base_ = buffer;
        size_ = bufferSize;
    }
    void SetGlobalBuffer(__gm__ T* buffer) {
        base_ = buffer;
        size_ = 0;
    }
    T GetValue(const uint64_t offset, const std::source_location loc = std::source_location::current()) const {
        using namespace ascemu;
        Core* c = api_enter("GlobalTensor::GetValue", loc);
        maybe_yield(c);
        T v;
        std::memset((void*)&v, 0xFF, sizeof(T));
        const uint8_t* p = (const uint8_t*)(base_ + offset);
        logical_check(offset, 1, loc);
        GmAccess a = gm_check(p, sizeof(T), false, sizeof(T), loc, "GlobalTensor::GetValue");
        c->tr.gm_get++;
        if (a.ok == sizeof(T)) {
            gm_uninit_check(a, loc, "GlobalTensor::GetValue");
            std::memcpy((void*)&v, p, sizeof(T));
            gm_note_read(c, p, sizeof(T), loc, "GlobalTensor::GetValue");
        }
        return v;
    }
    void SetValue(const uint64_t offset, const T& value,
                  const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("GlobalTensor::SetValue", loc);
        maybe_yield(c);
        uint8_t* p = (uint8_t*)(base_ + offset);
        logical_check(offset, 1, loc);
        GmAccess a = gm_check(p, sizeof(T), true, sizeof(T), loc, "GlobalTensor::SetValue");
        c->tr.gm_set++;
        if (a.ok == sizeof(T)) {
            std::memcpy(p, (const void*)&value, sizeof(T));
            gm_after_write(c, a, p, sizeof(T), false, loc, "GlobalTensor::SetValue");
        }
    }
    GlobalTensor operator[](const uint64_t offset) const {
        GlobalTensor g;
        g.base_ = base_ + offset;
        g.size_ = size_ > offset ? size_ - offset : 0;
        g.logical_ = size_ ? true : logical_;
        return g;
    }
#if ASCEMU_IS_910B
    T& operator()(const uint64_t offset) const { return base_[offset]; }  // unchecked raw access (P910B only)
#endif
    uint64_t GetSize() const { return size_; }
    __gm__ T* GetPhyAddr() const { return base_; }
    __gm__ T* GetPhyAddr(const uint64_t offset) const { return base_ + offset; }
    void SetL2CacheHint(int) {}
    template <class M>
    void SetL2CacheHint(M) {}

    // ascemu-internal
    void logical_check(uint64_t offset, uint64_t n, const std::source_location& loc) const {
        if (size_ && offset + n > size_)
            ascemu::diag("GM_LOGICAL_OOB", ascemu::Sev::Warning, loc,
                         ascemu::strf("access of elements [%llu, %llu) past the SetGlobalBuffer size %llu",
                                      (unsigned long long)offset, (unsigned long long)(offset + n),
                                      (unsigned long long)size_),
                         ascemu::jd("offset", (long long)offset, "count", (long long)n, "size", (long long)size_));
    }

    __gm__ T* base_ = nullptr;
    uint64_t size_ = 0;
    bool logical_ = false;
};

// ------------------------------------------------------------------------------------------------ LocalTensor
template <typename T>
class LocalTensor {
  public:
    using PrimType = T;
    LocalTensor() = default;

    T GetValue(const uint32_t index, const std::source_location loc = std::source_location::current()) const {
        using namespace ascemu;
        Core* c = api_enter("LocalTensor::GetValue", loc);
        c->tr.ub_get++;
        T v;
        std::memset((void*)&v, 0xFF, sizeof(T));
        UbView e = v_;
        e.off = v_.off + index * (uint32_t)sizeof(T);
        uint8_t* p = ub_operand(c, e, sizeof(T), UB_R, loc, "tensor", 1);
        if (p) std::memcpy((void*)&v, p, sizeof(T));
        return v;
    }
    template <typename T1>
    void SetValue(const uint32_t index, const T1 value,
                  const std::source_location loc = std::source_location::current()) const {
        using namespace ascemu;
        Core* c = api_enter("LocalTensor::SetValue", loc);
        c->tr.ub_set++;
        UbView e = v_;
        e.off = v_.off + index * (uint32_t)sizeof(T);
        uint8_t* p = ub_operand(c, e, sizeof(T), UB_W, loc, "tensor", 1);
        if (p) {
            T v = static_cast<T>(value);
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
        r.v_.off = v_.off + offset * (uint32_t)sizeof(T);
        r.v_.size = v_.size > offset ? v_.size - offset : 0;
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
    uint32_t GetSize() const { return v_.size; }
    void SetSize(const uint32_t size) { v_.size = size; }
    uint32_t GetLength() const { return v_.size * (uint32_t)sizeof(T); }
    uint64_t GetPhyAddr() const { return v_.off; }
    uint64_t GetPhyAddr(const uint32_t offset) const { return v_.off + offset * sizeof(T); }
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
