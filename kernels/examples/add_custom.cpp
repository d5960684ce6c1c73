// A user's own kernel, the Ascend C "hello world": z = x + y, float32, double-buffered tiles of `tile`
// elements, `perCore` elements per core. The README runs it with workbench.running.emu.load(); copy it to start
// your own. The same source builds with CANN for the NPU.
#include "kernel_operator.h"
using namespace AscendC;

struct AddCustomTiling {
    uint32_t perCore;  // elements per core, a multiple of `tile`
    uint32_t tile;     // elements per tile, a multiple of 8 (32 bytes)
};

class KernelAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddCustomTiling& t) {
        t_ = t;
        uint64_t start = static_cast<uint64_t>(GetBlockIdx()) * t.perCore;
        xGm.SetGlobalBuffer((__gm__ float*)x + start, t.perCore);
        yGm.SetGlobalBuffer((__gm__ float*)y + start, t.perCore);
        zGm.SetGlobalBuffer((__gm__ float*)z + start, t.perCore);
        pipe.InitBuffer(inX, 2, t.tile * sizeof(float));
        pipe.InitBuffer(inY, 2, t.tile * sizeof(float));
        pipe.InitBuffer(outZ, 2, t.tile * sizeof(float));
    }
    __aicore__ inline void Process() {
        for (uint32_t off = 0; off < t_.perCore; off += t_.tile) {
            LocalTensor<float> xl = inX.AllocTensor<float>();
            LocalTensor<float> yl = inY.AllocTensor<float>();
            DataCopy(xl, xGm[off], t_.tile);
            DataCopy(yl, yGm[off], t_.tile);
            inX.EnQue(xl);
            inY.EnQue(yl);
            LocalTensor<float> xi = inX.DeQue<float>();
            LocalTensor<float> yi = inY.DeQue<float>();
            LocalTensor<float> zl = outZ.AllocTensor<float>();
            Add(zl, xi, yi, t_.tile);
            outZ.EnQue(zl);
            inX.FreeTensor(xi);
            inY.FreeTensor(yi);
            LocalTensor<float> zo = outZ.DeQue<float>();
            DataCopy(zGm[off], zo, t_.tile);
            outZ.FreeTensor(zo);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inX, inY;
    TQue<QuePosition::VECOUT, 2> outZ;
    GlobalTensor<float> xGm, yGm, zGm;
    AddCustomTiling t_;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                 AddCustomTiling tiling) {
    KernelAdd op;
    op.Init(x, y, z, tiling);
    op.Process();
}
