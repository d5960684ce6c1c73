// EmbeddingDenseGrad for Ascend310P (dav_m200), spec embedding_dense_grad.md §3.
//
//   out[k] = Σ_{i: idx_i = k, valid(k)} grad[i]   (· fl(1/count_k) when scale_grad_by_freq and count_k >= 2)
//
// Rows of grad are split over the AI Cores (§3.2); each core sums every run of equal indices (a segment) in UB and
// adds the partial to out with one SetAtomicAdd<float> DataCopy, so runs that straddle cores, and unsorted input,
// merge in GM without inter-core sync (key 0).  scale_grad_by_freq (key 1) also atomically counts each segment
// into the user workspace, meets the other cores at a GM-flag barrier (§3.7: there is no hard SyncAll on
// dav_m200) and then scales the rows it owns with plain stores (DECISION-EDG-6).
//
// 310P has no DataCopyPad: every copy moves whole 32 B blocks.  With D % 8 == 0 every GM offset is a multiple of
// 8 floats; otherwise (§3.6) rows are accumulated lane by lane into zero-masked 32 B covering windows that are
// flushed atomically, so a neighbouring row only receives +0.  No write leaves out: a window that would pass
// out's end stops at its last whole block, and the lanes after that go out in one block ending exactly at out's
// end (docs/device-readiness.md §4; the spec's 7a slack is read, never written).
//
// The launcher zeroes out and the user workspace (counts + sync slots) before the launch (DECISION-EDG-4/5):
// this kernel never zeroes GM.
#include "kernel_operator.h"
#include "embedding_dense_grad_tiling.h"

using namespace AscendC;

namespace {

constexpr int64_t LANES = 8;          // fp32 elements per 32 B block
constexpr uint32_t CNT_BLK_BYTES = 32;  // one 8-lane count block (DECISION-EDG-15)
constexpr uint32_t SYNC_BUF_BYTES = 256;  // 8 soft-sync slots of 32 B, one per AI Core (§3.7)
constexpr int64_t SPIN_MAX = 1000000;   // barrier polls before Trap() (§3.7)
constexpr int64_t P2_WIN = 4096;        // unaligned Phase-2 read-modify-write window, elements (§3.7)

__aicore__ inline int64_t Align8(int64_t x) { return (x + LANES - 1) / LANES * LANES; }
__aicore__ inline int64_t Min64(int64_t a, int64_t b) { return a < b ? a : b; }

// A vector instruction that reads what the previous one wrote waits for it (CANN PipeBarrier: same-pipe data
// dependencies need PipeBarrier<PIPE_V>; docs/device-readiness.md §2).
__aicore__ inline void VBar() { PipeBarrier<PIPE_V>(); }

template <bool WITH_FREQ>
class KernelEdg {
public:
    __aicore__ inline KernelEdg() {}

