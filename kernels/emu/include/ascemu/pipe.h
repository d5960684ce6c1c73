// ascemu/pipe.h — TPipe, TQueBind/TQue, TBuf (spec §3.4) with the UB allocation checks of §5.2 and the
// queue protocol of §5.4.
#pragma once
#include "ascemu/tensor.h"

namespace ascemu {

inline const char* pos_name(AscendC::TPosition p) {
    using AscendC::TPosition;
    switch (p) {
        case TPosition::VECIN: return "VECIN";
        case TPosition::VECOUT: return "VECOUT";
        case TPosition::VECCALC: return "VECCALC";
        case TPosition::GM: return "GM";
        default: return "non-UB";
    }
}
inline bool pos_is_ub(AscendC::TPosition p) {
    using AscendC::TPosition;
    return p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC;
}

// ------------------------------------------------------------------------------------------------ event IDs
// The HardEvent of a queue edge from pipe `from` to pipe `to`, as CANN's GetQueEvt names it for the UB queues:
// TQue<VECIN> sets MTE2_V at EnQue and V_MTE2 at FreeTensor, TQue<VECOUT> V_MTE3 and MTE3_V.
constexpr AscendC::HardEvent queue_event(int from, int to) {
    using AscendC::HardEvent;
    if (from == PX_MTE2) return to == PX_MTE3 ? HardEvent::MTE2_MTE3 : HardEvent::MTE2_V;
    if (to == PX_MTE2) return from == PX_MTE3 ? HardEvent::MTE3_MTE2 : HardEvent::V_MTE2;
    if (from == PX_MTE3) return HardEvent::MTE3_V;
    return to == PX_MTE3 ? HardEvent::V_MTE3 : HardEvent::V_V;
}
// The lowest ID of event e that neither the kernel (AllocEventID) nor a queue holds; -1 when all 8 are held.
inline int free_event_id(const Core* c, int e) {
    uint8_t held = c->live->ev_alloc[e] | c->live->ev_queue[e];
    for (int id = 0; id < 8; ++id)
        if (!((held >> id) & 1)) return id;
    return -1;
}
// A SetFlag of the kernel's and a queue's flag on one (event, ID) at the same time: either WaitFlag may consume the
// other's flag, and the ordering one of them promises is lost (docs/diagnostics.md#event_id_unmanaged).
ASCEMU_DECL void event_id_collision(int e, int id, const SL& set_loc, const SL& queue_loc);
// CANN's queues take an ID with AllocEventID for the SetFlag of EnQue (held: SLOT_ENQUE) and FreeTensor (SLOT_FREE)
// and release it after the matching WaitFlag (DeQue, the slot's next AllocTensor).  A pending SetFlag of the
// kernel's on the ID a queue takes collides with it.
enum SlotHold { SLOT_ENQUE = 0, SLOT_FREE = 1 };
inline void queue_release_event(Core* c, UbBuf& b, SlotHold h) {
    if (b.hold_id[h] >= 0) c->live->ev_queue[b.hold_evt[h]] &= (uint8_t)~(1u << b.hold_id[h]);
    b.hold_id[h] = -1;
}
ASCEMU_DECL void queue_hold_event(Core* c, UbBuf& b, SlotHold h, AscendC::HardEvent evt, const SL& loc);

}  // namespace ascemu

namespace AscendC {

class TPipe;
inline TPipe*& ascemu_current_pipe() {
    static thread_local TPipe* p = nullptr;
    return p;
}

// ------------------------------------------------------------------------------------------------ queues
}  // namespace AscendC

namespace ascemu {
// A TQue/TQueBind's state and operations.  The operations depend on the queue's template arguments only through the
// values passed in (the pipes its flags connect, their events, its depth) and on the element type only through its
// size, so they are compiled once (ascemu/linkage.h) instead of once per queue and element type.  The queue object's
// address is its buffers' owner (UbBuf::owner): this state is its first and only base, at the same address.
struct QueueState {
    explicit QueueState(AscendC::TPosition pos) : pos_(pos) {}
    // AllocTensor: the next free buffer, as a view of `elem`-byte elements, into `out`; false (out untouched): none.
    bool alloc_slot(uint32_t elem, int producer, UbView& out, const SL& loc);
    void free_slot(const UbView& v, int consumer, AscendC::HardEvent free_evt, const SL& loc);
    bool enque_slot(const UbView& v, int32_t depth, int producer, AscendC::HardEvent enque_evt, const SL& loc);
    // DeQue: the oldest enqueued buffer into `out`; false (out untouched): the queue is empty.
    bool deque_slot(uint32_t elem, int consumer, UbView& out, const SL& loc);
    bool has_idle_buffer() const {
        Core* c = t_core;
        for (uint32_t k = 0; k < num_; ++k)
            if (c->bufs[first_ + k].state == SlotState::Free) return true;
        return false;
    }
    bool check_init(Core* c, const SL& loc);

