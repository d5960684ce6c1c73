// ascemu/launch.h — running blockDim emulated cores (§6): core threads with sigaltstack crash isolation,
// scheduler start-up, TIMEOUT watchdog, end-of-launch checks and the exit code (§5.6); CPU-twin shims.
#pragma once
#include <elf.h>
#include <execinfo.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cerrno>
#include <csignal>
#include <cstdio>

#include "ascemu/linkage.h"
#include "ascemu/system.h"

#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux >= 5.14; older kernels reject it (EINVAL) and pages fault in on use
#endif

namespace ascemu {

// ------------------------------------------------------------------------------------------------ GM allocation
// The aclrtMalloc model: 64-B aligned, ALIGN_UP(bytes, 32) + 32 bytes ("exact": `bytes`), the slack past `bytes`
// poisoned (0xFF).  The usable bytes [preloaded, bytes) get `fill` (-1: poison); [0, preloaded) are about to be
// (or, for a mapped file, already are) the caller's data and are not touched here.
inline size_t gm_alloc_size(size_t bytes, bool exact) { return exact ? bytes : gm_acl_alloc(bytes); }

// Mapped GM buffers (gm_map_file) by base address -> mapping length, so gm_free unmaps instead of freeing.
ASCEMU_DECL std::map<const uint8_t*, size_t>& gm_mappings();

// fn(lo, hi) over [0, n): on two threads (this one and a helper) when n is large and the machine has a second
// CPU; page-table population and fills of big GM buffers scale about linearly to 2.
ASCEMU_DECL void split_work(size_t n, const std::function<void(size_t, size_t)>& fn);

ASCEMU_DECL GmBuf* gm_register(uint8_t* base, size_t bytes, size_t alloc, const std::string& name, Role role, int fill,
                               size_t preloaded);

ASCEMU_DECL GmBuf* gm_alloc(size_t bytes, const std::string& name, Role role, int fill /*-1 poison*/, bool exact = false,
                            size_t preloaded = 0);

// MADV_POPULATE_READ works here (Linux >= 5.14)?
ASCEMU_DECL bool madv_populate_ok();

// A reused process (serve.h) keeps each GM file mapped from one launch to the next while the file stays the same
// (device, inode, length): the pages and their page-table entries are then already in place.
struct GmFileMap {
    dev_t dev;
    ino_t ino;
    size_t len;
    void* p;
    bool used;  // by the current launch
};
inline bool g_keep_gm_maps = false;
ASCEMU_DECL std::map<std::string, GmFileMap>& gm_file_maps();  // by path

ASCEMU_DECL void gm_unmap(void* p, size_t len);

// Before the next launch: unmap the files the last launch did not use (another caller's scratch files).
ASCEMU_DECL void gm_release_unused_files();

// A GM buffer whose memory is a mapping of the file `path` (launch-file key "gm_file"; the Python launcher's
// zero-copy path).  The file is grown to cover the whole allocation if it is shorter.
//  shared:  MAP_SHARED.  Every store lands in the file, so the file IS the buffer's final content (outputs need no
//           copy at the end, and hold the data at the moment of a crash too).
//  private: MAP_PRIVATE (copy-on-write).  The file is never modified; only useful with `preloaded` (the file holds
//           the input bytes).
// Either way the page tables are populated up front (tmpfs pages: no fault per page during the run; writable for
// a shared mapping, as tmpfs needs no write notification), on two threads for big buffers.
// `preloaded` leading usable bytes are the file's content; the rest get fill/poison as in gm_alloc.
ASCEMU_DECL GmBuf* gm_map_file(const std::string& path, bool shared, size_t bytes, const std::string& name, Role role,
                               int fill, bool exact, size_t preloaded);

ASCEMU_DECL void gm_free(void* p);

// ------------------------------------------------------------------------------------------------ crash handling
inline char g_crash_line[4096];
inline volatile sig_atomic_t g_crash_written = 0;

ASCEMU_DECL void crash_write_line();
ASCEMU_DECL void alarm_handler(int);

// Resolves a code address to "file:line" with addr2line (best effort; the caller guards with alarm()): the innermost
// frame of the kernel's code, so false when the address lies in an emulator function the kernel called.
ASCEMU_DECL bool resolve_pc(uintptr_t pc, std::string& file, unsigned& line, std::string& func);

ASCEMU_DECL void crash_handler(int sig, siginfo_t* si, void* uctx);

// TIMEOUT: where a running core is.  The watchdog signals the core's thread (kSampleSignal); the handler stores the
// interrupted pc and a backtrace, and the watchdog maps them to the innermost statement of the kernel's own code
// (resolve_pc: addr2line over the build's line tables, -g1): a loop that makes no API call is named at its line, a
// core inside a long emulator call at the kernel's call of it.  False when the thread did not answer or no frame
// lies in the kernel's code.
inline constexpr int kSampleSignal = SIGURG;  // ignored by default: a sample arriving late harms nothing
ASCEMU_DECL void sample_handler(int, siginfo_t*, void* uctx);
ASCEMU_DECL bool sample_core(const Core* c, std::string& file, unsigned& line, std::string& func);

ASCEMU_DECL void install_crash_handlers();
// The calling thread's signal stack (crash reports run on it), unless it has one.
ASCEMU_DECL void setup_altstack();

// The threads the cores run on, kept from one launch to the next: a reused process (serve.h) does not create and
// tear down threads per launch.  A core gets a thread when it first runs and gives it back when it ends, so a launch
// uses as many threads as cores are resident at once (started, not finished), not block_dim.  Never destroyed:
// blocked pool threads end with the process.
class CoreThreads {
  public:
    static CoreThreads& get();
    // A launch of n cores: job(i) runs once submit(i) was called, on a thread of the pool; wait() returns once all
    // n jobs have returned.
    void start(int n, const std::function<void(int)>& job);
    void submit(int i);
    void wait();

