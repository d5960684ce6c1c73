"""The built-in (TBE) operator through CANN's two-phase aclnn API, called with ctypes: no compilation needed.

    call = spec.builtin(case)                        # what to call, in the op's own folder (ops/<op>/builtin.py)
    lib = load(library=call.library)                 # libnnopbase.so + the op's libopapi_<repo>.so, or libopapi.so
    with Builtin(lib, call, {"x": DeviceTensor(x_dev, "float32", (1024,)), "y": ...}) as op:
        workspace = device.malloc(op.workspace_bytes)
        for _ in range(warmup + repeats):
            op.launch(workspace, stream)             # one prepared executor serves every launch

Phase 1, `aclnn<Op>GetWorkspaceSize(<tensors and attributes>, &workspaceSize, &executor)`, checks the arguments
and plans the work; `aclSetAclOpExecutorRepeatable` then lets phase 2, `aclnn<Op>(workspace, workspaceSize,
executor, stream)`, run any number of times until `aclDestroyAclOpExecutor`. aclTensors are created contiguous:
strides in elements, offset 0, ND format, storage dims equal to the view dims.

Sources (public headers and docs, listed with links in docs/npu.md#sources; the C declarations are repeated in
tests/test_aclnn.py, which checks PROTOTYPES against them name by name):
- aclCreateTensor, aclDestroyTensor, aclSetAclOpExecutorRepeatable, aclDestroyAclOpExecutor: hicann/opbase,
  `include/nnopbase/aclnn/acl_meta.h` (aclnnStatus is int32_t there);
- aclGetRecentErrMsg: hicann/runtime, `include/external/acl/acl_rt.h` (`const char* aclGetRecentErrMsg();`; acl.h
  includes acl_rt.h), exported by libascendcl.so;
- aclnnCast: hicann/ops-math, `math/cast/op_api/aclnn_cast.h`;
- aclnnSoftmaxCrossEntropyWithLogits: hicann/ops-nn,
  `activation/softmax_cross_entropy_with_logits/op_api/aclnn_softmax_cross_entropy_with_logits.cpp`;
- aclnnEmbeddingDenseBackward: hicann/ops-nn, `index/embedding_dense_grad/docs/aclnnEmbeddingDenseBackward.md`
  and `index/embedding_dense_grad_v2/op_host/op_api/aclnn_embedding_dense_backward.cpp`;
- the two layouts of the operator libraries: one library per ops repository, `libopapi_<repo>.so` in
  `<home>/lib64` (hicann/ops-math and ops-nn `cmake/variables.cmake`, OPAPI_NAME opapi_${PKG_NAME}; their API
  lists, `op_api_list.md` in their Chinese docs: the old all-in-one libopapi.so "will be retired, is not
  recommended, and is not supported together with the single repositories' libraries"), or libopapi.so with the
  libaclnn_* libraries of CANN 8.x (Ascend/op-plugin's lookup lists, `op_api_common.cpp`);
- dtype and format enums: hicann/runtime, `include/external/acl/acl_base_rt.h` (aclDataType, aclFormat);
- status codes: the CANN "aclnn return codes" page (161001, 161002, 361001, 561xxx).

Never run against a real CANN here (no device, no CANN on the development machine): tests/test_aclnn.py drives
`Builtin` through ctypes stand-ins built from PROTOTYPES, so the marshalling is real but the library is not.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from ...core.builtin_call import KINDS, BuiltinArg, BuiltinCall
from ...core.errors import WorkbenchError

# -- enums (acl_base_rt.h) -------------------------------------------------------------------------------------------
ACL_DTYPE: Mapping[str, int] = {
    "float32": 0,  # ACL_FLOAT
    "float16": 1,  # ACL_FLOAT16
    "int8": 2,  # ACL_INT8
    "int32": 3,  # ACL_INT32
    "uint8": 4,  # ACL_UINT8
    "int16": 6,  # ACL_INT16
    "uint16": 7,  # ACL_UINT16
    "uint32": 8,  # ACL_UINT32
    "int64": 9,  # ACL_INT64
    "uint64": 10,  # ACL_UINT64
    "float64": 11,  # ACL_DOUBLE
    "bool": 12,  # ACL_BOOL
    "bfloat16": 27,  # ACL_BF16
}
ACL_FORMAT: Mapping[str, int] = {"NCHW": 0, "NHWC": 1, "ND": 2}  # ACL_FORMAT_NCHW / _NHWC / _ND

# -- status codes (CANN "aclnn return codes") --------------------------------------------------------------------------
ACLNN_SUCCESS = 0
STATUS: Mapping[int, str] = {
    161001: "ACLNN_ERR_PARAM_NULLPTR: a required argument is a null pointer",
    161002: "ACLNN_ERR_PARAM_INVALID: an argument is outside what the API accepts (dtype, format, shape, attribute)",
    361001: "ACLNN_ERR_RUNTIME_ERROR: a runtime call inside the API failed",
    561000: "ACLNN_ERR_INNER: internal error",
    561001: "ACLNN_ERR_INNER_INFERSHAPE_ERROR: output shape inference failed",
    561002: "ACLNN_ERR_INNER_TILING_ERROR: the kernel's tiling failed",
    561003: "ACLNN_ERR_INNER_FIND_KERNEL_ERROR: no kernel binary found (is the ops package for this SoC installed?)",
    561101: "ACLNN_ERR_INNER_CREATE_EXECUTOR: creating the executor failed",
    561103: "ACLNN_ERR_INNER_NULLPTR: an internal null pointer (for example a null executor)",
}

# -- libraries ---------------------------------------------------------------------------------------------------------
NNOPBASE = "libnnopbase.so"  # aclTensor & executor (hicann/opbase), in both layouts
# One library per ops repository (CANN 8.5 and later): the op's BuiltinCall names its own. libopapi_nn.so is built
# against libopapi_math.so (ops-nn cmake/symbol.cmake), so that one is loaded first.
OPS_LIBRARIES = ("libopapi_math.so", "libopapi_nn.so", "libopapi_cv.so", "libopapi_transformer.so")
NEEDS = {"libopapi_nn.so": ("libopapi_math.so",)}
LEGACY = "libopapi.so"  # every built-in op in one library: retired from CANN 9.0.0, never mixed with the above
LEGACY_COMPANIONS = ("libaclnn_ops_infer.so", "libaclnn_ops_train.so", "libaclnn_math.so")  # CANN 8.x, with LEGACY
ERRMSG_LIBS = ("libascendcl.so",)  # aclGetRecentErrMsg

# -- prototypes --------------------------------------------------------------------------------------------------------
_i64p = ctypes.POINTER(ctypes.c_int64)
_u64p = ctypes.POINTER(ctypes.c_uint64)
_ptrp = ctypes.POINTER(ctypes.c_void_p)  # aclOpExecutor **
_status = ctypes.c_int32  # aclnnStatus
_vp = ctypes.c_void_p  # any opaque pointer: aclTensor *, aclOpExecutor *, void *, aclrtStream
_run = (_status, [_vp, ctypes.c_uint64, _vp, _vp])  # aclnnXxx(workspace, workspaceSize, executor, stream)

Prototype = tuple[Any, list[Any]]
PROTOTYPES: dict[str, Prototype] = {
    "aclCreateTensor": (_vp, [_i64p, ctypes.c_uint64, ctypes.c_int, _i64p, ctypes.c_int64, ctypes.c_int, _i64p,
                              ctypes.c_uint64, _vp]),
    "aclDestroyTensor": (_status, [_vp]),
    "aclSetAclOpExecutorRepeatable": (_status, [_vp]),
    "aclDestroyAclOpExecutor": (_status, [_vp]),
    # const char * read with ctypes.string_at: a NULL stays None and nothing is converted behind our back
    "aclGetRecentErrMsg": (_vp, []),
    "aclnnCastGetWorkspaceSize": (_status, [_vp, ctypes.c_int, _vp, _u64p, _ptrp]),
    "aclnnCast": _run,
    "aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize": (_status, [_vp, _vp, _vp, _vp, _u64p, _ptrp]),
    "aclnnSoftmaxCrossEntropyWithLogits": _run,
    "aclnnEmbeddingDenseBackwardGetWorkspaceSize": (_status, [_vp, _vp, ctypes.c_uint64, ctypes.c_uint64,
                                                              ctypes.c_bool, _vp, _u64p, _ptrp]),
    "aclnnEmbeddingDenseBackward": _run,
}  # fmt: skip
CORE_SYMBOLS = ("aclCreateTensor", "aclDestroyTensor", "aclSetAclOpExecutorRepeatable", "aclDestroyAclOpExecutor")
_U64 = (1 << 64) - 1


class AclnnError(WorkbenchError):
    """An aclnn call returned a non-zero status; the message names the call, the status and what it means."""

    def __init__(self, function: str, status: int, detail: str = "") -> None:
        meaning = STATUS.get(status, "see CANN's aclnn return codes")
        text = f"0 (ACLNN_SUCCESS); {status} is {meaning}" + (f"; CANN says: {detail}" if detail else "")
        super().__init__(function, status, text, code=status)
        self.function, self.status, self.detail = function, status, detail


class DeviceTensor(NamedTuple):
    """A contiguous device buffer as the built-in sees it: its address, our dtype name and its shape."""

    ptr: int
    dtype: str
    shape: tuple[int, ...]


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides in elements (aclCreateTensor's unit), not bytes."""
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= max(int(dim), 1)
    return tuple(reversed(strides))