    __aicore__ inline void Init(GM_ADDR grad, GM_ADDR sortIndices, GM_ADDR out, GM_ADDR workspace,
                                const EmbeddingDenseGradTilingData& t)
    {
        nW_ = t.numWeights;
        d_ = t.dimSize;
        pad_ = t.paddingIdx;
        used_ = t.usedCoreNum;
        cLenMax_ = t.ubProcessNum;
        colLoop_ = t.colLoopNum;
        colTail_ = t.colTailNum;
        rowBatch_ = t.rowBatchNum;
        idxTile_ = t.idxTileNum;
        aligned_ = t.isAlignedD != 0;
        countsLen_ = t.countsLength;
        n_ = t.gradRow;
        block_ = GetBlockIdx();

        // §3.2 row split
        if (block_ < t.formerCoreNum) {
            rowStart_ = block_ * t.formerRowNum;
            rowEnd_ = rowStart_ + t.formerRowNum;
        } else {
            rowStart_ = t.formerCoreNum * t.formerRowNum + (block_ - t.formerCoreNum) * t.tailRowNum;
            rowEnd_ = rowStart_ + t.tailRowNum;
        }
        // Phase-2 split (§3.7): rows when D is aligned, 8-element units otherwise
        if (block_ < t.p2FormerCoreNum) {
            p2Start_ = block_ * t.p2FormerNum;
            p2End_ = p2Start_ + t.p2FormerNum;
        } else {
            p2Start_ = t.p2FormerCoreNum * t.p2FormerNum + (block_ - t.p2FormerCoreNum) * t.p2TailNum;
            p2End_ = p2Start_ + t.p2TailNum;
        }

        gradGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(grad), static_cast<uint64_t>(t.gradRow * d_));
        idxGm_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(sortIndices), static_cast<uint64_t>(t.gradRow));
        outGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out), static_cast<uint64_t>(nW_ * d_));
        if constexpr (WITH_FREQ) {
            GM_ADDR user = GetUserWorkspace(workspace);
            countsGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(user), static_cast<uint64_t>(countsLen_));
            slotGm_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(user + t.syncOffset),
                                    static_cast<uint64_t>(used_ * LANES));
        }

        // UB plan of §3.3 (the host plan's ub_buffers, same order)
        pipe_.InitBuffer(idxBuf_, static_cast<uint32_t>(idxTile_ * sizeof(int32_t)));
        if (aligned_) {
            pipe_.InitBuffer(accBuf_, static_cast<uint32_t>(cLenMax_ * sizeof(float)));
            pipe_.InitBuffer(gradBuf_, static_cast<uint32_t>(rowBatch_ * cLenMax_ * sizeof(float)));
        } else {
            win_ = Align8(cLenMax_ + LANES - 1);
            pipe_.InitBuffer(gradBuf_, static_cast<uint32_t>(win_ * sizeof(float)));
            pipe_.InitBuffer(accBuf_, static_cast<uint32_t>(win_ * sizeof(float)));
        }
        pipe_.InitBuffer(cntBuf_, CNT_BLK_BYTES);
        pipe_.InitBuffer(syncBuf_, SYNC_BUF_BYTES);
        idxLocal_ = idxBuf_.Get<int32_t>();
        accLocal_ = accBuf_.Get<float>();
        gradLocal_ = gradBuf_.Get<float>();
        cntLocal_ = cntBuf_.Get<float>();
        syncLocal_ = syncBuf_.Get<int32_t>();
        endLocal_ = syncBuf_.Get<float>();  // Phase 1's end block; the barrier reuses syncBuf only after Phase 1
    }

    __aicore__ inline void Process()
    {
        if (block_ >= used_) {
            return;
        }
        if constexpr (WITH_FREQ) {
            for (int32_t i = 0; i < LANES; ++i) {  // count block stays zero outside the lane being flushed
                cntLocal_.SetValue(i, 0.0f);
            }
        }
        SetAtomicAdd<float>();  // Phase 1 writes to GM are all partial sums (out and counts)
        if (aligned_) {
            Phase1Aligned();
        } else {
            Phase1Unaligned();
        }
        SetAtomicNone();
        if constexpr (WITH_FREQ) {
            Barrier();
            if (aligned_) {
                Phase2Aligned();
            } else {
                Phase2Unaligned();
            }
        }
    }

