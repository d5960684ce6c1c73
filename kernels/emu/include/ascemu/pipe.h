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
    uint8_t held = c->ev_alloc[e] | c->ev_queue[e];
    for (int id = 0; id < 8; ++id)
        if (!((held >> id) & 1)) return id;
    return -1;
}
// A SetFlag of the kernel's and a queue's flag on one (event, ID) at the same time: either WaitFlag may consume the
// other's flag, and the ordering one of them promises is lost (docs/diagnostics.md#event_id_unmanaged).
inline void event_id_collision(int e, int id, const SL& set_loc, const SL& queue_loc) {
    diag("EVENT_ID_UNMANAGED", Sev::Warning, set_loc,
         strf("SetFlag(event %d, id %d) while a queue's own flag on that ID is pending (queue call at line %u): "
              "either WaitFlag can consume the other's flag",
              e, id, queue_loc.line()),
         jd("event", e, "event_id", id, "queue_line", queue_loc.line()));
}
// CANN's queues take an ID with AllocEventID for the SetFlag of EnQue (held: SLOT_ENQUE) and FreeTensor (SLOT_FREE)
// and release it after the matching WaitFlag (DeQue, the slot's next AllocTensor).  A pending SetFlag of the
// kernel's on the ID a queue takes collides with it.
enum SlotHold { SLOT_ENQUE = 0, SLOT_FREE = 1 };
inline void queue_release_event(Core* c, UbBuf& b, SlotHold h) {
    if (b.hold_id[h] >= 0) c->ev_queue[b.hold_evt[h]] &= (uint8_t)~(1u << b.hold_id[h]);
    b.hold_id[h] = -1;
}
inline void queue_hold_event(Core* c, UbBuf& b, SlotHold h, AscendC::HardEvent evt, const SL& loc) {
    queue_release_event(c, b, h);
    const int e = (int)evt, id = free_event_id(c, e);
    if (id < 0) return;
    c->ev_queue[e] |= (uint8_t)(1u << id);
    c->ev_queue_loc[e][id] = loc;
    b.hold_evt[h] = (uint8_t)e;
    b.hold_id[h] = (int8_t)id;
    if (c->ev_pending[e][id] > 0) event_id_collision(e, id, c->ev_loc[e][id], loc);
}

}  // namespace ascemu

namespace AscendC {

class TPipe;
inline TPipe*& ascemu_current_pipe() {
    static thread_local TPipe* p = nullptr;
    return p;
}

// ------------------------------------------------------------------------------------------------ queues
template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
  public:
    TQueBind() = default;

