// acl/acl_rt.h — ascemu's ACL shim: the runtime calls a single-source program's host main() makes, implemented
// over the emulator (docs/programs.md).  Signatures, enum values and error codes follow CANN's public headers
// (hicann/runtime, include/external/acl/acl_rt.h, acl_base_rt.h, error_codes/rt_error_codes.h).
//
// - Device memory is emulator GM: aclrtMalloc makes a GM allocation like CANN's (ALIGN_UP(size, 32) + 32 bytes,
//   64-B aligned, the slack poisoned), named after its call site, so a kernel's accesses to it get the GM
//   bounds, slack and never-written checks.  Memory starts as the 0xFF poison, as a fresh device buffer holds
//   whatever was there before.
// - Copies and memsets check their kind and their device range (inside one allocation's usable bytes), and
//   mark the device bytes they write as written.  A device-to-host copy of bytes nothing wrote is noted.
// - One device (0), one default context, streams as handles.  Launches run synchronously (program.h), so every
//   synchronize only reports: a launch with an error diagnostic fails its stream's next synchronize with
//   507015 (ACL_ERROR_RT_AICORE_EXCEPTION), as a trapped kernel does on a device.
// - Events stamp a per-stream clock that only launches advance, by the emulator's wall time for them: an event
//   interval is the time the emulator took, never a device time.
// - A failed call returns CANN's code, keeps it for aclrtGetLastError / aclGetRecentErrMsg, and writes one line
//   "ASCEMU_ACL {json}" (a diagnostic record: kind, severity, api, file, line, message) to stderr.
// - The host side is assumed single-threaded.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <source_location>
#include <string>

#include "acl/acl_base.h"
#include "kernel_operator.h"
#include "ascemu/launch.h"

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEM_MALLOC_HUGE_ONLY,
    ACL_MEM_MALLOC_NORMAL_ONLY,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
    ACL_MEM_MALLOC_HUGE1G_ONLY,
    ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
    ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
    ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
    ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000,
} aclrtMemMallocPolicy;

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEFAULT,
    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
    ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
    ACL_MEMCPY_INTER_DEVICE_TO_DEVICE,
} aclrtMemcpyKind;

typedef enum aclrtRunMode {
    ACL_DEVICE,
    ACL_HOST,
} aclrtRunMode;

typedef enum aclrtLastErrLevel {
    ACL_RT_THREAD_LEVEL = 0,
} aclrtLastErrLevel;

#define ACL_EVENT_SYNC 0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE 0x00000008U