# -- the library -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AclnnLibrary:
    """The aclnn functions, PROTOTYPES applied; `functions` may be real (load) or stand-ins (tests)."""

    functions: Mapping[str, Callable[..., Any]]
    sources: tuple[str, ...] = ()  # the libraries they came from, for messages
    layout: str = ""  # "per-repository" or "libopapi.so": which of CANN's two layouts the operators came from

    def describe(self) -> str:
        """Which libraries, in which layout: what a comparison with the built-in op says it ran."""
        ops = [s for s in self.sources if s not in (NNOPBASE, *ERRMSG_LIBS)]
        return f"{', '.join(ops) or 'stand-ins'}" + (f" ({self.layout} layout)" if self.layout else "")

    def function(self, name: str) -> Callable[..., Any]:
        try:
            return self.functions[name]
        except KeyError:
            where = ", ".join(self.sources) or "the loaded libraries"
            raise WorkbenchError(
                "aclnn symbol", name, f"a CANN whose aclnn libraries export it (searched {where}); is CANN new enough?"
            ) from None

    def recent_error(self) -> str:
        """aclGetRecentErrMsg's text ('' when the symbol is missing or has nothing to say)."""
        fn = self.functions.get("aclGetRecentErrMsg")
        if fn is None:
            return ""
        ptr = fn()
        return ctypes.string_at(ptr).decode("utf-8", errors="replace").strip() if ptr else ""