private:
    template <HardEvent E>
    __aicore__ inline void Sync()
    {
        event_t id = static_cast<event_t>(pipe_.FetchEventID(E));
        SetFlag<E>(id);
        WaitFlag<E>(id);
    }

    __aicore__ inline bool Valid(int64_t k) const { return k >= 0 && k < nW_ && k != pad_; }

    __aicore__ inline int64_t ChunkLen(int64_t c) const { return c == colLoop_ - 1 ? colTail_ : cLenMax_; }

    // Index of grad row r, staged through idxBuf in tiles of idxTileNum (DECISION-EDG-8).  A DataCopy moves whole
    // 8-index blocks, so a tile that would run past the end of sort_indices is stepped back to end at or before
    // it (GM has no alignment requirement beyond the element): the copy never reads past the N indices this
    // kernel was given, and relies on no allocation slack.  With N < 8 no block fits: the indices are read with
    // scalar GM loads.
    __aicore__ inline int64_t IndexAt(int64_t r)
    {
        if (n_ < LANES) {
            return static_cast<int64_t>(idxGm_.GetValue(static_cast<uint64_t>(r)));
        }
        if (r < idxBase_ || r >= idxBase_ + idxLen_) {
            int64_t len = Min64(Min64(idxTile_, rowEnd_ - r), n_ / LANES * LANES);
            int64_t start = Min64(r, n_ - Align8(len));  // >= 0: Align8(len) <= N rounded down to 8
            Sync<HardEvent::S_MTE2>();  // scalar reads of the previous tile are done
            DataCopy(idxLocal_, idxGm_[static_cast<uint64_t>(start)], static_cast<uint32_t>(Align8(len)));
            Sync<HardEvent::MTE2_S>();
            idxBase_ = start;
            idxLen_ = r + len - start;  // rows [start, r) come along: indices of earlier rows, also correct
        }
        return static_cast<int64_t>(idxLocal_.GetValue(static_cast<uint32_t>(r - idxBase_)));
    }

    // Key 1, column chunk 0: add L at lane k mod 8 of a zero block to counts[k - k mod 8] (DECISION-EDG-15).
    // Atomic mode is on; the caller has synced S->MTE3 for the lane write.
    __aicore__ inline void FlushCount(int64_t k)
    {
        int64_t lane = k % LANES;
        DataCopy(countsGm_[static_cast<uint64_t>(k - lane)], cntLocal_, static_cast<uint32_t>(LANES));
        Sync<HardEvent::MTE3_S>();  // the lane is cleared for the next segment
        cntLocal_.SetValue(static_cast<uint32_t>(lane), 0.0f);
    }

    // ---------------------------------------------------------------- §3.5 key 0 / Phase 1, D % 8 == 0
    __aicore__ inline void FlushAligned(int64_t k, int64_t segLen, int64_t c, int64_t cOff, int64_t cLen)
    {
        if (!Valid(k)) {
            return;
        }
        bool count = WITH_FREQ && c == 0;
        if (count) {
            cntLocal_.SetValue(static_cast<uint32_t>(k % LANES), static_cast<float>(segLen));
            Sync<HardEvent::S_MTE3>();
        }
        Sync<HardEvent::V_MTE3>();
        DataCopy(outGm_[static_cast<uint64_t>(k * d_ + cOff)], accLocal_, static_cast<uint32_t>(cLen));
        if (count) {
            FlushCount(k);
        }
        Sync<HardEvent::MTE3_V>();  // accBuf is rewritten by the next segment
    }

    __aicore__ inline void LoadBatch(int64_t r0, int64_t rows, int64_t cOff, int64_t cLen)
    {
        uint64_t src = static_cast<uint64_t>(r0 * d_ + cOff);
        if (rows == 1 || cLen == d_) {  // contiguous: one burst
            DataCopy(gradLocal_, gradGm_[src], static_cast<uint32_t>(rows * cLen));
        } else {  // rows x cLen out of rows of D (§3.3: srcStride fits uint16, else the host set rowBatchNum 1)
            DataCopyParams p(static_cast<uint16_t>(rows), static_cast<uint16_t>(cLen / LANES),
                             static_cast<uint16_t>((d_ - cLen) / LANES), 0);
            DataCopy(gradLocal_, gradGm_[src], p);
        }
    }

    __aicore__ inline void Phase1Aligned()
    {
        for (int64_t c = 0; c < colLoop_; ++c) {
            int64_t cOff = c * cLenMax_;
            int64_t cLen = ChunkLen(c);
            int32_t n = static_cast<int32_t>(cLen);
            bool open = false;
            int64_t cur = 0;
            int64_t segLen = 0;
            for (int64_t r0 = rowStart_; r0 < rowEnd_; r0 += rowBatch_) {
                int64_t rows = Min64(rowBatch_, rowEnd_ - r0);
                Sync<HardEvent::V_MTE2>();  // the previous batch has been summed
                LoadBatch(r0, rows, cOff, cLen);
                Sync<HardEvent::MTE2_V>();
                for (int64_t j = 0; j < rows; ++j) {
                    int64_t k = IndexAt(r0 + j);
                    LocalTensor<float> row = gradLocal_[static_cast<uint32_t>(j * cLen)];
                    if (!open || k != cur) {
                        if (open) {
                            FlushAligned(cur, segLen, c, cOff, cLen);
                        }
                        open = true;
                        cur = k;
                        segLen = 0;
                        if (Valid(k)) {
                            Adds(accLocal_, row, 0.0f, n);
                        }
                    } else if (Valid(k)) {
                        VBar();  // acc is the previous Adds/Add's result
                        Add(accLocal_, accLocal_, row, n);
                    }
                    ++segLen;
                }
            }
            if (open) {
                FlushAligned(cur, segLen, c, cOff, cLen);
            }
        }
    }

    // ---------------------------------------------------------------- §3.6 unaligned D (either key)
    // The covering window [base, base + align8(off + cLen)) of the row chunk at q = k * D + cOff may pass the end
    // of out (by <= 7 lanes, only near the last row).  Those bytes are not out's, so the window is cut at its
    // last whole block inside out and the lanes after it go out in one block that ends exactly at out's end, its
    // other lanes +0 (an atomic +0 inside out, as the window's own zero lanes).  Below 8 elements of out no block
    // fits at all: one core runs Phase 1 alone and adds with scalar stores (Phase1Unaligned).
    __aicore__ inline void FlushWindow(int64_t k, int64_t segLen, int64_t c, int64_t cOff, int64_t cLen)
    {
        if (!Valid(k)) {
            return;
        }
        bool count = WITH_FREQ && c == 0;
        if (count) {
            cntLocal_.SetValue(static_cast<uint32_t>(k % LANES), static_cast<float>(segLen));
        }
        const int64_t q = k * d_ + cOff;
        const int64_t base = q - q % LANES;
        const int64_t len = Align8(q % LANES + cLen);
        const int64_t total = nW_ * d_;
        const int64_t inside = base + len <= total ? len : (total - base) / LANES * LANES;  // whole blocks in out
        const bool rest = inside < len;  // lanes [base + inside, q + cLen) are still to go
        if (rest && total >= LANES) {
            StageEndBlock(base, base + inside, total);
        }
        Sync<HardEvent::S_MTE3>();  // accWin, the end block and the count lane were written by the scalar unit
        if (inside > 0) {
            DataCopy(outGm_[static_cast<uint64_t>(base)], accLocal_, static_cast<uint32_t>(inside));
        }
        if (rest) {
            if (total >= LANES) {
                DataCopy(outGm_[static_cast<uint64_t>(total - LANES)], endLocal_, static_cast<uint32_t>(LANES));
            } else {
                AddScalar(q, q + cLen, base);
            }
        }
        if (count) {
            FlushCount(k);
        } else if (rest) {
            Sync<HardEvent::MTE3_S>();  // the end block is rebuilt by the scalar unit for a later segment
        }
        Sync<HardEvent::MTE3_V>();  // the next segment clears accWin with Duplicate
    }

    // endLocal_ = out[total - 8, total) as seen from accWin (whose lane 0 is flat element `base`): the lanes from
    // `from` on carry accWin's values, the ones before it +0 (the window's whole blocks already cover them).
    __aicore__ inline void StageEndBlock(int64_t base, int64_t from, int64_t total)
    {
        for (int64_t i = 0; i < LANES; ++i) {
            int64_t p = total - LANES + i;
            float v = p >= from ? accLocal_.GetValue(static_cast<uint32_t>(p - base)) : 0.0f;
            endLocal_.SetValue(static_cast<uint32_t>(i), v);
        }
    }

    // out[p] += accWin[p - base] for p in [lo, hi) with scalar stores: only when out has < 8 elements, where the
    // single core running Phase 1 owns all of out (no other core adds to it).
    __aicore__ inline void AddScalar(int64_t lo, int64_t hi, int64_t base)
    {
        for (int64_t p = lo; p < hi; ++p) {
            float v = outGm_.GetValue(static_cast<uint64_t>(p)) + accLocal_.GetValue(static_cast<uint32_t>(p - base));
            outGm_.SetValue(static_cast<uint64_t>(p), v);
        }
        DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE>(outGm_);  // to GM before the other cores read
    }

    __aicore__ inline void Phase1Unaligned()
    {
        if (nW_ * d_ < LANES) {  // no 32 B block fits in out: core 0 adds every row with scalar stores
            if (block_ != 0) {
                return;
            }
            rowStart_ = 0;
            rowEnd_ = n_;
        }
        bool loaded = false;
        for (int64_t c = 0; c < colLoop_; ++c) {
            int64_t cOff = c * cLenMax_;
            int64_t cLen = ChunkLen(c);
            bool open = false;
            int64_t cur = 0;
            int64_t segLen = 0;
            int64_t offOut = 0;
            for (int64_t r = rowStart_; r < rowEnd_; ++r) {
                int64_t k = IndexAt(r);
                if (!open || k != cur) {
                    if (open) {
                        FlushWindow(cur, segLen, c, cOff, cLen);
                    }
                    open = true;
                    cur = k;
                    segLen = 0;
                    if (Valid(k)) {
                        offOut = (k * d_ + cOff) % LANES;
                        Duplicate(accLocal_, 0.0f, static_cast<int32_t>(win_));
                        Sync<HardEvent::V_S>();
                    }
                }
                ++segLen;
                if (!Valid(k)) {
                    continue;
                }
                int64_t q = r * d_ + cOff;
                int64_t offIn = q % LANES;
                if (loaded) {
                    Sync<HardEvent::S_MTE2>();  // the previous window has been read
                }
                DataCopy(gradLocal_, gradGm_[static_cast<uint64_t>(q - offIn)],
                         static_cast<uint32_t>(Align8(offIn + cLen)));
                Sync<HardEvent::MTE2_S>();
                loaded = true;
                for (int64_t j = 0; j < cLen; ++j) {
                    uint32_t o = static_cast<uint32_t>(offOut + j);
                    float v = accLocal_.GetValue(o) + gradLocal_.GetValue(static_cast<uint32_t>(offIn + j));
                    accLocal_.SetValue(o, v);
                }
            }
            if (open) {
                FlushWindow(cur, segLen, c, cOff, cLen);
            }
        }
    }

    // ---------------------------------------------------------------- §3.7 soft barrier (key 1)
    // Slot i (one 32 B block at slot[i * 8]) goes 0 -> 1 once per launch; the launcher zeroed the slots.
    __aicore__ inline void Barrier()
    {
        PipeBarrier<PIPE_ALL>();  // every out and counts atomic of Phase 1 has drained
        for (int32_t i = 0; i < LANES; ++i) {
            syncLocal_.SetValue(i, i == 0 ? 1 : 0);
        }
        Sync<HardEvent::S_MTE3>();
        DataCopy(slotGm_[static_cast<uint64_t>(block_ * LANES)], syncLocal_, static_cast<uint32_t>(LANES));
        PipeBarrier<PIPE_ALL>();
        for (int64_t spin = 0;; ++spin) {
            DataCopy(syncLocal_, slotGm_, static_cast<uint32_t>(used_ * LANES));
            PipeBarrier<PIPE_ALL>();
            int64_t arrived = 0;
            for (int64_t i = 0; i < used_; ++i) {
                arrived += syncLocal_.GetValue(static_cast<uint32_t>(i * LANES));
            }
            if (arrived >= used_) {
                break;
            }
            if (spin >= SPIN_MAX) {
                Trap();  // documented AscendC::Trap() (the specs spell it trap())
                break;
            }
        }
    }

    // ---------------------------------------------------------------- §3.7 Phase 2 (key 1), plain stores
    // Counts of rows [base, base + len) staged in idxBuf (free after Phase 1); base multiple of 8, and the tile
    // stays inside the countsLength = align8(numWeights) floats.
    __aicore__ inline float CountAt(int64_t k)
    {
        if (k < cntBase_ || k >= cntBase_ + cntTileLen_) {
            int64_t base = k - k % LANES;
            int64_t len = Min64(idxTile_, countsLen_ - base);
            Sync<HardEvent::S_MTE2>();
            DataCopy(idxLocal_.ReinterpretCast<float>(), countsGm_[static_cast<uint64_t>(base)],
                     static_cast<uint32_t>(len));
            Sync<HardEvent::MTE2_S>();
            cntBase_ = base;
            cntTileLen_ = len;
        }
        return idxLocal_.ReinterpretCast<float>().GetValue(static_cast<uint32_t>(k - cntBase_));
    }

    // Aligned D: rows [p2Start, p2End) of out; a row with count c >= 2 becomes fl(S * fl(1/c)).
    __aicore__ inline void Phase2Aligned()
    {
        bool stored = false;
        for (int64_t k = p2Start_; k < p2End_; ++k) {
            float cnt = CountAt(k);
            if (!(cnt >= 2.0f)) {
                continue;
            }
            float scale = 1.0f / cnt;
            for (int64_t c = 0; c < colLoop_; ++c) {
                int64_t cLen = ChunkLen(c);
                uint64_t dst = static_cast<uint64_t>(k * d_ + c * cLenMax_);
                if (stored) {
                    Sync<HardEvent::MTE3_MTE2>();  // the previous chunk has left gradBuf
                }
                DataCopy(gradLocal_, outGm_[dst], static_cast<uint32_t>(cLen));
                Sync<HardEvent::MTE2_V>();
                Muls(gradLocal_, gradLocal_, scale, static_cast<int32_t>(cLen));
                Sync<HardEvent::V_MTE3>();
                DataCopy(outGm_[dst], gradLocal_, static_cast<uint32_t>(cLen));
                stored = true;
            }
        }
    }

    // Count of row k through the 8-lane count block (unaligned Phase 2 keeps idxBuf for data when W is small).
    __aicore__ inline float CountBlk(int64_t k)
    {
        int64_t base = k - k % LANES;
        if (base != cntBase_) {
            Sync<HardEvent::S_MTE2>();
            DataCopy(cntLocal_, countsGm_[static_cast<uint64_t>(base)], static_cast<uint32_t>(LANES));
            Sync<HardEvent::MTE2_S>();
            cntBase_ = base;
        }
        return cntLocal_.GetValue(static_cast<uint32_t>(k - base));
    }

    // Unaligned D: this core owns the flat elements [8 * p2Start, 8 * p2End) of out and read-modify-writes them
    // in windows of <= 4096 elements (<= 2048 when the unaligned UB plan has no 16 KiB window).  Whole blocks move
    // by DataCopy; the last unit's lanes that are out's (fewer than 8) move by scalar loads and stores, so nothing
    // at or past numWeights * D is read or written.
    __aicore__ inline void Phase2Unaligned()
    {
        LocalTensor<float> buf = win_ >= P2_WIN ? gradLocal_ : idxLocal_.ReinterpretCast<float>();
        int64_t winMax = win_ >= P2_WIN ? P2_WIN : idxTile_;
        int64_t total = nW_ * d_;
        cntBase_ = -1;
        bool stored = false;
        for (int64_t e = p2Start_ * LANES; e < p2End_ * LANES; e += winMax) {
            int64_t inside = Min64(Min64(winMax, p2End_ * LANES - e), total - e);  // the window's elements of out
            int64_t blocks = inside / LANES * LANES;
            int64_t kLo = e / d_;
            int64_t kHi = (e + inside - 1) / d_;
            bool any = false;
            for (int64_t k = kLo; k <= kHi && !any; ++k) {
                any = CountBlk(k) >= 2.0f;
            }
            if (!any) {
                continue;
            }
            if (stored) {
                Sync<HardEvent::MTE3_MTE2>();
            }
            Sync<HardEvent::S_MTE2>();
            if (blocks > 0) {
                DataCopy(buf, outGm_[static_cast<uint64_t>(e)], static_cast<uint32_t>(blocks));
            }
            Sync<HardEvent::MTE2_S>();
            if (blocks < inside) {
                // the scalar loads must see Phase 1's adds, not a line cached before them
                DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE>(outGm_);
                for (int64_t x = blocks; x < inside; ++x) {
                    buf.SetValue(static_cast<uint32_t>(x), outGm_.GetValue(static_cast<uint64_t>(e + x)));
                }
            }
            for (int64_t k = kLo; k <= kHi; ++k) {
                float cnt = CountBlk(k);
                if (!(cnt >= 2.0f)) {
                    continue;
                }
                float scale = 1.0f / cnt;
                int64_t lo = k * d_ > e ? k * d_ : e;
                int64_t hi = Min64((k + 1) * d_, e + inside);
                for (int64_t x = lo; x < hi; ++x) {
                    uint32_t o = static_cast<uint32_t>(x - e);
                    buf.SetValue(o, buf.GetValue(o) * scale);
                }
            }
            Sync<HardEvent::S_MTE3>();
            if (blocks > 0) {
                DataCopy(outGm_[static_cast<uint64_t>(e)], buf, static_cast<uint32_t>(blocks));
            }
            if (blocks < inside) {
                for (int64_t x = blocks; x < inside; ++x) {
                    outGm_.SetValue(static_cast<uint64_t>(e + x), buf.GetValue(static_cast<uint32_t>(x)));
                }
                DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE>(outGm_);
            }
            stored = true;
        }
    }

    TPipe pipe_;
    TBuf<TPosition::VECCALC> idxBuf_, accBuf_, gradBuf_, cntBuf_, syncBuf_;
    LocalTensor<int32_t> idxLocal_, syncLocal_;
    LocalTensor<float> accLocal_, gradLocal_, cntLocal_, endLocal_;
    GlobalTensor<float> gradGm_, outGm_, countsGm_;
    GlobalTensor<int32_t> idxGm_, slotGm_;

    int64_t nW_ = 0, d_ = 0, pad_ = -1, used_ = 0, block_ = 0, n_ = 0;  // n_: grad rows = sort_indices length
    int64_t cLenMax_ = 0, colLoop_ = 0, colTail_ = 0, rowBatch_ = 1, idxTile_ = 0, countsLen_ = 0, win_ = 0;
    bool aligned_ = true;
    int64_t rowStart_ = 0, rowEnd_ = 0, p2Start_ = 0, p2End_ = 0;
    int64_t idxBase_ = 0, idxLen_ = 0;      // rows staged in idxBuf
    int64_t cntBase_ = -1, cntTileLen_ = 0;  // counts staged in idxBuf / cntBlk (Phase 2)
};

}  // namespace

using KernelEmbeddingDenseGrad = KernelEdg<false>;
using KernelEmbeddingDenseGradWithFreq = KernelEdg<true>;

// Tiling key 0 (scale off) and 1 (scale on) select the class; tiling.scaleGradByFreq carries the key in the
// by-value launch (pyacl §3.2 pattern 1).  Unaligned D is a runtime branch under either key.
extern "C" __global__ __aicore__ void embedding_dense_grad_kernel(GM_ADDR grad, GM_ADDR sort_indices, GM_ADDR out,
                                                                  GM_ADDR workspace,
                                                                  EmbeddingDenseGradTilingData tiling)
{
    // AI Cores only (one block per AI Core, all resident for the §3.7 barrier); the Atlas inference default made
    // explicit (CANN "Setting the Kernel Type"; docs/device-readiness.md §1).
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AICORE);
    if (tiling.scaleGradByFreq != 0) {
        KernelEmbeddingDenseGradWithFreq op;
        op.Init(grad, sort_indices, out, workspace, tiling);
        op.Process();
    } else {
        KernelEmbeddingDenseGrad op;
        op.Init(grad, sort_indices, out, workspace, tiling);
        op.Process();
    }
}