namespace ascemu::acl {

using SL = std::source_location;

struct Event {
    bool timeline = true;
    bool recorded = false;
    double stamp_s = 0;
};

struct State {
    std::string soc;
    bool initialised = false, finalised = false;
    int device = -1;
    const void* context = nullptr;  // current; the default one after aclrtSetDevice
    std::set<const void*> contexts, streams, host;
    std::map<const void*, Event> events;
    std::map<const void*, double> clock_s;  // per stream (nullptr: the default stream)
    std::map<const void*, std::string> fault;  // a stream whose launch reported an error: the first such error
    aclError last = ACL_SUCCESS;
    std::string last_msg;
};

inline char g_default_context;  // its address is the default context's handle

// The workbench's settings for a program run (workbench/running/emu/program.py sets them); read once.
inline void configure_from_env() {
    config_from_env();
    Config& cfg = rt().cfg;
    if (const char* s = std::getenv("ASCEMU_SOC"); s && *s) cfg.soc = s;
    if (const char* s = std::getenv("ASCEMU_CORE_COUNT"); s && *s) cfg.core_count = (uint32_t)std::atoi(s);
}

inline State& st() {
    static State* s = [] {
        configure_from_env();
        auto* fresh = new State();  // never destroyed: the program's own static destructors may still call ACL
        fresh->soc = rt().cfg.soc;
        return fresh;
    }();
    return *s;
}

// Where a host-side record points: a call's source_location, or a launch site.
struct Where {
    const char* file;
    unsigned line;
    const char* function;
    Where(const char* f, unsigned l, const char* fn) : file(f), line(l), function(fn) {}
    Where(const SL& loc) : file(loc.file_name()), line(loc.line()), function(loc.function_name()) {}
};

inline std::string site(const Where& at) {
    std::string f = at.file;
    size_t slash = f.rfind('/');
    return (slash == std::string::npos ? f : f.substr(slash + 1)) + ":" + std::to_string(at.line);
}

// One host-side record on stderr, in the emulator's diagnostic shape (core -1).
inline void emit(const char* kind, Sev sev, const char* api, const Where& at, const std::string& msg,
                 const std::string& details) {
    DiagRec d;
    d.kind = kind;
    d.sev = sev;
    d.api = api;
    if (!in_emulator(at.file)) {  // a call the emulator made itself names no line (runtime.h, in_emulator)
        d.file = at.file;
        d.line = at.line;
        d.function = at.function;
    }
    d.message = msg;
    d.details = details;
    std::string line = "ASCEMU_ACL " + diag_json(d) + "\n";
    std::fflush(stdout);  // keep the program's own output before the record when both go to one terminal
    (void)!::write(2, line.data(), line.size());
}

// A failed call: CANN's code is returned and kept for aclrtGetLastError / aclGetRecentErrMsg.
inline aclError fail(aclError code, const char* api, const Where& at, const std::string& msg, Sev sev = Sev::Error) {
    State& S = st();
    S.last = code;
    S.last_msg = api + std::string(" at ") + site(at) + ": " + msg;
    emit("ACL_ERROR", sev, api, at, strf("%s returned %d: %s", api, code, msg.c_str()), jd("code", code));
    return code;
}

inline bool known_stream(aclrtStream s) { return s == nullptr || st().streams.count(s) > 0; }

inline const char* kind_name(int kind) {
    static const char* names[] = {"ACL_MEMCPY_HOST_TO_HOST",         "ACL_MEMCPY_HOST_TO_DEVICE",
                                  "ACL_MEMCPY_DEVICE_TO_HOST",       "ACL_MEMCPY_DEVICE_TO_DEVICE",
                                  "ACL_MEMCPY_DEFAULT",              "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
                                  "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE", "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE"};
    return kind >= 0 && kind < 8 ? names[kind] : "an unknown aclrtMemcpyKind";
}

// The device allocation holding [p, p + n) within its usable bytes; nullptr with `why` set otherwise.
inline GmBuf* device_range(const void* p, size_t n, std::string& why) {
    GmBuf* b = gm_find(p);
    if (!b) return nullptr;
    size_t off = (const uint8_t*)p - b->base;
    if (off + n > b->bytes) {
        why = strf("bytes [%zu, %zu) of '%s' run past its %zu bytes", off, off + n, b->name.c_str(), b->bytes);
        return nullptr;
    }
    return b;
}

inline void mark_written(GmBuf* b, const void* p, size_t n) {
    size_t off = (const uint8_t*)p - b->base;
    b->written.set(off, off + n);
}

inline aclError copy(const char* api, void* dst, size_t dest_max, const void* src, size_t count, int kind,
                     aclrtStream stream, bool async, const SL& loc) {
    if (async && !known_stream(stream)) return fail(ACL_ERROR_RT_PARAM_INVALID, api, loc, "unknown stream");
    if (count == 0) return ACL_SUCCESS;
    if (!dst || !src) return fail(ACL_ERROR_INVALID_PARAM, api, loc, "a null pointer");
    if (count > dest_max)
        return fail(ACL_ERROR_INVALID_PARAM, api, loc, strf("count %zu exceeds destMax %zu", count, dest_max));
    if (kind < 0 || kind > 7) return fail(ACL_ERROR_INVALID_PARAM, api, loc, strf("memcpy kind %d", kind));
    const bool dst_dev = gm_find(dst) != nullptr, src_dev = gm_find(src) != nullptr;
    bool want_dst = dst_dev, want_src = src_dev;  // ACL_MEMCPY_DEFAULT: taken from the addresses
    if (kind != ACL_MEMCPY_DEFAULT) {
        want_dst = kind != ACL_MEMCPY_HOST_TO_HOST && kind != ACL_MEMCPY_DEVICE_TO_HOST;
        want_src = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE ||
                   kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE || kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE;
    }
    auto side = [](bool dev) { return dev ? "device memory (an aclrtMalloc allocation)" : "host memory"; };
    if (want_dst != dst_dev)
        return fail(ACL_ERROR_RT_PARAM_INVALID, api, loc,
                    strf("%s: the destination %p is %s", kind_name(kind), dst, side(dst_dev)));
    if (want_src != src_dev)
        return fail(ACL_ERROR_RT_PARAM_INVALID, api, loc,
                    strf("%s: the source %p is %s", kind_name(kind), src, side(src_dev)));
    std::string why;
    GmBuf* db = dst_dev ? device_range(dst, count, why) : nullptr;
    GmBuf* sb = src_dev ? device_range(src, count, why) : nullptr;
    if ((dst_dev && !db) || (src_dev && !sb))
        return fail(ACL_ERROR_RT_PARAM_INVALID, api, loc, strf("%s: %s", kind_name(kind), why.c_str()));
    if (sb && !db && !sb->prefilled && sb->written.n > 0) {
        size_t off = (const uint8_t*)src - sb->base;
        if (size_t unset = sb->written.count_unset(off, off + count))
            emit("ACL_COPY_UNWRITTEN", Sev::Warning, api, loc,
                 strf("%s copies %zu bytes of '%s' that nothing wrote (here the 0xFF poison; on a device, whatever "
                      "the memory held before)",
                      api, unset, sb->name.c_str()),
                 jd("buffer", sb->name, "offset", off, "bytes", count, "unwritten", unset));
    }
    std::memmove(dst, src, count);
    if (db) mark_written(db, dst, count);
    return ACL_SUCCESS;
}

inline aclError set(const char* api, void* ptr, size_t max_count, int32_t value, size_t count, aclrtStream stream,
                    bool async, const SL& loc) {
    if (async && !known_stream(stream)) return fail(ACL_ERROR_RT_PARAM_INVALID, api, loc, "unknown stream");
    if (count == 0) return ACL_SUCCESS;
    if (!ptr) return fail(ACL_ERROR_INVALID_PARAM, api, loc, "a null pointer");
    if (count > max_count)
        return fail(ACL_ERROR_INVALID_PARAM, api, loc, strf("count %zu exceeds maxCount %zu", count, max_count));
    std::string why;
    GmBuf* b = nullptr;
    if (gm_find(ptr) && !(b = device_range(ptr, count, why)))
        return fail(ACL_ERROR_RT_PARAM_INVALID, api, loc, why);
    std::memset(ptr, value, count);  // a host address is set as host memory, as CANN decides by the address
    if (b) mark_written(b, ptr, count);
    return ACL_SUCCESS;
}

// 507015 when a launch on `stream` reported an error (kept: the stream stays failed, as after a device trap).
inline aclError stream_status(const char* api, const void* stream, const SL& loc) {
    auto it = st().fault.find(stream);
    if (it == st().fault.end()) return ACL_SUCCESS;
    return fail(ACL_ERROR_RT_AICORE_EXCEPTION, api, loc, it->second);
}

inline aclError check_device(const char* api, int32_t id, const SL& loc) {
    if (id == 0) return ACL_SUCCESS;
    return fail(ACL_ERROR_RT_INVALID_DEVICEID, api, loc, strf("device %d: the emulator has one device, 0", id));
}

inline void* new_handle() { return new char; }  // a unique address; freed with delete

// An aclrtDestroy* call: a handle `live` does not hold fails with 107000; otherwise it is dropped, `also` forgets what
// else was keyed by it, and its address is freed.
template <class Live, class Also>
inline aclError destroy_handle(Live& live, void* h, const char* api, const SL& loc, const char* unknown, Also also) {
    if (!live.erase(h)) return fail(ACL_ERROR_RT_PARAM_INVALID, api, loc, unknown);
    also();
    delete (char*)h;
    return ACL_SUCCESS;
}

}  // namespace ascemu::acl