  private:
    void loop(int i);
    std::mutex m_;
    std::condition_variable go_, done_;
    std::vector<std::thread> threads_;
    std::vector<int> queue_;  // submitted jobs an idle thread takes
    int idle_ = 0;            // threads waiting for a job and not yet handed one
    const std::function<void(int)>* job_ = nullptr;
    int n_ = 0, finished_ = 0;
};

// The UB arenas of resident cores: a core takes one when it starts and gives it back when it ends (launch()).  Free
// arenas are kept, pre-faulted, for the next core and the next launch, up to kKeep of them.
class UbArenas {
  public:
    static UbArenas& get();
    uint8_t* take();  // kProfile.ub_size bytes, 64-B aligned, contents undefined (the caller poisons them)
    void give(uint8_t* p);
    void trim();  // at a launch's end: unmap the free arenas beyond kKeep

  private:
    static constexpr size_t kKeep = 64;
    size_t bytes() const;
    std::mutex m_;
    std::vector<uint8_t*> free_;
};

// ------------------------------------------------------------------------------------------------ end checks
ASCEMU_DECL void core_end_checks(Core* c);

ASCEMU_DECL void launch_end_checks();

// ------------------------------------------------------------------------------------------------ launch
ASCEMU_DECL void configure_mode(Runtime& R);

// A core becomes resident (its first run): a poisoned UB arena and an empty written shadow; the thread-local state
// of the emulator starts as on a fresh thread (a pool thread may have run another core before).
ASCEMU_DECL void core_enter(Core* c);
// A core has ended: its UB arena goes back, and the state only a running core needs is released.
ASCEMU_DECL void core_leave(Core* c);

// A kernel that ends the process.  This program defines exit, _exit, _Exit and quick_exit (impl/launch_impl.h; an
// executable's own definition is what its calls reach, before the C library's).  Called from kernel code on a core
// thread during a launch, each is the fatal record KERNEL_EXIT at the caller's line (the return address, resolved as
// CRASH resolves the faulting pc), and the launch ends as for any fatal record: report, outputs, exit code 2.
// Anywhere else (a host main after its launches, static destructors) it is the C library's function.
[[noreturn]] ASCEMU_DECL void exit_called(const char* name, int status, void* return_address);

// CANN's limit on a launch's blockDim (the <<<>>> launch and aclrtLaunchKernel take at most 65535 blocks).
inline constexpr int kMaxBlockDim = 65535;

// The watchdog's fatal TIMEOUT record (called with R.sm held, which it releases): each running core sampled
// (sample_core) and named at its kernel line.
ASCEMU_DECL void timeout_record(std::unique_lock<std::mutex>& lk);

// Runs body(core_index) on block_dim emulated cores.  Returns the §5.6 exit code (fatal paths process_exit).
ASCEMU_DECL int launch(int block_dim, const std::function<void()>& body);

// ------------------------------------------------------------------------------------------------ CPU-twin shims
// Host-side GM for hand-written host mains (named, with a role and a fill byte; -1 poisons).
ASCEMU_DECL void* GmAlloc(size_t bytes, const char* name = "gm", const char* role = "other", int fill = -1);
ASCEMU_DECL void GmFree(void* p);

ASCEMU_DECL void config_from_env();

}  // namespace ascemu

namespace AscendC {
ASCEMU_DECL void* GmAlloc(size_t size);
ASCEMU_DECL void GmFree(void* p);
}  // namespace AscendC

#define ICPU_SET_TILING_KEY(k) (::ascemu::rt().cfg.tiling_key = (int64_t)(k))
#define ICPU_RUN_KF(func, blkdim, ...)                                                      \
    do {                                                                                    \
        ::ascemu::config_from_env();                                                        \
        int ascemu_rc_ = ::ascemu::launch((int)(blkdim), [&]() { func(__VA_ARGS__); });     \
        ::ascemu::write_report(ascemu_rc_);                                                 \
    } while (0)

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/launch_impl.h"
#endif