    uint32_t first_ = 0, num_ = 0, len_ = 0, next_ = 0;
    int32_t fifo_[64] = {};
    uint32_t head_ = 0, count_ = 0;
    AscendC::TPosition pos_;
};
}  // namespace ascemu

namespace AscendC {

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind : public ascemu::QueueState {
  public:
    TQueBind() : QueueState(src == TPosition::GM ? dst : src) {}

    template <typename T>
    LocalTensor<T> AllocTensor(const std::source_location loc = std::source_location::current()) {
        LocalTensor<T> t;
        alloc_slot((uint32_t)sizeof(T), kProducer, t.v_, loc);
        return t;
    }
    template <typename T>
    void AllocTensor(LocalTensor<T>& t, const std::source_location loc = std::source_location::current()) {
        t = AllocTensor<T>(loc);
    }
    template <typename T>
    void FreeTensor(LocalTensor<T>& t, const std::source_location loc = std::source_location::current()) {
        free_slot(t.v_, kConsumer, kFreeEvt, loc);
    }
    template <typename T>
    bool EnQue(const LocalTensor<T>& t, const std::source_location loc = std::source_location::current()) {
        return enque_slot(t.v_, depth, kProducer, kEnQueEvt, loc);
    }
    template <typename T>
    LocalTensor<T> DeQue(const std::source_location loc = std::source_location::current()) {
        LocalTensor<T> t;
        deque_slot((uint32_t)sizeof(T), kConsumer, t.v_, loc);
        return t;
    }
    template <typename T>
    void DeQue(LocalTensor<T>& t, const std::source_location loc = std::source_location::current()) {
        t = DeQue<T>(loc);
    }
    int32_t GetTensorCountInQue() const { return (int32_t)count_; }
    bool VacantInQue() const { return (int32_t)count_ < (depth < 1 ? 1 : depth); }
    bool HasTensorInQue() const { return count_ > 0; }
    bool HasIdleBuffer() const { return has_idle_buffer(); }
    void FreeAllEvent() {}
    template <typename T>
    bool EnQue(const LocalTensor<T>& t, int) = delete;

    // ascemu-internal
    static constexpr TPosition kSrc = src, kDst = dst;
    // The pipes the device's queue flags connect (§5.5): VECIN is filled by MTE2, VECOUT drained by MTE3,
    // everything else is the vector pipe.  TQue<VECIN> = MTE2 -> V, TQue<VECOUT> = V -> MTE3.
    static constexpr int kProducer = (src == TPosition::VECIN || src == TPosition::GM) ? ascemu::PX_MTE2 : ascemu::PX_V;
    static constexpr int kConsumer = (dst == TPosition::VECOUT || dst == TPosition::GM) ? ascemu::PX_MTE3 : ascemu::PX_V;
    static constexpr HardEvent kEnQueEvt = ascemu::queue_event(kProducer, kConsumer);
    static constexpr HardEvent kFreeEvt = ascemu::queue_event(kConsumer, kProducer);
    static constexpr int32_t kDepth = depth;
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
  public:
    template <typename T>
    LocalTensor<T> Get(const std::source_location loc = std::source_location::current()) {
        return Get<T>(is_int4_v<T> ? len_ * 2 : len_ / (uint32_t)sizeof(T), loc);  // int4b_t: values, two a byte
    }
    template <typename T>
    LocalTensor<T> Get(const uint32_t len, const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TBuf::Get", loc);
        LocalTensor<T> t;
        if (!init_) {  // CANN's npu check: ErrorBuffer0; the returned tensor is invalid
            diag("BUFFER_NOT_INITIALISED", Sev::Error, loc, "TBuf::Get on a TBuf that no InitBuffer set up", "{}");
            return t;
        }
        const uint32_t units = is_int4_v<T> ? len / 2 : len;  // CANN's kernel_tbuf_impl.h: len int4b_t = len / 2 bytes
        if ((uint64_t)units * sizeof(T) > len_)
            diag("UB_TENSOR_OVERRUN", Sev::Error, loc,
                 strf("TBuf::Get of %u elements (%zu bytes) from a %u-byte buffer", len, units * sizeof(T), len_),
                 jd("elements", len, "buffer_bytes", len_));
        const UbBuf& b = c->bufs[buf_];
        t.v_ = UbView{b.lo, units, (int32_t)buf_, b.gen, (uint8_t)pos, (uint8_t)sizeof(T)};
        return t;
    }
    template <typename T>
    LocalTensor<T> GetWithOffset(uint32_t size, const uint32_t bufOffset,
                                 const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TBuf::GetWithOffset", loc);
        LocalTensor<T> t;
        if (!init_) {
            diag("BUFFER_NOT_INITIALISED", Sev::Error, loc, "TBuf::GetWithOffset on a TBuf that no InitBuffer set up",
                 "{}");
            return t;
        }
        if (bufOffset % 32)
            diag("UB_MISALIGNED", Sev::Error, loc, strf("GetWithOffset bufOffset %u is not 32-byte aligned", bufOffset),
                 jd("bufOffset", bufOffset));
        if ((uint64_t)bufOffset + (uint64_t)size * sizeof(T) > len_)
            diag("UB_TENSOR_OVERRUN", Sev::Error, loc,
                 strf("GetWithOffset(%u, %u) exceeds the %u-byte buffer", size, bufOffset, len_),
                 jd("size", size, "bufOffset", bufOffset, "buffer_bytes", len_));
        const UbBuf& b = c->bufs[buf_];
        t.v_ = UbView{b.lo + bufOffset, size, (int32_t)buf_, b.gen, (uint8_t)pos, (uint8_t)sizeof(T)};
        return t;
    }
    // CANN's TBuf derives from TQueBind<pos, pos, 0, 0>; on a TBuf, AllocTensor and DeQue are Get<T>() and FreeTensor
    // and EnQue do nothing (impl/basic_api/kernel_tbuf_impl.h of cann/asc-devkit): no queue, so no pipe flag either.
    template <typename T>
    LocalTensor<T> AllocTensor(const std::source_location loc = std::source_location::current()) {
        return Get<T>(loc);
    }
    template <typename T>
    void FreeTensor(LocalTensor<T>&) {}
    template <typename T>
    void EnQue(const LocalTensor<T>&) {}
    template <typename T>
    LocalTensor<T> DeQue(const std::source_location loc = std::source_location::current()) {
        return Get<T>(loc);
    }
    uint32_t buf_ = 0, len_ = 0;
    bool init_ = false;
};

}  // namespace AscendC