// ------------------------------------------------------------------------------------------------ the calls
// Each takes CANN's parameters plus a defaulted call site (the file:line its records name).
#define ASCEMU_ACL_SITE const std::source_location ascemu_loc = std::source_location::current()

inline aclError aclInit(const char* configPath, ASCEMU_ACL_SITE) {
    (void)configPath;
    auto& S = ascemu::acl::st();
    if (S.initialised)
        return ascemu::acl::fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit", ascemu_loc, "aclInit was already called",
                                 ascemu::Sev::Warning);
    S.initialised = true;
    return ACL_SUCCESS;
}
inline aclError aclFinalize(ASCEMU_ACL_SITE) {
    auto& S = ascemu::acl::st();
    if (S.finalised)
        return ascemu::acl::fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize", ascemu_loc, "aclFinalize was already called",
                                 ascemu::Sev::Warning);
    S.finalised = true;
    return ACL_SUCCESS;
}
// The text of the most recent failed call ("" when none has failed).
inline const char* aclGetRecentErrMsg() { return ascemu::acl::st().last_msg.c_str(); }
inline aclError aclrtGetLastError(aclrtLastErrLevel level) {
    (void)level;
    auto& S = ascemu::acl::st();
    aclError e = S.last;
    S.last = ACL_SUCCESS;
    return e;
}
inline aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
    (void)level;
    return ascemu::acl::st().last;
}
inline const char* aclrtGetSocName() { return ascemu::acl::st().soc.c_str(); }