def library_dirs(home: Path) -> list[Path]:
    """Where CANN keeps its libraries: <home>/lib64, then <home>/<arch>-linux/lib64."""
    from .build import arches

    return [home / "lib64", *(home / f"{arch}-linux" / "lib64" for arch in arches())]


def _legacy_dirs(home: Path) -> list[Path]:
    """Where older CANN installs libopapi.so besides lib64 (ops-math scripts/package opp_common.sh)."""
    from .build import arches

    base = home / "opp" / "built-in" / "op_impl" / "ai_core" / "tbe" / "op_api" / "lib" / "linux"
    return [*library_dirs(home), *(base / arch for arch in arches())]


def _where(name: str, dirs: Iterable[Path]) -> Path | None:
    return next((folder / name for folder in dirs if (folder / name).is_file()), None)


def _open(path: Path) -> ctypes.CDLL:
    # RTLD_GLOBAL: the operator libraries resolve nnopbase's symbols through the global namespace, as CANN's samples
    # link; a failure to load names the library
    try:
        return ctypes.CDLL(str(path), mode=os.RTLD_NOW | ctypes.RTLD_GLOBAL)
    except OSError as exc:
        what = f"a loadable CANN library ({exc}); was set_env.sh sourced?"
        raise WorkbenchError(path.name, str(path), what) from None


def bind(handle: Any, name: str) -> Callable[..., Any] | None:
    """`handle.<name>` with PROTOTYPES applied, or None when the library does not export it."""
    try:
        fn = getattr(handle, name)
    except AttributeError:
        return None
    fn.restype, fn.argtypes = PROTOTYPES[name][0], list(PROTOTYPES[name][1])
    return fn


_LAYOUT_LOADED: list[str] = []  # the layout this process loaded first: the other one is never loaded beside it