// ------------------------------------------------------------------------------------------------ buffer records
namespace ascemu {
// The checks TPipe::InitBuffer and TBufPool::InitBuffer make of a queue before giving it buffers.
ASCEMU_DECL bool queue_init_check(AscendC::TPosition pos, uint32_t num_before, int32_t depth, uint8_t num, const SL& loc);
template <class Q>
inline bool queue_init_ok(Q& que, uint8_t num, const std::source_location& loc) {
    return queue_init_check(que.pos_, que.num_, (int32_t)Q::kDepth, num, loc);
}
// Appends one UB buffer record [lo, lo + len) to the core's list; returns its index.
ASCEMU_DECL uint32_t add_record(Core* c, uint32_t lo, uint32_t len, const void* owner, uint8_t pos, SlotState st);
}  // namespace ascemu

namespace AscendC {

template <TPosition pos, uint32_t bufIDSize>
class TBufPool;

// ------------------------------------------------------------------------------------------------ TPipe
class TPipe {
  public:
    TPipe(const std::source_location loc = std::source_location::current());
    ~TPipe();
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;

    template <class Q>
    bool InitBuffer(Q& que, uint8_t num, uint32_t len, const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TPipe::InitBuffer", loc);
        ensure_bound(c, loc);
        if (!queue_init_ok(que, num, loc)) return false;
        uint32_t rl = (len + 31u) / 32u * 32u;
        que.first_ = (uint32_t)c->bufs.size();
        que.num_ = num;
        que.len_ = rl;
        for (uint8_t i = 0; i < num; ++i) add_buf(c, rl, &que, (uint8_t)que.pos_, SlotState::Free, loc);
        c->tr.queues.push_back(QueInfo{pos_name(que.pos_), num, rl, (int)Q::kDepth});
        return true;
    }
    template <TPosition pos>
    bool InitBuffer(TBuf<pos>& buf, uint32_t len, const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TPipe::InitBuffer", loc);
        ensure_bound(c, loc);
        if (!pos_is_ub(pos)) {
            diag("UNSUPPORTED_API", Sev::Error, loc, "InitBuffer of a TBuf at a non-UB position", "{}");
            return false;
        }
        if (buf.init_) {
            diag("QUE_REINIT", Sev::Error, loc, "InitBuffer on a TBuf that is already initialised (no Reset)", "{}");
            return false;
        }
        uint32_t rl = (len + 31u) / 32u * 32u;
        buf.buf_ = (uint32_t)c->bufs.size();
        buf.len_ = rl;
        buf.init_ = true;
        add_buf(c, rl, &buf, (uint8_t)pos, SlotState::TBuf, loc);
        c->tr.queues.push_back(QueInfo{"TBuf", 1, rl, 0});
        return true;
    }
    void Reset();
    void Destroy() { Reset(); }

