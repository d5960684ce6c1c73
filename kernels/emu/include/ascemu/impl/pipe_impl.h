// ascemu/impl/pipe_impl.h — TPipe and the queue event IDs.
// Definitions of the ASCEMU_DECL functions of ascemu/pipe.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

ASCEMU_DECL void event_id_collision(int e, int id, const SL& set_loc, const SL& queue_loc) {
    diag("EVENT_ID_UNMANAGED", Sev::Warning, set_loc,
         strf("SetFlag(event %d, id %d) while a queue's own flag on that ID is pending (queue call at line %u): "
              "either WaitFlag can consume the other's flag",
              e, id, queue_loc.line()),
         jd("event", e, "event_id", id, "queue_line", queue_loc.line()));
}

ASCEMU_DECL void queue_hold_event(Core* c, UbBuf& b, SlotHold h, AscendC::HardEvent evt, const SL& loc) {
    queue_release_event(c, b, h);
    const int e = (int)evt, id = free_event_id(c, e);
    if (id < 0) return;
    c->live->ev_queue[e] |= (uint8_t)(1u << id);
    c->live->ev_queue_loc[e][id] = loc;
    b.hold_evt[h] = (uint8_t)e;
    b.hold_id[h] = (int8_t)id;
    if (c->live->ev_pending[e][id] > 0) event_id_collision(e, id, c->live->ev_loc[e][id], loc);
}

ASCEMU_DECL bool QueueState::check_init(Core* c, const SL& loc) {
    (void)c;
    if (num_ == 0) {  // CANN's npu check: ErrorBuffer0; the returned tensor is invalid
        diag("BUFFER_NOT_INITIALISED", Sev::Error, loc,
             "AllocTensor on a queue that no InitBuffer set up; the tensor is invalid", "{}");
        return false;
    }
    return true;
}

ASCEMU_DECL bool QueueState::alloc_slot(uint32_t elem, int producer, UbView& out, const SL& loc) {
    Core* c = api_enter("TQue::AllocTensor", loc);
    if (!check_init(c, loc)) return false;
    for (uint32_t k = 0; k < num_; ++k) {
        uint32_t i = (next_ + k) % num_;
        UbBuf& b = c->bufs[first_ + i];
        if (b.state == SlotState::Free) {
            b.state = SlotState::Alloc;
            // §5.5: FreeTensor -> AllocTensor of a slot is the consumer -> producer flag
            pipe_wait(c->psv, producer, b.psnap);
            queue_release_event(c, b, SLOT_FREE);
            next_ = (i + 1) % num_;
            out = UbView{b.lo, len_ / elem, (int32_t)(first_ + i), b.gen, (uint8_t)pos_, (uint8_t)elem};
            if (g_events) [[unlikely]]
                ev_queue(c, EvKind::Alloc, this, (uint8_t)pos_, b.lo, b.hi - b.lo);
            return true;
        }
    }
    diag("QUE_ALLOC_EXHAUSTED", Sev::Fatal, loc,
         strf("AllocTensor on a queue whose %u buffers are all in use (the device blocks forever)", num_),
         jd("num", num_, "len", len_));
    return false;
}

ASCEMU_DECL void QueueState::free_slot(const UbView& v, int consumer, AscendC::HardEvent free_evt, const SL& loc) {
    Core* c = api_enter("TQue::FreeTensor", loc);
    if (v.buf < 0 || (size_t)v.buf >= c->bufs.size()) {
        diag("QUE_DOUBLE_FREE", Sev::Error, loc, "FreeTensor of an invalid tensor", jd("buf", v.buf));
        return;
    }
    UbBuf& b = c->bufs[v.buf];
    if (b.owner != this) {
        diag("QUE_FOREIGN_FREE", Sev::Error, loc, "FreeTensor of a tensor that belongs to another queue/buffer",
             jd("ub_offset", v.off));
        return;
    }
    if (b.state == SlotState::Free || b.gen != v.gen) {
        diag("QUE_DOUBLE_FREE", Sev::Error, loc, "FreeTensor of a buffer that is already free", jd("ub_offset", v.off));
        return;
    }
    if (b.state == SlotState::EnQ) {
        queue_release_event(c, b, SLOT_ENQUE);
        // remove from the FIFO
        for (uint32_t k = 0; k < count_; ++k)
            if (fifo_[(head_ + k) % 64] == v.buf) {
                for (uint32_t m = k; m + 1 < count_; ++m) fifo_[(head_ + m) % 64] = fifo_[(head_ + m + 1) % 64];
                count_--;
                break;
            }
    }
    b.state = SlotState::Free;
    b.gen++;
    if (g_events) [[unlikely]]
        ev_queue(c, EvKind::Free, this, b.pos, b.lo, b.hi - b.lo);
    pipe_signal(c->psv, consumer, b.psnap);
    c->psv.vc[consumer][consumer]++;
    queue_hold_event(c, b, SLOT_FREE, free_evt, loc);
}