def operator_libraries(home: Path, library: str | None = None) -> tuple[str, list[Path]]:
    """(layout, paths) of the operator libraries to load: the per-repository `library` (or, when None, every
    per-repository library present) when it is installed, else libopapi.so and its CANN 8.x companions. Never
    both: the ops repositories' docs do not support mixing them. CannNotFound naming both when neither is there."""
    from .build import CannNotFound

    if library is not None and library not in OPS_LIBRARIES:
        raise WorkbenchError("aclnn library", library, ", ".join(OPS_LIBRARIES))
    dirs = library_dirs(home)
    if library is None:  # every per-repository library present
        per_repo = [p for name in OPS_LIBRARIES if (p := _where(name, dirs)) is not None]
    elif _where(library, dirs) is None:
        per_repo = []
    else:  # the op's own, after the ones it is built against
        per_repo = [p for name in (*NEEDS.get(library, ()), library) if (p := _where(name, dirs)) is not None]
    legacy = _where(LEGACY, _legacy_dirs(home))
    layout = "per-repository" if per_repo else LEGACY if legacy else ""
    if _LAYOUT_LOADED and layout and layout != _LAYOUT_LOADED[0]:
        raise WorkbenchError(
            "aclnn library layout", layout, f"the {_LAYOUT_LOADED[0]} layout this process already loaded: CANN does "
            "not support libopapi.so beside the per-repository libopapi_<repo>.so libraries; start a new process",
        )  # fmt: skip
    if layout == "per-repository":
        return layout, per_repo
    if legacy is not None:
        companions = [p for name in LEGACY_COMPANIONS if (p := _where(name, dirs)) is not None]
        return LEGACY, [legacy, *companions]
    raise CannNotFound(
        library or "aclnn operator library",
        " or ".join(str(d) for d in dirs),
        f"CANN's built-in operators: {library or 'libopapi_<repo>.so'} (CANN 8.5 and later) or {LEGACY} (older); "
        "install the toolkit and its ops packages",
    )


def load(home: str | Path | None = None, library: str | None = None) -> AclnnLibrary:
    """Load CANN's aclnn libraries (libnnopbase.so, the operator libraries of one layout: see operator_libraries)
    and bind every PROTOTYPES symbol. A missing nnopbase or core symbol raises; an op symbol no library exports
    raises when that op is called (older CANNs lack some ops)."""
    from .build import CannNotFound, cann_home

    root = Path(home) if home is not None else cann_home()
    dirs = library_dirs(root)
    base = _where(NNOPBASE, dirs)
    if base is None:
        raise CannNotFound(NNOPBASE, " or ".join(str(d) for d in dirs), "CANN's aclnn library: install the toolkit")
    layout, ops = operator_libraries(root, library)
    handles: list[tuple[str, Any]] = [(NNOPBASE, _open(base))]
    handles += [(path.name, _open(path)) for path in ops]
    if not _LAYOUT_LOADED:
        _LAYOUT_LOADED.append(layout)
    for name in ERRMSG_LIBS:
        path = _where(name, dirs)
        with contextlib.suppress(WorkbenchError):  # optional: only aclGetRecentErrMsg's text is lost
            handles += [(name, _open(path))] if path else []
    functions: dict[str, Callable[..., Any]] = {}
    for symbol in PROTOTYPES:
        fn = next((f for _, h in handles if (f := bind(h, symbol)) is not None), None)
        if fn is not None:
            functions[symbol] = fn
    sources = tuple(name for name, _ in handles)
    missing = [s for s in CORE_SYMBOLS if s not in functions]
    if missing:
        raise WorkbenchError("aclnn symbols", missing, f"exported by {', '.join(sources)} (a complete CANN)")
    return AclnnLibrary(functions, sources, layout)