inline aclError aclrtSetDevice(int32_t deviceId, ASCEMU_ACL_SITE) {
    if (aclError e = ascemu::acl::check_device("aclrtSetDevice", deviceId, ascemu_loc)) return e;
    auto& S = ascemu::acl::st();
    S.device = deviceId;
    if (!S.context) S.context = &ascemu::acl::g_default_context;
    return ACL_SUCCESS;
}
inline aclError aclrtResetDevice(int32_t deviceId, ASCEMU_ACL_SITE) {
    if (aclError e = ascemu::acl::check_device("aclrtResetDevice", deviceId, ascemu_loc)) return e;
    auto& S = ascemu::acl::st();
    S.device = -1;
    S.context = nullptr;
    return ACL_SUCCESS;
}
inline aclError aclrtResetDeviceForce(int32_t deviceId, ASCEMU_ACL_SITE) { return aclrtResetDevice(deviceId, ascemu_loc); }
inline aclError aclrtGetDevice(int32_t* deviceId, ASCEMU_ACL_SITE) {
    auto& S = ascemu::acl::st();
    if (!deviceId) return ascemu::acl::fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice", ascemu_loc, "a null pointer");
    if (S.device < 0)
        return ascemu::acl::fail(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetDevice", ascemu_loc, "no device is set");
    *deviceId = S.device;
    return ACL_SUCCESS;
}
inline aclError aclrtGetDeviceCount(uint32_t* count, ASCEMU_ACL_SITE) {
    if (!count) return ascemu::acl::fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount", ascemu_loc, "a null pointer");
    *count = 1;
    return ACL_SUCCESS;
}
inline aclError aclrtGetRunMode(aclrtRunMode* runMode, ASCEMU_ACL_SITE) {
    if (!runMode) return ascemu::acl::fail(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode", ascemu_loc, "a null pointer");
    *runMode = ACL_HOST;  // the program runs on a host with the device attached
    return ACL_SUCCESS;
}

inline aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId, ASCEMU_ACL_SITE) {
    if (!context) return ascemu::acl::fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext", ascemu_loc, "a null pointer");
    if (aclError e = ascemu::acl::check_device("aclrtCreateContext", deviceId, ascemu_loc)) return e;
    auto& S = ascemu::acl::st();
    void* h = ascemu::acl::new_handle();
    S.contexts.insert(h);
    S.device = deviceId;
    S.context = h;  // CANN makes a new context current
    *context = h;
    return ACL_SUCCESS;
}
inline aclError aclrtDestroyContext(aclrtContext context, ASCEMU_ACL_SITE) {
    auto& S = ascemu::acl::st();
    return ascemu::acl::destroy_handle(S.contexts, context, "aclrtDestroyContext", ascemu_loc,
                                       "not a context aclrtCreateContext returned (or destroyed already)", [&] {
                                           if (S.context == context) S.context = nullptr;
                                       });
}
inline aclError aclrtSetCurrentContext(aclrtContext context, ASCEMU_ACL_SITE) {
    auto& S = ascemu::acl::st();
    if (context != &ascemu::acl::g_default_context && !S.contexts.count(context))
        return ascemu::acl::fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSetCurrentContext", ascemu_loc, "unknown context");
    S.context = context;
    return ACL_SUCCESS;
}
inline aclError aclrtGetCurrentContext(aclrtContext* context, ASCEMU_ACL_SITE) {
    auto& S = ascemu::acl::st();
    if (!context)
        return ascemu::acl::fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext", ascemu_loc, "a null pointer");
    if (!S.context)
        return ascemu::acl::fail(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetCurrentContext", ascemu_loc, "no current context");
    *context = (aclrtContext)S.context;
    return ACL_SUCCESS;
}

inline aclError aclrtCreateStream(aclrtStream* stream, ASCEMU_ACL_SITE) {
    if (!stream) return ascemu::acl::fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream", ascemu_loc, "a null pointer");
    void* h = ascemu::acl::new_handle();
    ascemu::acl::st().streams.insert(h);
    *stream = h;
    return ACL_SUCCESS;
}
inline aclError aclrtDestroyStream(aclrtStream stream, ASCEMU_ACL_SITE) {
    auto& S = ascemu::acl::st();
    return ascemu::acl::destroy_handle(S.streams, stream, "aclrtDestroyStream", ascemu_loc,
                                       "not a stream aclrtCreateStream returned (or destroyed already)", [&] {
                                           S.fault.erase(stream);
                                           S.clock_s.erase(stream);
                                       });
}
inline aclError aclrtSynchronizeStream(aclrtStream stream, ASCEMU_ACL_SITE) {
    if (!ascemu::acl::known_stream(stream))
        return ascemu::acl::fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeStream", ascemu_loc, "unknown stream");
    return ascemu::acl::stream_status("aclrtSynchronizeStream", stream, ascemu_loc);
}
inline aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout, ASCEMU_ACL_SITE) {
    (void)timeout;  // launches have already finished when the call is reached
    if (!ascemu::acl::known_stream(stream))
        return ascemu::acl::fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeStreamWithTimeout", ascemu_loc,
                                 "unknown stream");
    return ascemu::acl::stream_status("aclrtSynchronizeStreamWithTimeout", stream, ascemu_loc);
}
inline aclError aclrtSynchronizeDevice(ASCEMU_ACL_SITE) {
    auto& S = ascemu::acl::st();
    if (S.fault.empty()) return ACL_SUCCESS;
    return ascemu::acl::stream_status("aclrtSynchronizeDevice", S.fault.begin()->first, ascemu_loc);
}