ASCEMU_DECL bool QueueState::enque_slot(const UbView& v, int32_t depth, int producer, AscendC::HardEvent enque_evt,
                                        const SL& loc) {
    Core* c = api_enter("TQue::EnQue", loc);
    c->tr.enque++;
    if (v.buf < 0 || (size_t)v.buf >= c->bufs.size() || c->bufs[v.buf].owner != this) {
        diag("QUE_FOREIGN_FREE", Sev::Error, loc, "EnQue of a tensor that does not belong to this queue",
             jd("buf", v.buf));
        return false;
    }
    UbBuf& b = c->bufs[v.buf];
    if (b.gen != v.gen) {
        diag("UB_USE_AFTER_FREE", Sev::Error, loc, "EnQue of a freed tensor", jd("ub_offset", v.off));
        return false;
    }
    if (b.state == SlotState::EnQ) {
        diag("QUE_DEPTH_EXCEEDED", Sev::Error, loc, "EnQue of a tensor that is already enqueued",
             jd("ub_offset", v.off));
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
    // consumer (TQueBind::kProducer / kConsumer), e.g. MTE2_V for VECIN.  It does not order the scalar unit: a
    // GetValue of a dequeued VECIN tensor still needs MTE2_S, a SetValue into a tensor before EnQue S_V.
    pipe_signal(c->psv, producer, b.psnap);
    c->psv.vc[producer][producer]++;
    queue_hold_event(c, b, SLOT_ENQUE, enque_evt, loc);
    fifo_[(head_ + count_) % 64] = v.buf;
    count_++;
    if (g_events) [[unlikely]]
        ev_queue(c, EvKind::EnQue, this, b.pos, b.lo, b.hi - b.lo);
    return true;
}

ASCEMU_DECL bool QueueState::deque_slot(uint32_t elem, int consumer, UbView& out, const SL& loc) {
    Core* c = api_enter("TQue::DeQue", loc);
    c->tr.deque++;
    if (count_ == 0) {
        diag("QUE_DEQUE_EMPTY", Sev::Error, loc, "DeQue on an empty queue; the returned tensor is invalid",
             jd("num", num_));
        return false;
    }
    int32_t i = fifo_[head_];
    head_ = (head_ + 1) % 64;
    count_--;
    UbBuf& b = c->bufs[i];
    b.state = SlotState::DeQ;
    pipe_wait(c->psv, consumer, b.psnap);
    queue_release_event(c, b, SLOT_ENQUE);
    out = UbView{b.lo, len_ / elem, i, b.gen, (uint8_t)pos_, (uint8_t)elem};
    if (g_events) [[unlikely]]
        ev_queue(c, EvKind::DeQue, this, b.pos, b.lo, b.hi - b.lo);
    return true;
}

ASCEMU_DECL bool queue_init_check(AscendC::TPosition pos, uint32_t num_before, int32_t depth, uint8_t num,
                                  const SL& loc) {
    if (!pos_is_ub(pos)) {
        diag("UNSUPPORTED_API", Sev::Error, loc,
             strf("InitBuffer of a queue at position %s: only VECIN/VECOUT/VECCALC are emulated", pos_name(pos)), "{}");
        return false;
    }
    if (num_before != 0) {
        diag("QUE_REINIT", Sev::Error, loc, "InitBuffer on a queue that is already initialised (no Reset)",
             jd("num", num_before));
        return false;
    }
    if (depth > 4)
        diag("QUE_DEPTH_LARGE", Sev::Info, loc, strf("queue depth %d > 4 (the doc: generally not above 4)", (int)depth),
             jd("depth", (int)depth));
    if (num == 0) {
        diag("PARAM_RANGE", Sev::Error, loc, "InitBuffer with num = 0", "{}");
        return false;
    }
    return true;
}

ASCEMU_DECL uint32_t add_record(Core* c, uint32_t lo, uint32_t len, const void* owner, uint8_t pos, SlotState st) {
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

ASCEMU_DECL TPipe::TPipe(const std::source_location loc) {
    using namespace ascemu;
    Core* c = t_core;
    if (!c) return;  // constructed outside a launch (e.g. a global): bound lazily
    bind(c, loc);
}

ASCEMU_DECL TPipe::~TPipe() {
    ascemu::Core* c = ascemu::t_core;
    if (c && bound_ == c) {
        c->live_pipes--;
        if (c->pipe == this) c->pipe = nullptr;
        if (ascemu_current_pipe() == this) ascemu_current_pipe() = nullptr;
    }
}

ASCEMU_DECL void TPipe::Reset() {
    ascemu::Core* c = ascemu::t_core;
    if (!c) return;
    for (auto& b : c->bufs) { b.gen++; b.owner = nullptr; b.state = ascemu::SlotState::Free; }
    c->bufs.clear();
    std::memset(c->live->ev_queue, 0, sizeof c->live->ev_queue);
    cursor_ = 0;
    pipe_bufs_ = 0;
}

// CANN's TPipe::FetchEventID is `sff0(eventPool_[evt].eventOccupy)`: the lowest ID that no AllocEventID (the
// kernel's, or a queue's for its EnQue / FreeTensor flag) occupies.  It occupies nothing itself, and a pending SetFlag
// on an ID does not occupy it, so two calls with no AllocEventID between them return the same ID
// ([CODE] cann/asc-devkit impl/basic_api/kernel_tpipe_impl.h TPipe::FetchEventID; the bitmap is kernel_tpipe_base.h
// `uint64_t eventOccupy`).  With all 8 IDs occupied sff0 finds bit 8 first: ID 8, which SetFlag refuses
// (PARAM_RANGE), as CANN's device build, whose range assertion is compiled out, has no valid ID to give either.
ASCEMU_DECL TEventID TPipe::FetchEventID(HardEvent evt) {
    ascemu::Core* c = ascemu::t_core;
    if (!c) return 0;
    int e = (int)evt;
    if (e < 0 || e >= (int)HardEvent::MAX) return 0;
    const int id = ascemu::free_event_id(c, e);
    return (TEventID)(id < 0 ? 8 : id);
}

ASCEMU_DECL void TPipe::bind(ascemu::Core* c, const std::source_location& loc) {
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

ASCEMU_DECL uint32_t TPipe::reserve(uint32_t rl, const std::source_location& loc) {
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

ASCEMU_DECL void TPipe::add_buf(ascemu::Core* c, uint32_t rl, const void* owner, uint8_t pos, ascemu::SlotState st,
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

}  // namespace AscendC
