// leaky_relu_custom: y = x >= 0 ? x : x * alpha on float vectors, with a CPU-twin host main.
// Style: CANN's KernelLaunch samples in their CPU-debug build: the kernel and a main() that, under ASCENDC_CPU_DEBUG,
// includes tikicpulib.h, allocates GM with AscendC::GmAlloc, reads ./input/*.bin, runs the kernel with ICPU_RUN_KF
// and writes ./output/*.bin (the samples' NPU branch, with ACL, is left out: the .asc programs here show that side).
// The kernel takes `GM_ADDR workspace, GM_ADDR tiling` and reads a registered tiling struct with GET_TILING_DATA;
// TPipe + double-buffered TQue, GetBlockNum() / GetBlockIdx().
#include <cstdio>
#include <cstdint>

#include "kernel_operator.h"

struct LeakyReluTilingData {
    uint32_t totalLength;
    uint32_t tileNum;
    float alpha;
};

constexpr int32_t BUFFER_NUM = 2;

class KernelLeakyRelu {
public:
    __aicore__ inline KernelLeakyRelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t tileNum, float alpha)
    {
        this->blockLength = totalLength / AscendC::GetBlockNum();
        this->tileNum = tileNum;
        this->tileLength = this->blockLength / tileNum / BUFFER_NUM;
        this->alpha = alpha;
        xGm.SetGlobalBuffer((__gm__ float *)x + this->blockLength * AscendC::GetBlockIdx(), this->blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + this->blockLength * AscendC::GetBlockIdx(), this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        int32_t loopCount = this->tileNum * BUFFER_NUM;
        for (int32_t i = 0; i < loopCount; i++) {
            CopyIn(i);
            Compute(i);
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t progress)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm[progress * this->tileLength], this->tileLength);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(int32_t progress)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        AscendC::LeakyRelu(yLocal, xLocal, this->alpha, this->tileLength);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress)
    {
        AscendC::LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        AscendC::DataCopy(yGm[progress * this->tileLength], yLocal, this->tileLength);
        outQueueY.FreeTensor(yLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> yGm;
    uint32_t blockLength = 0;
    uint32_t tileNum = 0;
    uint32_t tileLength = 0;
    float alpha = 0;
};

extern "C" __global__ __aicore__ void leaky_relu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(LeakyReluTilingData);
    GET_TILING_DATA(tilingData, tiling);
    KernelLeakyRelu op;
    op.Init(x, y, tilingData.totalLength, tilingData.tileNum, tilingData.alpha);
    op.Process();
}

// ---------------------------------------------------------------------------------------------------- host side
#ifdef ASCENDC_CPU_DEBUG
#include "tikicpulib.h"

// what the samples' data_utils.h provides
static bool ReadFile(const char *path, size_t size, void *buf)
{
    FILE *f = std::fopen(path, "rb");
    bool ok = f != nullptr && std::fread(buf, 1, size, f) == size;
    if (f != nullptr) std::fclose(f);
    return ok;
}
static bool WriteFile(const char *path, const void *buf, size_t size)
{
    FILE *f = std::fopen(path, "wb");
    bool ok = f != nullptr && std::fwrite(buf, 1, size, f) == size;
    if (f != nullptr) std::fclose(f);
    return ok;
}

int32_t main(int32_t argc, char *argv[])
{
    uint32_t blockDim = 8;
    LeakyReluTilingData tilingHost{8 * 2048, 4, 0.01f};
    size_t inputByteSize = tilingHost.totalLength * sizeof(float);
    size_t outputByteSize = inputByteSize;

    uint8_t *x = (uint8_t *)AscendC::GmAlloc(inputByteSize);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(outputByteSize);
    uint8_t *workspace = (uint8_t *)AscendC::GmAlloc(32);
    uint8_t *tiling = (uint8_t *)AscendC::GmAlloc(sizeof(LeakyReluTilingData));
    if (!ReadFile("./input/input_x.bin", inputByteSize, x)) {
        std::fprintf(stderr, "cannot read ./input/input_x.bin\n");
        return 1;
    }
    *reinterpret_cast<LeakyReluTilingData *>(tiling) = tilingHost;

    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(leaky_relu_custom, blockDim, x, y, workspace, tiling);

    bool written = WriteFile("./output/output_y.bin", y, outputByteSize);
    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)y);
    AscendC::GmFree((void *)workspace);
    AscendC::GmFree((void *)tiling);
    return written ? 0 : 1;
}
#endif