inline aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy, ASCEMU_ACL_SITE) {
    (void)policy;
    ascemu::acl::st();  // the run's settings before the first allocation
    if (!devPtr) return ascemu::acl::fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc", ascemu_loc, "a null pointer");
    if (size == 0) return ascemu::acl::fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc", ascemu_loc, "size 0");
    std::string name = "aclrtMalloc@" + ascemu::acl::site(ascemu_loc);
    *devPtr = ascemu::gm_alloc(size, name, ascemu::Role::Other, -1)->base;
    return ACL_SUCCESS;
}
inline aclError aclrtFree(void* devPtr, ASCEMU_ACL_SITE) {
    ascemu::GmBuf* b = ascemu::gm_find(devPtr);
    if (!b || b->base != devPtr)
        return ascemu::acl::fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtFree", ascemu_loc,
                                 ascemu::strf("%p is not an address aclrtMalloc returned (or it was freed already)",
                                              devPtr));
    ascemu::gm_free(devPtr);
    return ACL_SUCCESS;
}
inline aclError aclrtMallocHost(void** hostPtr, size_t size, ASCEMU_ACL_SITE) {
    if (!hostPtr) return ascemu::acl::fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost", ascemu_loc, "a null pointer");
    if (size == 0) return ascemu::acl::fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost", ascemu_loc, "size 0");
    void* p = std::aligned_alloc(64, (size + 63) / 64 * 64);
    if (!p)
        return ascemu::acl::fail(ACL_ERROR_BAD_ALLOC, "aclrtMallocHost", ascemu_loc,
                                 ascemu::strf("cannot allocate %zu bytes", size));
    std::memset(p, 0xA5, size);  // not zeroed, as pinned host memory is not: stale bytes, never a convenient zero
    ascemu::acl::st().host.insert(p);
    *hostPtr = p;
    return ACL_SUCCESS;
}
inline aclError aclrtFreeHost(void* hostPtr, ASCEMU_ACL_SITE) {
    if (!ascemu::acl::st().host.erase(hostPtr))
        return ascemu::acl::fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtFreeHost", ascemu_loc,
                                 ascemu::strf("%p is not an address aclrtMallocHost returned (or it was freed already)",
                                              hostPtr));
    std::free(hostPtr);
    return ACL_SUCCESS;
}

