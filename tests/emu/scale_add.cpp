// A user's own kernel, as a developer would write it: y = x * alpha + 1, float32, double-buffered tiles.
// Used by tests/test_emu_backend.py to exercise workbench.running.emu.load() (not one of the shipped ops).
#include "kernel_operator.h"
using namespace AscendC;

struct ScaleAddTiling {
    uint32_t total;      // elements, a multiple of 8 per core
    uint32_t perCore;    // elements per core
    uint32_t tile;       // elements per tile, a multiple of 8
    float alpha;
};

class KernelScaleAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ScaleAddTiling& t) {
        t_ = t;
        uint32_t start = GetBlockIdx() * t.perCore;
        xGm.SetGlobalBuffer((__gm__ float*)x + start, t.perCore);
        yGm.SetGlobalBuffer((__gm__ float*)y + start, t.perCore);
        pipe.InitBuffer(inQ, 2, t.tile * sizeof(float));
        pipe.InitBuffer(outQ, 2, t.tile * sizeof(float));
    }
    __aicore__ inline void Process() {
        for (uint32_t off = 0; off < t_.perCore; off += t_.tile) {
            uint32_t n = t_.perCore - off < t_.tile ? t_.perCore - off : t_.tile;
            LocalTensor<float> xl = inQ.AllocTensor<float>();
            DataCopy(xl, xGm[off], n);
            inQ.EnQue(xl);
            LocalTensor<float> xi = inQ.DeQue<float>();
            LocalTensor<float> yl = outQ.AllocTensor<float>();
            Muls(yl, xi, t_.alpha, n);
            PipeBarrier<PIPE_V>();
            Adds(yl, yl, 1.0f, n);
            outQ.EnQue(yl);
            inQ.FreeTensor(xi);
            LocalTensor<float> yo = outQ.DeQue<float>();
            DataCopy(yGm[off], yo, n);
            outQ.FreeTensor(yo);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<float> xGm, yGm;
    ScaleAddTiling t_;
};

extern "C" __global__ __aicore__ void scale_add(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, ScaleAddTiling tiling) {
    KernelScaleAdd op;
    op.Init(x, y, tiling);
    op.Process();
#ifdef SCALE_ADD_WILD_WRITE
    if (GetBlockIdx() == 1) {
        *reinterpret_cast<volatile float*>(0x10) = 1.0f;  // a wild pointer: the crash the backend must contain
    }
#endif
#ifdef SCALE_ADD_SPIN
    volatile int spin = 0;  // volatile: an empty infinite loop would be undefined behaviour, not a hang
    while (spin == 0) {
    }
#endif
}