    template <typename T>
    LocalTensor<T> AllocTensor(const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TQue::AllocTensor", loc);
        LocalTensor<T> t;
        if (!check_init(c, loc)) return t;
        for (uint32_t k = 0; k < num_; ++k) {
            uint32_t i = (next_ + k) % num_;
            UbBuf& b = c->bufs[first_ + i];
            if (b.state == SlotState::Free) {
                b.state = SlotState::Alloc;
                // §5.5: FreeTensor -> AllocTensor of a slot is the consumer -> producer flag
                pipe_wait(c->psv, kProducer, b.psnap);
                queue_release_event(c, b, SLOT_FREE);
                next_ = (i + 1) % num_;
                t.v_ = UbView{b.lo, (uint32_t)(len_ / sizeof(T)), (int32_t)(first_ + i), b.gen, (uint8_t)pos_,
                              (uint8_t)sizeof(T)};
                return t;
            }
        }
        diag("QUE_ALLOC_EXHAUSTED", Sev::Fatal, loc,
             strf("AllocTensor on a queue whose %u buffers are all in use (the device blocks forever)", num_),
             jd("num", num_, "len", len_));
        return t;
    }
    template <typename T>
    void AllocTensor(LocalTensor<T>& t, const std::source_location loc = std::source_location::current()) {
        t = AllocTensor<T>(loc);
    }
    template <typename T>
    void FreeTensor(LocalTensor<T>& t, const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TQue::FreeTensor", loc);
        if (t.v_.buf < 0 || (size_t)t.v_.buf >= c->bufs.size()) {
            diag("QUE_DOUBLE_FREE", Sev::Error, loc, "FreeTensor of an invalid tensor", jd("buf", t.v_.buf));
            return;
        }
        UbBuf& b = c->bufs[t.v_.buf];
        if (b.owner != this) {
            diag("QUE_FOREIGN_FREE", Sev::Error, loc, "FreeTensor of a tensor that belongs to another queue/buffer",
                 jd("ub_offset", t.v_.off));
            return;
        }
        if (b.state == SlotState::Free || b.gen != t.v_.gen) {
            diag("QUE_DOUBLE_FREE", Sev::Error, loc, "FreeTensor of a buffer that is already free",
                 jd("ub_offset", t.v_.off));
            return;
        }
        if (b.state == SlotState::EnQ) {
            queue_release_event(c, b, SLOT_ENQUE);
            // remove from the FIFO
            for (uint32_t k = 0; k < count_; ++k)
                if (fifo_[(head_ + k) % 64] == t.v_.buf) {
                    for (uint32_t m = k; m + 1 < count_; ++m) fifo_[(head_ + m) % 64] = fifo_[(head_ + m + 1) % 64];
                    count_--;
                    break;
                }
        }
        b.state = SlotState::Free;
        b.gen++;
        pipe_signal(c->psv, kConsumer, b.psnap);
        c->psv.vc[kConsumer][kConsumer]++;
        queue_hold_event(c, b, SLOT_FREE, kFreeEvt, loc);
    }
    template <typename T>
    bool EnQue(const LocalTensor<T>& t, const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TQue::EnQue", loc);
        c->tr.enque++;
        if (t.v_.buf < 0 || (size_t)t.v_.buf >= c->bufs.size() || c->bufs[t.v_.buf].owner != this) {
            diag("QUE_FOREIGN_FREE", Sev::Error, loc, "EnQue of a tensor that does not belong to this queue",
                 jd("buf", t.v_.buf));
            return false;
        }
        UbBuf& b = c->bufs[t.v_.buf];
        if (b.gen != t.v_.gen) {
            diag("UB_USE_AFTER_FREE", Sev::Error, loc, "EnQue of a freed tensor", jd("ub_offset", t.v_.off));
            return false;
        }
        if (b.state == SlotState::EnQ) {
            diag("QUE_DEPTH_EXCEEDED", Sev::Error, loc, "EnQue of a tensor that is already enqueued",
                 jd("ub_offset", t.v_.off));
            return false;
        }
        int32_t d = depth < 1 ? 1 : depth;
        if ((int32_t)count_ >= d) {
            diag("QUE_DEPTH_EXCEEDED", Sev::Error, loc,
                 strf("EnQue beyond the queue depth %d (%u tensors already enqueued)", (int)depth, count_),
                 jd("depth", (int)depth, "enqueued", count_));
        }
        if (count_ >= 64) return false;
        b.state = SlotState::EnQ;
        // §5.5: EnQue -> DeQue of a slot is the flag the device's queue sets for its position: producer ->
        // consumer (kProducer / kConsumer below), e.g. MTE2_V for VECIN.  It does not order the scalar unit: a
        // GetValue of a dequeued VECIN tensor still needs MTE2_S, a SetValue into a tensor before EnQue S_V.
        pipe_signal(c->psv, kProducer, b.psnap);
        c->psv.vc[kProducer][kProducer]++;
        queue_hold_event(c, b, SLOT_ENQUE, kEnQueEvt, loc);
        fifo_[(head_ + count_) % 64] = t.v_.buf;
        count_++;
        return true;
    }
    template <typename T>
    LocalTensor<T> DeQue(const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("TQue::DeQue", loc);
        c->tr.deque++;
        LocalTensor<T> t;
        if (count_ == 0) {
            diag("QUE_DEQUE_EMPTY", Sev::Error, loc, "DeQue on an empty queue; the returned tensor is invalid",
                 jd("num", num_));
            return t;
        }
        int32_t i = fifo_[head_];
        head_ = (head_ + 1) % 64;
        count_--;
        UbBuf& b = c->bufs[i];
        b.state = SlotState::DeQ;
        pipe_wait(c->psv, kConsumer, b.psnap);
        queue_release_event(c, b, SLOT_ENQUE);
        t.v_ = UbView{b.lo, (uint32_t)(len_ / sizeof(T)), i, b.gen, (uint8_t)pos_, (uint8_t)sizeof(T)};
        return t;
    }
    template <typename T>
    void DeQue(LocalTensor<T>& t, const std::source_location loc = std::source_location::current()) {
        t = DeQue<T>(loc);
    }
    int32_t GetTensorCountInQue() const { return (int32_t)count_; }
    bool VacantInQue() const { return (int32_t)count_ < (depth < 1 ? 1 : depth); }
    bool HasTensorInQue() const { return count_ > 0; }
    bool HasIdleBuffer() const {
        ascemu::Core* c = ascemu::t_core;
        for (uint32_t k = 0; k < num_; ++k)
            if (c->bufs[first_ + k].state == ascemu::SlotState::Free) return true;
        return false;
    }
    void FreeAllEvent() {}
    template <typename T>
    bool EnQue(const LocalTensor<T>& t, int) = delete;