    // A TBufPool region of len bytes at the cursor, or one sharing the start and length of `shared`.
    template <class P>
    bool InitBufPool(P& pool, uint32_t len, const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TPipe::InitBufPool", loc);
        ensure_bound(c, loc);
        uint32_t rl = (len + 31u) / 32u * 32u;
        if (!pool.accept(c, len, loc)) return false;
        pool.open(reserve(rl, loc), rl);
        c->tr.ub_peak = std::max<uint64_t>(c->tr.ub_peak, cursor_);
        return true;
    }
    template <class P, class S>
    bool InitBufPool(P& pool, uint32_t len, S& shared, const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TPipe::InitBufPool", loc);
        ensure_bound(c, loc);
        if (!pool.accept(c, len, loc) || !shared.can_share(len, loc)) return false;
        pool.open(shared.start_, shared.len_);
        return true;
    }
    void Init() {}

    // AllocEventID holds the ID until ReleaseEventID, so the queues never take it; FetchEventID holds nothing.
    template <HardEvent evt>
    TEventID AllocEventID() {
        ascemu::Core* c = ascemu::t_core;
        TEventID id = FetchEventID(evt);
        if (c) c->live->ev_alloc[(int)evt] |= (uint8_t)(1u << id);
        return id;
    }
    template <HardEvent evt>
    void ReleaseEventID(TEventID id) {
        ascemu::Core* c = ascemu::t_core;
        if (c && id >= 0 && id < 8) c->live->ev_alloc[(int)evt] &= (uint8_t)~(1u << id);
    }
    template <HardEvent evt>
    TEventID FetchEventID() { return FetchEventID(evt); }
    TEventID FetchEventID(HardEvent evt);
    uint32_t GetUbOffset() const { return cursor_; }

    // ascemu-internal
    void bind(ascemu::Core* c, const std::source_location& loc);
    void ensure_bound(ascemu::Core* c, const std::source_location& loc) {
        if (bound_ != c) bind(c, loc);
    }
    // Takes rl bytes of UB at the cursor (UB_OVERFLOW past the limit); returns their start.
    uint32_t reserve(uint32_t rl, const std::source_location& loc);
    void add_buf(ascemu::Core* c, uint32_t rl, const void* owner, uint8_t pos, ascemu::SlotState st,
                 const std::source_location& loc);
    uint32_t cursor_ = 0, pipe_bufs_ = 0;
    ascemu::Core* bound_ = nullptr;
    bool overflow_reported_ = false, toomany_reported_ = false;
};

// ------------------------------------------------------------------------------------------------ TBufPool
// A UB region carved out of the TPipe (TPipe::InitBufPool) or out of an enclosing pool (TBufPool::InitBufPool), in
// which InitBuffer places queue and TBuf buffers one after another (Ascend C API reference "TBufPool";
// impl/basic_api/kernel_tbufpool_impl.h of cann/asc-devkit).  A pool made with a `shared` pool takes that pool's start
// and length, so two computation stages reuse the same UB.  Reset ends a pool's stage: CANN documents the pool's
// buffers and data as invalid afterwards, so tensors taken from them before the Reset are UB_USE_AFTER_FREE when
// used, the bytes read as never written, and the pool takes no more InitBuffer until it is initialised again.
template <TPosition pos, uint32_t bufIDSize = 4>
class TBufPool {
    static_assert(bufIDSize <= 16, "TBufPool: bufIDSize is at most 16 (CANN's QBUFPOOL_MAX_LEN)");

