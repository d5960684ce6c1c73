// The event log of a launch that ends in a fatal record (tests/emu/test_emu_events_fatal.py): three cores each copy
// their slice in and out and meet at SyncAll; then core 1 makes one more copy and faults, while the others copy on.
// tiling_key 1 (and 5): a failed ASSERT; 2 (6): a store through a wild pointer (SIGSEGV, a CRASH record); 3 (7): a spin
// with no API call (the watchdog's TIMEOUT, raised on another thread than the core's).  tiling_key 5 to 7: the other
// cores copy until the fault ends the launch, and core 1 faults only once core 0's copies have begun (parallel mode
// only: in serial mode core 1 would never run again), so the fault stops a core that is recording.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void events_fatal_kernel(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * 64, 64);
    gy.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * 64, 64);
    LocalTensor<float> a = q.AllocTensor<float>();
    DataCopy(a, gx, 64);  // LINE:first_in
    DataCopy(gy, a, 64);  // LINE:first_out
    SyncAll();  // LINE:sync
    const bool forever = TILING_KEY_IS(5) || TILING_KEY_IS(6) || TILING_KEY_IS(7);
    if (GetBlockIdx() == 1) {
        // core 0's copy loop has written y[0] (a plain read: no API call, so nothing the emulator sees as a poll)
        while (forever && ((volatile float*)y)[0] != 7.0f) {}
        DataCopy(gy, a, 64);  // LINE:last  core 1's last API call before its fault
        if (TILING_KEY_IS(1) || TILING_KEY_IS(5)) ASSERT(GetBlockIdx() != 1);  // LINE:assert
        if (TILING_KEY_IS(2) || TILING_KEY_IS(6)) *(volatile uint32_t*)(uintptr_t)(GetBlockIdx() * 8) = 1;  // LINE:wild
        if (TILING_KEY_IS(3) || TILING_KEY_IS(7)) for (volatile uint64_t spin = 0;; spin = spin + 1) {}  // LINE:spin
    }
    a.SetValue(0, 7.0f);
    for (int i = 0; i < (forever ? INT32_MAX : 200); ++i) DataCopy(gy, a, 64);  // LINE:loop
    q.FreeTensor(a);
}
