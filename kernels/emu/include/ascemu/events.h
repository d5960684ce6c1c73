// ascemu/events.h — the per-core event log of a launch run with trace on (docs/emulator.md, "Event log").
//
// Each API call the kernel makes becomes one Event of its core, in program order: the API, the kernel's file and
// line, and what the call touched (a GM tensor's byte range, a UB buffer's range, bytes moved, vector repeats, a
// flag, a queue slot).  The driver turns the log on per launch (the launch file's "events_path"); off, every hook
// is one predictable branch on g_events.  A core appends to its own vector only, so recording takes no lock.
// At the end of the launch the driver writes the file: a header, fixed-size records (EventDisk) and a JSON trailer
// with the string table and the GM tensors (workbench/running/events.py reads it).  A launch that ends in a fatal
// record writes it too, up to the fault (events_stop_cores, then write_events with the exit code): the trailer says
// "fatal", and every core's log ends at its latest API call.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ascemu/linkage.h"

namespace ascemu {

struct Core;
struct GmAccess;

// Set by the driver for each launch: whether the hooks record.
inline bool g_events = false;
// Events the cores of this launch have reserved, in blocks of kEventBlock (one atomic add per block, not per event,
// so cores running at once do not contend for it), and whether a core was refused one (the log is truncated).
inline std::atomic<uint64_t> g_event_count{0};
inline std::atomic<bool> g_events_truncated{false};
// The launch's cap on recorded events (the launch file's "max_events", at most kMaxEvents): the workbench sets it from
// the host memory budget left after the run's own needs (workbench/planning/memory.py, trace_room).
inline uint64_t g_max_events = 0;
// Events a core reserves at once this launch: kEventBlock, or fewer when the cap is small, so that the events the
// cores reserved but did not use (each core's last block) leave the log close to its cap rather than one core's worth.
inline uint64_t g_event_block = 0;
// Set by the fatal path: a core entering a hook parks there (it never records again), so the logs hold still while
// they are written.  Why a fatal launch's log was not written ("" : it was, or there is none): the report's
// "events_skipped".
inline std::atomic<bool> g_events_stop{false};
inline std::string g_events_skipped;
// Set by the driver with g_events: the fatal path fences every core thread with membarrier (events_impl.h, EvHold).
inline bool g_events_membarrier = false;

enum class EvKind : uint8_t {
    Call,      // any other API call (scalar Get/SetValue on UB, mask set-up, ...)
    GmRead,    // an access to GM that reads (DataCopy GM->UB, DataCopyPad, GlobalTensor::GetValue)
    GmWrite,   // ... that writes
    GmAtomic,  // ... that adds atomically (a write while SetAtomicAdd is active)
    Vector,    // a vector instruction (repeats)
    UbCopy,    // DataCopy UB->UB
    SetFlag,
    WaitFlag,
    Barrier,   // PipeBarrier / pipe_barrier
    SyncAll,
    Alloc,     // TQue::AllocTensor
    EnQue,
    DeQue,
    Free,      // TQue::FreeTensor
};
inline constexpr const char* kEvKindNames[] = {"call",    "gm_read",  "gm_write",  "gm_atomic", "vector",
                                               "ub_copy", "set_flag", "wait_flag", "barrier",   "sync_all",
                                               "alloc",   "enque",    "deque",     "free"};

inline constexpr uint64_t kEventBlock = 4096;  // events a core reserves (and allocates) at once

enum EvFlag : uint8_t { EVF_OUTSIDE = 1 };  // a GM access that runs past its tensor's allocation

// One event in memory.  Names are the string literals the emulator and std::source_location hand out: interned
// into the file's string table only when it is written.
struct Event {
    uint64_t seq = 0;             // the event's index in its core's log: program order
    const char* api = "";
    const char* file = "";
    uint32_t line = 0;
    EvKind kind = EvKind::Call;
    uint8_t pipe = 1;             // PipeIx of the pipe the call ran on (runtime.h): 0 S, 1 V, 2 MTE2, 3 MTE3
    uint8_t flags = 0;
    uint8_t ub_pos = 0xFF;        // TPosition of the UB buffer (0xFF: none)
    const void* gm_buf = nullptr; // GmBuf* of the tensor (nullptr: no GM, or an address in no allocation)
    uint64_t gm_off = 0, gm_span = 0, gm_ok = 0, gm_pitch = 0;  // first byte, bytes spanned, bytes inside, row pitch
    uint32_t gm_rows = 0, gm_row_bytes = 0;
    uint32_t ub_lo = 0, ub_len = 0;
    int16_t ub_buffer = -1;       // the queue / TBuf on this core that owns the UB range, by first use
    uint64_t bytes = 0;           // bytes moved (what the trace's mte2 / mte3 / ub2ub counts)
    uint64_t repeats = 0;         // vector repeats (trace_vec's repeats + internal)
    int64_t count = -1;           // vector element count (-1: the repeat form)
    int32_t a = -1, b = -1;       // flags: source / destination PipeIx; barrier: pipe_t; queues: TPosition
    int64_t id = -1;              // flags: the event ID
    const char* s1 = "";          // vector: the trace's api, source and destination dtypes
    const char* s2 = "";
    const char* s3 = "";
};
// The emulator's share of an event in the workbench's memory guard (workbench/planning/memory.py EVENT_BYTES_EMULATOR).
static_assert(sizeof(Event) == 160, "Event's size is priced by workbench/planning/memory.py: change it there too");

// A core's events, in blocks of kEventBlock: appending never moves (copies) the events already recorded.
class EventLog {
  public:
    bool empty() const { return n_ == 0; }
    size_t size() const { return n_; }
    Event& back() { return at(n_ - 1); }
    Event& at(size_t i) { return blocks_[i / kEventBlock][i % kEventBlock]; }
    Event& push() {  // a default Event: each block is made of them
        if (n_ % kEventBlock == 0) blocks_.emplace_back(new Event[kEventBlock]);
        return at(n_++);
    }
    void clear() {
        blocks_.clear();
        n_ = 0;
    }