  public:
    static constexpr TPosition poolPos = pos;

    template <class Q>
    bool InitBuffer(Q& que, uint8_t num, uint32_t len, const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TBufPool::InitBuffer", loc);
        uint32_t rl = (len + 31u) / 32u * 32u;
        if (!queue_init_ok(que, num, loc) || !fits(c, len, (uint64_t)num * rl, num, loc)) return false;
        que.first_ = (uint32_t)c->bufs.size();
        que.num_ = num;
        que.len_ = rl;
        for (uint8_t i = 0; i < num; ++i, top_ += rl)
            records_.emplace_back(add_record(c, top_, rl, &que, (uint8_t)que.pos_, SlotState::Free), &que);
        c->tr.queues.push_back(QueInfo{pos_name(que.pos_), num, rl, (int)Q::kDepth});
        return true;
    }
    template <TPosition bufPos>
    bool InitBuffer(TBuf<bufPos>& buf, uint32_t len, const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TBufPool::InitBuffer", loc);
        if (!pos_is_ub(bufPos)) {
            diag("UNSUPPORTED_API", Sev::Error, loc, "InitBuffer of a TBuf at a non-UB position", "{}");
            return false;
        }
        if (buf.init_) {
            diag("QUE_REINIT", Sev::Error, loc, "InitBuffer on a TBuf that is already initialised", "{}");
            return false;
        }
        uint32_t rl = (len + 31u) / 32u * 32u;
        if (!fits(c, len, rl, 1, loc)) return false;
        buf.buf_ = add_record(c, top_, rl, &buf, (uint8_t)bufPos, SlotState::TBuf);
        buf.len_ = rl;
        buf.init_ = true;
        records_.emplace_back(buf.buf_, &buf);
        top_ += rl;
        c->tr.queues.push_back(QueInfo{"TBuf", 1, rl, 0});
        return true;
    }
    template <class P>
    bool InitBufPool(P& pool, uint32_t len, const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TBufPool::InitBufPool", loc);
        uint32_t rl = (len + 31u) / 32u * 32u;
        if (!pool.accept(c, len, loc) || !fits(c, len, rl, 0, loc)) return false;
        pool.open(top_, rl);
        top_ += rl;
        return true;
    }
    template <class P, class S>
    bool InitBufPool(P& pool, uint32_t len, S& shared, const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TBufPool::InitBufPool", loc);
        if (!pool.accept(c, len, loc) || !shared.can_share(len, loc)) return false;
        pool.open(shared.start_, shared.len_);
        return true;
    }
    void Reset(const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TBufPool::Reset", loc);
        for (auto [i, owner] : records_)
            if (i < c->bufs.size() && c->bufs[i].owner == owner) {  // not cleared by a TPipe::Reset since
                UbBuf& b = c->bufs[i];
                // CANN's Reset waits for each queue buffer's free flag (the consumer -> producer flag FreeTensor
                // set), so what the next stage writes into this UB is ordered after this stage's use of it.
                if (b.state != SlotState::TBuf)
                    pipe_wait(c->psv, b.pos == (uint8_t)TPosition::VECIN ? PX_MTE2 : PX_V, b.psnap);
                queue_release_event(c, b, SLOT_ENQUE);
                queue_release_event(c, b, SLOT_FREE);
                b.gen++;
                if (b.state != SlotState::TBuf) b.state = SlotState::Free;
                c->ubw.clear(b.lo, b.hi);
            }
        records_.clear();
        open_ = false;
    }