    // ascemu-internal
    bool check_init(ascemu::Core* c, const std::source_location& loc) {
        (void)c;
        if (num_ == 0) {  // CANN's npu check: ErrorBuffer0; the returned tensor is invalid
            ascemu::diag("BUFFER_NOT_INITIALISED", ascemu::Sev::Error, loc,
                         "AllocTensor on a queue that no InitBuffer set up; the tensor is invalid", "{}");
            return false;
        }
        return true;
    }
    uint32_t first_ = 0, num_ = 0, len_ = 0, next_ = 0;
    int32_t fifo_[64] = {};
    uint32_t head_ = 0, count_ = 0;
    TPosition pos_ = (src == TPosition::GM ? dst : src);
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
        return Get<T>(len_ / (uint32_t)sizeof(T), loc);
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
        if ((uint64_t)len * sizeof(T) > len_)
            diag("UB_TENSOR_OVERRUN", Sev::Error, loc,
                 strf("TBuf::Get of %u elements (%zu bytes) from a %u-byte buffer", len, len * sizeof(T), len_),
                 jd("elements", len, "buffer_bytes", len_));
        const UbBuf& b = c->bufs[buf_];
        t.v_ = UbView{b.lo, len, (int32_t)buf_, b.gen, (uint8_t)pos, (uint8_t)sizeof(T)};
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
template <class Q>
inline bool queue_init_ok(Q& que, uint8_t num, const std::source_location& loc) {
    if (!pos_is_ub(que.pos_)) {
        diag("UNSUPPORTED_API", Sev::Error, loc,
             strf("InitBuffer of a queue at position %s: only VECIN/VECOUT/VECCALC are emulated", pos_name(que.pos_)),
             "{}");
        return false;
    }
    if (que.num_ != 0) {
        diag("QUE_REINIT", Sev::Error, loc, "InitBuffer on a queue that is already initialised (no Reset)",
             jd("num", que.num_));
        return false;
    }
    if (Q::kDepth > 4)
        diag("QUE_DEPTH_LARGE", Sev::Info, loc, strf("queue depth %d > 4 (the doc: generally not above 4)",
                                                     (int)Q::kDepth),
             jd("depth", (int)Q::kDepth));
    if (num == 0) {
        diag("PARAM_RANGE", Sev::Error, loc, "InitBuffer with num = 0", "{}");
        return false;
    }
    return true;
}
// Appends one UB buffer record [lo, lo + len) to the core's list; returns its index.
inline uint32_t add_record(Core* c, uint32_t lo, uint32_t len, const void* owner, uint8_t pos, SlotState st) {
    UbBuf b;
    b.lo = lo;
    b.hi = lo + len;
    b.owner = owner;
    b.pos = pos;
    b.state = st;
    c->bufs.push_back(b);
    c->tr.ub_peak = std::max<uint64_t>(c->tr.ub_peak, b.hi);
    c->tr.ub_buffers = c->bufs.size();
    return (uint32_t)c->bufs.size() - 1;
}
}  // namespace ascemu