  private:
    std::vector<std::unique_ptr<Event[]>> blocks_;
    size_t n_ = 0;
};

#pragma pack(push, 1)
// One record of the file, little-endian (x86-64).  Keep in step with EVENT_DTYPE in workbench/running/events.py.
struct EventDisk {
    uint64_t seq, gm_off, gm_span, gm_ok, gm_pitch, bytes, repeats;
    int64_t count, id;
    uint32_t core, api, file, line, gm_rows, gm_row_bytes, ub_lo, ub_len, s1, s2, s3;
    int32_t a, b, gm_tensor;
    int16_t ub_buffer;
    uint8_t kind, pipe, ub_pos, flags;
};
#pragma pack(pop)
static_assert(sizeof(EventDisk) == 134, "EventDisk is the file's record: change workbench/running/events.py too");

inline constexpr char kEventsMagic[8] = {'A', 'S', 'C', 'E', 'V', 'T', '1', '\0'};
// 2: the trailer says whether the launch ended in a fatal record ("fatal", "exit_code", "fault", "fault_core")
inline constexpr uint32_t kEventsVersion = 2;
// The log stops (and says so: "truncated" in the trailer) past this many events in a launch, about 1.3 GB in memory:
// the default and the upper bound of the launch's "max_events" (g_max_events).
inline constexpr uint64_t kMaxEvents = 8u << 20;

// The hooks, each called only when g_events is set.
ASCEMU_DECL void ev_call(Core* c, const char* api, const char* file, uint32_t line);
ASCEMU_DECL void ev_gm(const void* p, size_t len, bool write, const GmAccess& a);
ASCEMU_DECL void ev_rows(uint32_t count, uint32_t len, uint64_t pitch);
ASCEMU_DECL void ev_ub(Core* c, int32_t buf, uint32_t off, uint64_t bytes, bool write);
ASCEMU_DECL void ev_moved(Core* c, bool ub_to_ub, uint64_t bytes);
ASCEMU_DECL void ev_vec(Core* c, const char* api, const char* src, const char* dst, int64_t count, uint64_t repeats);
ASCEMU_DECL void ev_mark(Core* c, EvKind kind, int32_t a, int32_t b, int64_t id);
ASCEMU_DECL void ev_queue(Core* c, EvKind kind, const void* queue, uint8_t pos, uint32_t lo, uint32_t len);

// Writes the launch's log to `path`: the driver after every core has ended, or the fatal path (exit_code >= 2) after
// events_stop_cores.  False: the file could not be written.
ASCEMU_DECL bool write_events(const std::string& path, int exit_code);
// The fatal path, before its report: stops every core at its next hook and waits for those inside one to leave it.
// False (and g_events_skipped says why): no log is on, or one could not be stopped, and the log is not written.
ASCEMU_DECL bool events_stop_cores();
// Whether the system has membarrier's fence on every thread of a process (g_events_membarrier).
ASCEMU_DECL bool ev_membarrier_available();

}  // namespace ascemu