    // ascemu-internal
    bool accept(ascemu::Core* c, uint32_t len, const std::source_location& loc) {
        using namespace ascemu;
        (void)c;
        if (!pos_is_ub(pos)) {
            diag("UNSUPPORTED_API", Sev::Error, loc, "a TBufPool at a non-UB position: only UB pools are emulated", "{}");
            return false;
        }
        if (len == 0) {
            diag("PARAM_RANGE", Sev::Error, loc, "InitBufPool with len = 0", "{}");
            return false;
        }
        return true;
    }
    bool can_share(uint32_t len, const std::source_location& loc) const {
        using namespace ascemu;
        if (!open_) {
            diag("BUFFER_NOT_INITIALISED", Sev::Error, loc, "InitBufPool shares a TBufPool that was never initialised",
                 "{}");
            return false;
        }
        if ((len + 31u) / 32u * 32u > len_) {
            diag("PARAM_RANGE", Sev::Error, loc,
                 strf("InitBufPool of %u bytes shares a %u-byte TBufPool: the length must not exceed the shared pool's",
                      len, len_),
                 jd("len", len, "shared_len", len_));
            return false;
        }
        return true;
    }
    void open(uint32_t start, uint32_t len) {
        start_ = top_ = start;
        len_ = len;
        count_ = 0;
        open_ = true;
    }
    // Room for `bytes` more bytes and `buffers` more buffers in this pool.
    bool fits(ascemu::Core* c, uint32_t len, uint64_t bytes, uint32_t buffers, const std::source_location& loc) {
        using namespace ascemu;
        (void)c;
        if (!open_) {
            diag("BUFFER_NOT_INITIALISED", Sev::Error, loc,  // CANN's npu check: ErrorBuffer4
                 "InitBuffer/InitBufPool on a TBufPool that is not initialised (never InitBufPool'd, or Reset since)",
                 "{}");
            return false;
        }
        if (len == 0) {
            diag("PARAM_RANGE", Sev::Error, loc, "InitBuffer with len = 0", "{}");
            return false;
        }
        if ((uint64_t)top_ + bytes > (uint64_t)start_ + len_) {
            diag("UB_OVERFLOW", Sev::Error, loc,
                 strf("the TBufPool [%u, %u) has %u bytes left; %llu more requested", start_, start_ + len_,
                      start_ + len_ - top_, (unsigned long long)bytes),
                 jd("pool_lo", start_, "pool_hi", start_ + len_, "requested", (long long)bytes));
            return false;
        }
        if (count_ + buffers > bufIDSize) {
            diag("UB_TOO_MANY_BUFFERS", Sev::Error, loc,
                 strf("%u buffers in a TBufPool declared with bufIDSize %u", count_ + buffers, bufIDSize),
                 jd("buffers", count_ + buffers, "limit", bufIDSize));
            return false;
        }
        count_ += buffers;
        return true;
    }
    uint32_t start_ = 0, len_ = 0, top_ = 0, count_ = 0;
    bool open_ = false;
    std::vector<std::pair<uint32_t, const void*>> records_;  // this pool's buffers: Core::bufs index, owner
};

}  // namespace AscendC

// CANN declares GetTPipePtr at global scope (include/basic_api/kernel_common.h of cann/asc-devkit), so helpers
// outside namespace AscendC call it unqualified; AscendC::GetTPipePtr names the same function.  It returns the TPipe
// most recently constructed (or bound) on the calling core, nullptr when there is none.
inline AscendC::TPipe* GetTPipePtr() { return AscendC::ascemu_current_pipe(); }
namespace AscendC {
using ::GetTPipePtr;
}  // namespace AscendC

// A user-defined TBufPool (Ascend C API reference "EXTERN_IMPL_BUFPOOL"; CANN marks it experimental) places queue
// and TBuf buffers itself through CANN's internal buffer handles (InitStartBufHandle / InitBufHandle), which ascemu
// does not have: its queues own their UB bookkeeping.  The macro is refused where the class uses it.
#define EXTERN_IMPL_BUFPOOL(EXT_BUFPOOL, POSITION, BUFID_SIZE)                                                      \
    static_assert(false, "EXTERN_IMPL_BUFPOOL(" #EXT_BUFPOOL "): a custom TBufPool is not supported by ascemu "       \
                         "(its InitBuffer sets CANN's internal buffer handles, which the emulator does not model); " \
                         "use AscendC::TBufPool<pos, bufIDSize> with TPipe::InitBufPool and TBufPool::InitBuffer")

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/pipe_impl.h"
#endif