namespace AscendC {

template <TPosition pos, uint32_t bufIDSize>
class TBufPool;

// ------------------------------------------------------------------------------------------------ TPipe
class TPipe {
  public:
    TPipe(const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = t_core;
        if (!c) return;  // constructed outside a launch (e.g. a global): bound lazily
        bind(c, loc);
    }
    ~TPipe() {
        ascemu::Core* c = ascemu::t_core;
        if (c && bound_ == c) {
            c->live_pipes--;
            if (c->pipe == this) c->pipe = nullptr;
            if (ascemu_current_pipe() == this) ascemu_current_pipe() = nullptr;
        }
    }
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
    void Reset() {
        ascemu::Core* c = ascemu::t_core;
        if (!c) return;
        for (auto& b : c->bufs) { b.gen++; b.owner = nullptr; b.state = ascemu::SlotState::Free; }
        c->bufs.clear();
        std::memset(c->ev_queue, 0, sizeof c->ev_queue);
        cursor_ = 0;
        pipe_bufs_ = 0;
    }
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
        if (c) c->ev_alloc[(int)evt] |= (uint8_t)(1u << id);
        return id;
    }
    template <HardEvent evt>
    void ReleaseEventID(TEventID id) {
        ascemu::Core* c = ascemu::t_core;
        if (c && id >= 0 && id < 8) c->ev_alloc[(int)evt] &= (uint8_t)~(1u << id);
    }
    template <HardEvent evt>
    TEventID FetchEventID() { return FetchEventID(evt); }
    TEventID FetchEventID(HardEvent evt) {
        ascemu::Core* c = ascemu::t_core;
        if (!c) return 0;
        int e = (int)evt;
        if (e < 0 || e >= (int)HardEvent::MAX) return 0;
        // the next id that nobody holds and that has no pending SetFlag
        const uint8_t held = c->ev_alloc[e] | c->ev_queue[e];
        for (int i = 0; i < 8; ++i) {
            int id = (next_ev_[e] + i) % 8;
            if (c->ev_pending[e][id] == 0 && !((held >> id) & 1)) {
                next_ev_[e] = (id + 1) % 8;
                return (TEventID)id;
            }
        }
        return 0;
    }
    uint32_t GetUbOffset() const { return cursor_; }

    // ascemu-internal
    void bind(ascemu::Core* c, const std::source_location& loc) {
        using namespace ascemu;
        bound_ = c;
        c->live_pipes++;
        if (c->live_pipes > 1)
            diag("UB_PIPE_ALIASING", Sev::Warning, loc,
                 "a second TPipe is live on this core; both allocate UB from offset 0 and alias", "{}");
        else if (live_ub_allocators() > 0)
            diag("UB_PIPE_ALIASING", Sev::Warning, loc,
                 "a TPipe while a LocalMemAllocator is live on this core: both allocate UB from offset 0 and alias "
                 "(CANN: LocalMemAllocator cannot be mixed with TPipe)",
                 "{}");
        c->pipe = this;
        ascemu_current_pipe() = this;
    }
    void ensure_bound(ascemu::Core* c, const std::source_location& loc) {
        if (bound_ != c) bind(c, loc);
    }
    // Takes rl bytes of UB at the cursor (UB_OVERFLOW past the limit); returns their start.
    uint32_t reserve(uint32_t rl, const std::source_location& loc) {
        using namespace ascemu;
        const Runtime& R = rt();
        uint32_t limit = kProfile.ub_size - R.cfg.ub_reserved;
        if ((uint64_t)cursor_ + rl > limit && !overflow_reported_) {
            overflow_reported_ = true;
            diag("UB_OVERFLOW", Sev::Error, loc,
                 strf("InitBuffer needs UB up to %llu bytes but only %u are available (ub_size %u - ub_reserved %u)",
                      (unsigned long long)cursor_ + rl, limit, kProfile.ub_size, R.cfg.ub_reserved),
                 jd("end", (long long)cursor_ + rl, "limit", limit));
        }
        uint32_t lo = cursor_;
        cursor_ += rl;
        return lo;
    }
    void add_buf(ascemu::Core* c, uint32_t rl, const void* owner, uint8_t pos, ascemu::SlotState st,
                 const std::source_location& loc) {
        using namespace ascemu;
        uint32_t nb = ++pipe_bufs_;  // the TPipe's own buffers: static tensors and pool buffers are not counted
        if (nb > kProfile.max_buffers && !toomany_reported_) {
            toomany_reported_ = true;
            diag("UB_TOO_MANY_BUFFERS", Sev::Error, loc,
                 strf("%u buffers allocated (TQue num + TBufs); the limit is %u", nb, kProfile.max_buffers),
                 jd("buffers", nb, "limit", kProfile.max_buffers));
        }
        add_record(c, reserve(rl, loc), rl, owner, pos, st);
    }
    uint32_t cursor_ = 0, pipe_bufs_ = 0;
    ascemu::Core* bound_ = nullptr;
    bool overflow_reported_ = false, toomany_reported_ = false;
    uint8_t next_ev_[(int)HardEvent::MAX] = {};
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