# -- one prepared built-in call ----------------------------------------------------------------------------------------
class Builtin:
    """The built-in op prepared for one set of device tensors: aclTensors created, phase 1 run, the executor made
    repeatable. `launch` runs phase 2 (any number of times); `close` destroys the executor and the tensors.

    `tensors` maps our tensor names (the call's `tensor_names`) to DeviceTensor (or plain (ptr, dtype, shape)).
    Every non-zero status raises AclnnError naming the function, with aclGetRecentErrMsg's text when available.
    """

    def __init__(self, lib: AclnnLibrary, call: BuiltinCall, tensors: Mapping[str, Any]) -> None:
        if call.unsupported:
            raise WorkbenchError("built-in", call.function, f"a case the built-in can express: {call.unsupported}")
        self.lib, self.call = lib, call
        self.workspace_bytes = 0
        self._tensors: list[int] = []  # aclTensor handles, in creation order
        self._keep: list[Any] = []  # ctypes arrays the handles may point into
        self._executor = ctypes.c_void_p(None)
        self._closed = False
        try:
            self._prepare({name: DeviceTensor(*t) for name, t in tensors.items()})
        except BaseException:
            self._release()
            raise

    def _prepare(self, tensors: Mapping[str, DeviceTensor]) -> None:
        missing = [n for n in self.call.tensor_names if n not in tensors]
        if missing:
            raise WorkbenchError("built-in tensors", sorted(tensors), f"every tensor of the call ({missing} missing)")
        args = [self._argument(a, tensors) for a in self.call.args]
        workspace = ctypes.c_uint64(0)
        self._check(
            self.call.phase1,
            self.lib.function(self.call.phase1)(*args, ctypes.byref(workspace), ctypes.byref(self._executor)),
        )
        if not self._executor.value:
            raise WorkbenchError(self.call.phase1, "success with a NULL executor", "an executor to launch")
        self._check("aclSetAclOpExecutorRepeatable", self.lib.function("aclSetAclOpExecutorRepeatable")(self._executor))
        self.workspace_bytes = int(workspace.value)

    def _argument(self, arg: BuiltinArg, tensors: Mapping[str, DeviceTensor]) -> Any:
        if arg.kind == "tensor":
            return self._create_tensor(arg.value, tensors[arg.value])
        if arg.kind == "dtype":
            return ctypes.c_int(acl_dtype(arg.value))
        if arg.kind == "int64":
            return ctypes.c_int64(arg.value)
        if arg.kind == "uint64":
            return ctypes.c_uint64(arg.value & _U64)
        if arg.kind == "bool":
            return ctypes.c_bool(arg.value)
        if arg.kind == "double":
            return ctypes.c_double(arg.value)
        raise WorkbenchError(f"{self.call.function} argument {arg.param}", arg.kind, ", ".join(KINDS))

    def _create_tensor(self, name: str, t: DeviceTensor) -> ctypes.c_void_p:
        shape = tuple(int(d) for d in t.shape)
        dims = (ctypes.c_int64 * len(shape))(*shape)
        strides = (ctypes.c_int64 * len(shape))(*contiguous_strides(shape))
        self._keep += [dims, strides]
        handle = self.lib.function("aclCreateTensor")(
            dims, len(shape), acl_dtype(t.dtype), strides, 0, ACL_FORMAT["ND"], dims, len(shape), ctypes.c_void_p(t.ptr)
        )
        if not handle:
            detail = self.lib.recent_error()
            raise WorkbenchError(
                "aclCreateTensor", f"NULL for {name}", "a tensor handle" + (f"; CANN says: {detail}" if detail else "")
            )
        self._tensors.append(int(handle))
        return ctypes.c_void_p(handle)

    def _check(self, function: str, status: int) -> None:
        if status != ACLNN_SUCCESS:
            raise AclnnError(function, int(status), self.lib.recent_error())

    def launch(self, workspace_ptr: int, stream: int) -> None:
        """Phase 2 on `stream` with `workspace_ptr` (at least workspace_bytes; 0 when that is 0). Asynchronous."""
        if self._closed:
            raise WorkbenchError("built-in", self.call.function, "a launch before close()")
        fn = self.lib.function(self.call.function)
        self._check(
            self.call.function,
            fn(ctypes.c_void_p(workspace_ptr or None), ctypes.c_uint64(self.workspace_bytes), self._executor,
               ctypes.c_void_p(stream or None)),
        )  # fmt: skip

    def close(self) -> None:
        """Destroy the executor, then the tensors; a failure is raised after everything was attempted."""
        if self._closed:
            return
        failures = self._release()
        if failures:
            raise failures[0]

    def _release(self) -> list[AclnnError]:
        self._closed = True
        failures: list[AclnnError] = []
        if self._executor.value:
            status = self.lib.function("aclDestroyAclOpExecutor")(self._executor)
            if status != ACLNN_SUCCESS:
                failures.append(AclnnError("aclDestroyAclOpExecutor", int(status), self.lib.recent_error()))
            self._executor = ctypes.c_void_p(None)
        for handle in self._tensors:
            status = self.lib.function("aclDestroyTensor")(ctypes.c_void_p(handle))
            if status != ACLNN_SUCCESS:
                failures.append(AclnnError("aclDestroyTensor", int(status), self.lib.recent_error()))
        self._tensors, self._keep = [], []
        return failures

    def __enter__(self) -> Builtin:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.close()
        else:  # the error that brought us here is the one to see
            self._release()


def acl_dtype(name: str) -> int:
    try:
        return ACL_DTYPE[name]
    except KeyError:
        raise WorkbenchError("dtype", name, ", ".join(ACL_DTYPE)) from None