inline aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                            ASCEMU_ACL_SITE) {
    return ascemu::acl::copy("aclrtMemcpy", dst, destMax, src, count, kind, nullptr, false, ascemu_loc);
}
inline aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                                 aclrtStream stream, ASCEMU_ACL_SITE) {
    return ascemu::acl::copy("aclrtMemcpyAsync", dst, destMax, src, count, kind, stream, true, ascemu_loc);
}
inline aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count, ASCEMU_ACL_SITE) {
    return ascemu::acl::set("aclrtMemset", devPtr, maxCount, value, count, nullptr, false, ascemu_loc);
}
inline aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream,
                                 ASCEMU_ACL_SITE) {
    return ascemu::acl::set("aclrtMemsetAsync", devPtr, maxCount, value, count, stream, true, ascemu_loc);
}

inline aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag, ASCEMU_ACL_SITE) {
    if (!event)
        return ascemu::acl::fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEventWithFlag", ascemu_loc, "a null pointer");
    void* h = ascemu::acl::new_handle();
    ascemu::acl::st().events[h].timeline = (flag & ACL_EVENT_TIME_LINE) != 0;
    *event = h;
    return ACL_SUCCESS;
}
inline aclError aclrtCreateEvent(aclrtEvent* event, ASCEMU_ACL_SITE) {
    return aclrtCreateEventWithFlag(event, ACL_EVENT_TIME_LINE, ascemu_loc);
}
inline aclError aclrtDestroyEvent(aclrtEvent event, ASCEMU_ACL_SITE) {
    return ascemu::acl::destroy_handle(ascemu::acl::st().events, event, "aclrtDestroyEvent", ascemu_loc,
                                       "unknown event", [] {});
}
inline aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream, ASCEMU_ACL_SITE) {
    auto& S = ascemu::acl::st();
    auto it = S.events.find(event);
    if (it == S.events.end())
        return ascemu::acl::fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtRecordEvent", ascemu_loc, "unknown event");
    if (!ascemu::acl::known_stream(stream))
        return ascemu::acl::fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtRecordEvent", ascemu_loc, "unknown stream");
    it->second.recorded = true;
    it->second.stamp_s = S.clock_s[stream];
    return ACL_SUCCESS;
}
inline aclError aclrtSynchronizeEvent(aclrtEvent event, ASCEMU_ACL_SITE) {
    if (!ascemu::acl::st().events.count(event))
        return ascemu::acl::fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeEvent", ascemu_loc, "unknown event");
    return ACL_SUCCESS;
}
inline aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event, ASCEMU_ACL_SITE) {
    if (!ascemu::acl::known_stream(stream) || !ascemu::acl::st().events.count(event))
        return ascemu::acl::fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtStreamWaitEvent", ascemu_loc,
                                 "unknown stream or event");
    return ACL_SUCCESS;
}
// Milliseconds between two recorded events: the emulator's wall time for the launches between them.
inline aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent, ASCEMU_ACL_SITE) {
    auto& S = ascemu::acl::st();
    auto a = S.events.find(startEvent), b = S.events.find(endEvent);
    if (!ms || a == S.events.end() || b == S.events.end())
        return ascemu::acl::fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtEventElapsedTime", ascemu_loc,
                                 "a null pointer or an unknown event");
    if (!a->second.timeline || !b->second.timeline || !a->second.recorded || !b->second.recorded)
        return ascemu::acl::fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "aclrtEventElapsedTime", ascemu_loc,
                                 "both events must be created with ACL_EVENT_TIME_LINE and recorded");
    *ms = (float)((b->second.stamp_s - a->second.stamp_s) * 1e3);
    return ACL_SUCCESS;
}

#undef ASCEMU_ACL_SITE
