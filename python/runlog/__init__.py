"""runlog: append phase and event entries to a JSON Lines run log, from Python.

A thin ctypes binding over librunlog (the C library of hwrun): every entry is one whole line,
written with one write(2) on a file opened with O_APPEND, so threads and processes (also children
after os.fork()) can append to the same file without tearing lines, and `tail -f`/`jq` see whole
lines only. The lines have pytyche's RunLog shapes, so code written for pytyche's RunLog changes
one import:

    from runlog import RunLog
    log = RunLog()                               # $RUNLOG_FILE (set by `hwmon -- cmd`), else
                                                 # kept in memory for log.write(path)
    log.log_phase("load", 1.25, rows=10000)
    with log.phase("train", steps=1000):         # timed on a monotonic clock
        train()
    log.log_event("checkpoint", {"step": 1000, "path": "/ckpt/1000"})

Values: str, int, float, bool, None, and dict/list/tuple (nested JSON); anything else is str()-ed,
as pytyche's json.dumps(default=str) does. log_phase() and log_event() take every value pytyche's
take and write what pytyche writes for it, as valid JSON: a negative duration (-0.0 for a clock
step of -1e-9 s), extras named "type" or "ts" (which replace the entry's, as pytyche's update()
does), event data that is a list or a string. Where pytyche's json would write something that is
not JSON or that readers would take for another number, the line says so instead, with a
warning once: NaN and infinities are null, an integer beyond 64 bits (json-c, which summarize
reads with, would change it) is a string of its digits.
A line that cannot be written (disk full, quota, I/O error) never raises into the job: logging
must not end a training run. The first such failure of a RunLog prints one warning on stderr,
and log.lost counts the entries lost (log.last_error is the last OSError); RunLog(strict=True)
raises OSError (with its errno) instead. Opening the log raises OSError as ever.
Numbers are written with a dot whatever locale the job set (locale.setlocale(LC_ALL, "") under
de_DE).

The library is found through $RUNLOG_LIBRARY (a path), else where the package was installed or
built from (see _paths.py), else the system's library search path (librunlog.so.1).
"""

import ctypes
import errno as _errno
import functools
import json
import math
import os
import sys
import threading
import weakref

__all__ = ["RunLog", "library_path", "library_version", "FSYNC_LINE", "FSYNC_CLOSE",
           "framework_memory", "probe_jax_peak_memory_mb", "FRAMEWORK_MEMORY",
           # monitors and summaries (monitor.py): hwmon and summarize, run from Python
           "HWMonitor", "Monitor", "ResourceSummary", "build_resource_summary", "RunSummary",
           "summarize", "SummarizeError",
           # resource-tracker's API (resource_tracker.py): its rows from hwmon's
           "PidTracker", "SystemTracker", "get_pid_stats"]

# rl_open() flags and rl_type values: include/runlog.h.
FSYNC_LINE = 1 << 0
FSYNC_CLOSE = 1 << 1
_T_STRING, _T_INT, _T_DOUBLE, _T_BOOL, _T_NULL, _T_JSON = range(6)
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_UINT64_MAX = (1 << 64) - 1  # json-c reads integers up to this exactly (runlog.h RL_T_JSON)
_MAX_SECONDS = 1e12          # runlog.h RL_MAX_SECONDS: the longest phase librunlog formats
# A phase's own keys: an extra of that name replaces the entry's (pytyche's entry.update(extra))
_PHASE_KEYS = frozenset(("ts", "type", "name", "seconds"))
# A timed phase's (phase(), timed()): librunlog's begin and end entries keep these (span_reserved
# in runlog.c), so that readers pair and count the phase; an extra of that name is kept under
# _MOVED_EXTRA instead of refused
_SPAN_KEYS = _PHASE_KEYS | {"phase_id"}
_MOVED_EXTRA = "reserved_extra"
# The key of a phase entry, and the event, that carry the framework's allocator figures, and
# their members: include/hwrun/rundir.h (HW_FWMEM_*), which summarize reads.
FRAMEWORK_MEMORY = "framework_memory"
# A failed block's exception: its type name (pytyche's key) and its message, cut to this many
# characters (rundir.h HW_PHASE_EXCEPTION_MESSAGE, _MAX).
EXCEPTION_MESSAGE, EXCEPTION_MESSAGE_MAX = "exception_message", 200
_MIB = 1024.0 * 1024.0


class _List(ctypes.Structure):
    # rl_field_t's array members (RL_T_STRV, RL_T_OBJ, RL_T_ARR): unused here, but they set the
    # union's size, hence the stride of a field array.
    _fields_ = [("v", ctypes.c_void_p), ("n", ctypes.c_size_t)]


class _Value(ctypes.Union):
    _fields_ = [("s", ctypes.c_char_p), ("i", ctypes.c_int64), ("d", ctypes.c_double),
                ("b", ctypes.c_bool), ("l", _List)]


class _Field(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("type", ctypes.c_int), ("v", _Value)]


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class _Span(ctypes.Structure):
    # rl_span_t: a phase logged when it begins and when it ends, paired by its id.
    _fields_ = [("name", ctypes.c_char_p), ("start", _Timespec), ("id", ctypes.c_char * 40)]


def _candidates():
    env = os.environ.get("RUNLOG_LIBRARY")
    if env:
        return [env], True
    found = []
    try:
        from . import _paths  # written by CMake into the build tree and the installed package
        lib = _paths.LIBRARY
        if not os.path.isabs(lib):
            lib = os.path.normpath(os.path.join(os.path.dirname(__file__), lib))
        found.append(lib)
    except ImportError:
        pass
    # by soname only: another ABI's librunlog (a different rl_field_t) must not be loaded
    found.append("librunlog.so.1")
    return found, False


def _load():
    tried = []
    paths, from_env = _candidates()
    for path in paths:
        try:
            return ctypes.CDLL(path, use_errno=True), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    hint = ("RUNLOG_LIBRARY=%s cannot be loaded" % paths[0] if from_env else
            "install hwrun (cmake --install), or set RUNLOG_LIBRARY to the path of "
            "librunlog.so.1, or PYTHONPATH to a build tree's python/ folder")
    raise ImportError("runlog: cannot load librunlog: %s; tried: %s" % (hint, "; ".join(tried)))


_lib, _lib_path = _load()
_lib.rl_open.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_uint]
_lib.rl_open.restype = ctypes.c_int
_lib.rl_fdopen.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_uint]
_lib.rl_fdopen.restype = ctypes.c_int
_lib.rl_close.argtypes = [ctypes.c_void_p]
_lib.rl_close.restype = ctypes.c_int
_lib.rl_phase.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_double,
                          ctypes.POINTER(_Field), ctypes.c_size_t]
_lib.rl_phase.restype = ctypes.c_int
_lib.rl_event.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(_Field),
                          ctypes.c_size_t]
_lib.rl_event.restype = ctypes.c_int
_lib.rl_format_phase.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                 ctypes.c_double, ctypes.POINTER(_Field), ctypes.c_size_t]
_lib.rl_format_phase.restype = ctypes.c_long
_lib.rl_phase_begin.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Span), ctypes.c_char_p,
                                ctypes.POINTER(_Field), ctypes.c_size_t]
_lib.rl_phase_begin.restype = ctypes.c_int
_lib.rl_phase_end.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Span), ctypes.POINTER(_Field),
                              ctypes.c_size_t, ctypes.POINTER(ctypes.c_double)]
_lib.rl_phase_end.restype = ctypes.c_int
_lib.rl_format_event.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                 ctypes.POINTER(_Field), ctypes.c_size_t]
_lib.rl_format_event.restype = ctypes.c_long
_lib.rl_format_phase_begin.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_Span),
                                       ctypes.POINTER(_Field), ctypes.c_size_t]
_lib.rl_format_phase_begin.restype = ctypes.c_long
_lib.rl_format_phase_end.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_Span),
                                     ctypes.c_double, ctypes.POINTER(_Field), ctypes.c_size_t]
_lib.rl_format_phase_end.restype = ctypes.c_long
_lib.rl_write_line.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
_lib.rl_write_line.restype = ctypes.c_int
_lib.rl_version.argtypes = []
_lib.rl_version.restype = ctypes.c_char_p


# The release this package belongs to: librunlog's, which takes it from include/runlog.h, the
# one place it is defined.
__version__ = _lib.rl_version().decode()


def library_path():
    """The path librunlog was loaded from."""
    return _lib_path


def library_version():
    """librunlog's version, e.g. "0.1.0"."""
    return _lib.rl_version().decode()


def _text(s, what):
    # C strings end at NUL; a NUL inside would silently cut the value, so refuse it.
    if "\0" in s:
        raise ValueError("runlog: %s contains a NUL character: %r" % (what, s))
    return s.encode("utf-8", "surrogateescape")


_warned = set()


def _warn_once(what, message):
    """A RuntimeWarning the first time `what` happens in this process: a logging call never
    raises for its data, and a loop must not flood stderr."""
    if what not in _warned:
        _warned.add(what)
        import warnings
        warnings.warn("runlog: " + message, RuntimeWarning, stacklevel=4)


def _big_int(v):
    # json-c (summarize, hwmon) would read another number: its digits, as a string
    _warn_once("big int", "integer %d is beyond 64 bits: written as the string of its digits "
               "(readers with 64-bit integers would read another number)" % v)
    return str(v)


_MAX_DEPTH = 16  # runlog.h RL_MAX_DEPTH: librunlog's deepest nesting


def _plain(v, depth=0):
    """v as a value json.dumps takes, as pytyche's json.dumps(default=str) would print it:
    non-finite floats become None (valid JSON), integers beyond 64 bits their digits as a
    string, unknown objects their str(), and what nests deeper than librunlog takes (a list
    that contains itself) its str() there."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v if _INT64_MIN <= v <= _UINT64_MAX else _big_int(v)
    if isinstance(v, float):
        if math.isfinite(v):
            return float(v)
        _warn_once("nan", "NaN or infinity written as null (not JSON otherwise)")
        return None
    if isinstance(v, (dict, list, tuple)) and depth >= _MAX_DEPTH - 2:  # in a line's data
        _warn_once("depth", "a value contains itself or nests too deep: its str() written there")
    elif isinstance(v, dict):
        return {_key(k): _plain(x, depth + 1) for k, x in v.items()}
    elif isinstance(v, (list, tuple)):
        return [_plain(x, depth + 1) for x in v]
    return _str(v)


def _str(v):
    # json.dumps(default=str)'s str(); one that raises (nests too deep for repr, a broken
    # __str__) is the type's name: a logging call never raises for its data
    try:
        return str(v)
    except Exception:
        _warn_once("str", "a value's str() raised: its type's name written instead")
        return "<%s>" % type(v).__name__


def _key(k):
    # The key json.dumps would write for k (it accepts str, int, float, bool and None keys;
    # another, which pytyche's write() would refuse, is its str())
    if isinstance(k, str):
        return k
    if k is None or isinstance(k, (bool, int, float)):
        return json.dumps(k)
    return _str(k)


_key_bytes = {}  # str -> its checked UTF-8 bytes: loops log the same few names and keys again and again


def _key_b(k):
    b = _key_bytes.get(k) if type(k) is str else None
    if b is None:
        b = _text(_key(k), "a key")
        if type(k) is str and len(_key_bytes) < 4096:
            _key_bytes[k] = b
    return b


def _field(k, v):
    """The rl_field_t initializer for one key/value pair."""
    t = type(v)
    if t is str and "\0" not in v:
        return (_key_b(k), _T_STRING, _Value(s=v.encode("utf-8", "surrogateescape")))
    if t is float or (t is not bool and isinstance(v, float)):
        if math.isfinite(v):
            return (_key_b(k), _T_DOUBLE, _Value(d=v))
        return (_key_b(k), _T_NULL)
    if v is None:
        return (_key_b(k), _T_NULL)
    if t is bool:
        return (_key_b(k), _T_BOOL, _Value(b=v))
    if isinstance(v, int):
        if _INT64_MIN <= v <= _INT64_MAX:
            return (_key_b(k), _T_INT, _Value(i=v))
        # beyond int64: its digits as JSON text up to 2**64-1 (pytyche's seed=2**64-1)
        return (_key_b(k), _T_JSON, _Value(s=json.dumps(_plain(v)).encode()))
    if isinstance(v, (dict, list, tuple)):
        return (_key_b(k), _T_JSON, _Value(s=json.dumps(_plain(v)).encode()))
    s = v if isinstance(v, str) else _str(v)
    if "\0" in s:  # json.dumps escapes it; the library re-prints that as it came
        return (_key_b(k), _T_JSON, _Value(s=json.dumps(s).encode()))
    return (_key_b(k), _T_STRING, _Value(s=_text(s, "a value")))


_tls = threading.local()  # per thread: field arrays by length, reused from call to call


def _fields(items):
    """items as an rl_field_t array for librunlog, and its length. The array is this thread's,
    reused from call to call (allocating ctypes structures per call costs more than the write):
    give it back with _release() after the call."""
    n = len(items)  # a dict's items, or an empty tuple
    if not n:
        return None, 0
    cache = getattr(_tls, "arrays", None)
    if cache is None:
        cache = _tls.arrays = {}
    arr = cache.pop(n, None)  # popped: a signal handler logging meanwhile gets its own
    if arr is None:
        arr = (_Field * n)()
    for f, (k, v) in zip(arr, items):
        t = type(v)
        f.key = _key_b(k)
        if t is str and "\0" not in v:
            f.type = _T_STRING
            f.v.s = v.encode("utf-8", "surrogateescape")
        elif t is int and _INT64_MIN <= v <= _INT64_MAX:
            f.type = _T_INT
            f.v.i = v
        elif t is float and math.isfinite(v):
            f.type = _T_DOUBLE
            f.v.d = v
        else:  # the rest, as _field() says
            init = _field(k, v)
            f.type = init[1]
            if len(init) > 2:
                f.v = init[2]
    return arr, n


def _release(arr, n):
    if arr is not None:
        _tls.arrays[n] = arr


# Every open log, so that a child after os.fork() gets fresh locks (another thread of the
# parent may have held one at the moment of the fork).
_open_logs = weakref.WeakSet()


def _after_fork_in_child():
    for log in list(_open_logs):
        log._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class RunLog:
    """A JSON Lines run log open for appending.

    path: the file (created if missing); None means $RUNLOG_FILE, which `hwmon -- cmd` sets.
    fsync_line: fdatasync after every line (survives a power cut, costs about a millisecond).
    strict: a line that cannot be written raises OSError; by default it is counted in lost
    (last_error says why) and the first one warns once on stderr, so the job goes on.
    Usable as a context manager (closed at exit) and from many threads and processes at once.
    """

    def __init__(self, path=None, fsync_line=False, strict=False):
        self.strict = bool(strict)
        self.lost = 0  # entries that could not be written (not strict)
        self.last_error = None  # the OSError of the last of them
        self._warned = False
        shared = path is None and bool(os.environ.get("RUNLOG_FILE"))
        if path is None:
            path = os.environ.get("RUNLOG_FILE") or None
        handle = ctypes.c_void_p()
        self._own = False  # a copy of this log's own lines is kept in _mem (see below)
        self._own_lost = False
        if path is None:
            # pytyche's RunLog(): entries kept in memory until write(path), so that a script
            # instrumented for hwmon runs unchanged without it. The lines are librunlog's all
            # the same, in an anonymous file (threads and forked children append to it too).
            self.path = None
            fd = _memory_file()
            rc = _lib.rl_fdopen(ctypes.byref(handle), os.dup(fd), 0)
            self._mem = fd
        else:
            self.path = os.fspath(path)
            self._mem = None
            rc = _lib.rl_open(ctypes.byref(handle), _text(self.path, "the path"),
                              FSYNC_LINE if fsync_line else 0)
        if rc < 0:
            if self._mem is not None:
                os.close(self._mem)
            raise OSError(-rc, os.strerror(-rc), self.path)
        self._log = handle.value
        if shared:
            # RunLog() inside an hwmon run appends to the run's log, which hwmon and other
            # writers share; pytyche's write(path) writes this RunLog's own entries: keep a
            # copy of them in memory, as a log kept in memory does (the library formats them
            # as it wrote them: the same span, phase_id and seconds)
            self._mem, self._own = _memory_file(), True
        self._lock = threading.Lock()
        _open_logs.add(self)

    def _call(self, fn, name, *args):
        with self._lock:  # only against close(): the C calls themselves are thread-safe
            if self._log is None:
                raise ValueError("runlog: the log is closed")
            rc = fn(self._log, name, *args)
        if rc == -_errno.EINVAL:
            raise ValueError("runlog: refused: a key repeats or is reserved, or a value is "
                             "not valid JSON")
        if rc < 0:
            self._lost(OSError(-rc, os.strerror(-rc), self.path))
            return False
        return True

    def _lost(self, err):
        """A line that could not be written: raised when strict, else counted, and the first
        time said on stderr (a warning that the job's warning filters may turn into an error
        is never raised from here: it is written directly then)."""
        if self.strict:
            raise err
        with self._lock:
            self.lost += 1
            self.last_error = err
            first, self._warned = not self._warned, True
        if first:
            msg = ("runlog: an entry was not written to %s: %s; the job goes on, and entries "
                   "that cannot be written are counted in RunLog.lost (said once)"
                   % (self.path if self.path is not None else "the log in memory",
                      err.strerror))
            try:
                import warnings
                warnings.warn(msg, RuntimeWarning, stacklevel=4)
            except Exception:
                try:
                    sys.stderr.write(msg + "\n")
                except Exception:
                    pass

    def _own_line(self, fmt, *args):
        """The line just written, formatted again by the library, into the copy of this log's
        own entries (RunLog() inside an hwmon run)."""
        if not self._own:
            return
        cap = 4096
        for _ in range(2):
            buf = ctypes.create_string_buffer(cap)
            n = fmt(buf, cap, *args)
            if n < cap:
                break
            cap = n + 1
        try:
            if n < 0:
                raise OSError(-n, os.strerror(-n))
            with self._lock:
                if self._mem is not None:
                    os.write(self._mem, buf.raw[:n])
        except OSError:
            self._own_lost = True  # write(path) says so

    def _write_line(self, entry):
        """Write entry (a dict, formatted here as pytyche's write() does: json.dumps) through
        the library's rl_write_line(): what librunlog's own calls refuse but pytyche writes."""
        line = json.dumps(entry, default=str).encode()
        with self._lock:
            if self._log is None:
                raise ValueError("runlog: the log is closed")
            rc = _lib.rl_write_line(self._log, line, len(line))
        if rc == -_errno.EINVAL:  # cannot be: entry is plain (_plain); say so, never raise
            _warn_once("line refused", "librunlog refused a line, not written: %r" % line[:200])
            return
        if rc < 0:
            self._lost(OSError(-rc, os.strerror(-rc), self.path))  # never raised unless strict
            return
        if self._own:
            try:
                with self._lock:
                    if self._mem is not None:
                        os.write(self._mem, line + b"\n")
            except OSError:
                self._own_lost = True

    def log_phase(self, name, seconds, **extra):
        """Append {"ts", "type": "phase", "name", "seconds" (rounded to 3 decimals), **extra}.
        Takes what pytyche's takes (see the module's documentation): a negative, NaN or huge
        duration and extras named "type" or "ts" are written as pytyche writes them."""
        try:
            secs = round(seconds, 3)  # pytyche's value, exactly: int stays int, -1e-9 is -0.0
        except TypeError:
            secs = round(float(seconds), 3)  # a type without __round__ (as float() takes it)
        if (isinstance(secs, float) or type(secs) is int) and 0 <= secs <= _MAX_SECONDS and \
                not _PHASE_KEYS.intersection(extra):
            # librunlog's line (-0.0 >= 0: a clock step of -1e-9 s is pytyche's -0.0 too)
            arg = float(seconds) if secs > 0 or math.copysign(1, secs) > 0 else -0.0
            try:
                name_b = _key_b(name if type(name) is str else _str(name))
                arr, n = _fields(extra.items())
            except ValueError:  # a NUL in a name or key: json.dumps below escapes it
                arr = None
            else:
                try:
                    if self._call(_lib.rl_phase, name_b, arg, arr, n):
                        self._own_line(_lib.rl_format_phase, name_b, arg, arr, n)
                    return
                except ValueError:
                    if self._log is None:
                        raise
                finally:
                    _release(arr, n)
        # what librunlog refuses for a C caller (a negative or absurd duration, the entry's own
        # keys), written as pytyche writes it
        if not (isinstance(secs, float) and 0 <= secs <= _MAX_SECONDS):
            _warn_once("seconds", "phase %r: %r seconds written as pytyche does (not a duration "
                       "summarize counts)" % (name, seconds))
        entry = {"ts": _now_iso(), "type": "phase", "name": _plain(name), "seconds": _plain(secs)}
        entry.update((_key(k), _plain(v)) for k, v in extra.items())
        self._write_line(entry)

    def log_event(self, event_type, data=None):
        """Append {"ts", "type": "event", "event": event_type, "data": data}; data is left out
        when it is empty or None, as pytyche does, and may be any value pytyche takes (a dict,
        a list, a string: written as JSON)."""
        if not data:
            data = None
        if data is None or isinstance(data, dict):
            try:
                arr, n = _fields(data.items() if data else ())
                type_b = _key_b(event_type if type(event_type) is str else _str(event_type))
            except ValueError:  # a NUL in a key or the type: json.dumps below escapes it
                pass
            else:
                try:
                    if self._call(_lib.rl_event, type_b, arr, n):
                        self._own_line(_lib.rl_format_event, type_b, arr, n)
                    return
                except ValueError:
                    if self._log is None:
                        raise
                finally:
                    _release(arr, n)
        entry = {"ts": _now_iso(), "type": "event", "event": _plain(event_type)}
        if data is not None:
            entry["data"] = _plain(data)
        self._write_line(entry)

    def phase(self, name, reset_peak_memory=False, **extra):
        """`with log.phase("train", steps=1000): ...` logs the block as a phase, timed on a
        monotonic clock; also when it raises, with "exception": the exception's type name.
        Its begin is logged too (a "phase_begin" entry with the same extra keys), so a run
        killed inside the block still says which phase it was in. When the job has imported
        JAX or PyTorch, both entries carry "framework_memory" (framework_memory()); with
        reset_peak_memory, PyTorch's peak is reset at the begin, so the end's is the phase's.
        Extras named ts, type, seconds or phase_id (the entries' own) are kept under
        "reserved_extra", with a RuntimeWarning once: never a ValueError into the job."""
        return _Phase(self, name, extra, reset_peak_memory)

    def log_framework_memory(self, **extra):
        """Log a "framework_memory" event with framework_memory()'s figures (and extra keys);
        returns them (None, and nothing logged, when no framework is imported)."""
        fm = framework_memory()
        if fm is not None:
            self.log_event(FRAMEWORK_MEMORY, dict(fm, **extra))
        return fm

    def timed(self, name=None, **extra):
        """Decorator: each call of the function is logged as a phase (default name: the
        function's qualified name), as with phase()."""
        def wrap(fn):
            label = name or fn.__qualname__

            @functools.wraps(fn)
            def inner(*args, **kwargs):
                with _Phase(self, label, extra):
                    return fn(*args, **kwargs)
            return inner
        return wrap

    def write(self, path):
        """pytyche's write(path): every entry of the log written to path, replacing it. For a
        log kept in memory (RunLog() without RUNLOG_FILE), its entries; for RunLog() inside an
        hwmon run (RUNLOG_FILE), this RunLog's own entries, not hwmon's or other writers'; for a
        log opened on a path, that file's entries (its own file: nothing to do)."""
        if self.path is not None and os.path.exists(path) and os.path.samefile(path, self.path):
            return  # the run's own log: its entries are there (replacing it would lose hwmon's)
        if self._mem is not None:
            with self._lock:
                if self._log is None:
                    raise ValueError("runlog: the log is closed")
                if self._own_lost:
                    raise OSError(_errno.EIO, "runlog: some entries are not in the copy of "
                                  "this log's own (they are in %s)" % self.path, path)
                data = _read_all(self._mem)
        else:
            if self.path is None:
                raise ValueError("runlog: the log is closed")
            with open(self.path, "rb") as f:
                data = f.read()
        with open(path, "wb") as f:
            f.write(data)

    def entries(self):
        """The entries of a log kept in memory, or this RunLog's own inside an hwmon run, as
        dicts (pytyche keeps them in _entries)."""
        if self._mem is None:
            raise ValueError("runlog: this RunLog appends to %s; read the file" % self.path)
        with self._lock:
            if self._log is None:
                raise ValueError("runlog: the log is closed")
            data = _read_all(self._mem)
        return [json.loads(line) for line in data.decode("utf-8", "surrogateescape").splitlines()]

    def close(self):
        """Close the log (again: nothing). Errors of close(2) raise OSError."""
        with self._lock:
            log, self._log = self._log, None
        if log is not None:
            _open_logs.discard(self)
            rc = _lib.rl_close(log)
            if self._mem is not None:
                os.close(self._mem)
                self._mem = None
            if rc < 0:
                raise OSError(-rc, os.strerror(-rc), self.path)

    @property
    def closed(self):
        return self._log is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        where = self.path if self.path is not None else "in memory"
        return "<runlog.RunLog %r%s>" % (where, " closed" if self.closed else "")


def _now_iso():
    # librunlog's ts (and pytyche's): UTC, milliseconds
    import datetime
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def _memory_file():
    """An anonymous file open for appending (memfd where the kernel has it)."""
    try:
        fd = os.memfd_create("runlog", getattr(os, "MFD_CLOEXEC", 0))
    except (AttributeError, OSError):
        import tempfile
        fd = os.dup(tempfile.TemporaryFile().fileno())  # already unlinked
    import fcntl
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
    return fd


def _read_all(fd):
    chunks, off = [], 0
    while True:
        b = os.pread(fd, 1 << 20, off)
        if not b:
            return b"".join(chunks)
        chunks.append(b)
        off += len(b)


def _jax_first_gpu(jax):
    devices = [d for d in jax.local_devices() if getattr(d, "platform", None) == "gpu"]
    return devices[0] if devices else None


def framework_memory():
    """The allocator figures of the framework the job has already imported, as logged:
    {"framework": "jax" or "torch", "device": its index, "peak_mib": the most in use,
    "in_use_mib": in use now, "pool_mib": what the allocator holds or may hold (PyTorch's peak
    reserved, JAX's bytes_limit), null when not said}, in MiB; None when neither is imported,
    or it has no GPU device, or says nothing. It never imports a framework and never
    initialises a device (PyTorch is asked only once CUDA is initialised). For JAX it is the
    first GPU device, as pytyche's probe_jax_peak_memory_mb() reads it."""
    jax = sys.modules.get("jax")
    if jax is not None:
        try:
            dev = _jax_first_gpu(jax)
            stats = dev.memory_stats() if dev is not None else None
        except Exception:
            stats = None
        if stats:
            def mib(k):
                v = stats.get(k)
                return v / _MIB if isinstance(v, (int, float)) and not isinstance(v, bool) else None
            if mib("peak_bytes_in_use") is not None:
                return {"framework": "jax", "device": getattr(dev, "id", 0),
                        "peak_mib": mib("peak_bytes_in_use"), "in_use_mib": mib("bytes_in_use"),
                        "pool_mib": mib("bytes_limit")}
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None) if torch is not None else None
    if cuda is not None:
        try:
            if not cuda.is_initialized():
                return None
            d = cuda.current_device()
            return {"framework": "torch", "device": d,
                    "peak_mib": cuda.max_memory_allocated(d) / _MIB,
                    "in_use_mib": cuda.memory_allocated(d) / _MIB,
                    "pool_mib": cuda.max_memory_reserved(d) / _MIB}
        except Exception:
            return None
    return None


def probe_jax_peak_memory_mb():
    """pytyche's probe: the peak bytes in use of JAX's first GPU device, in MB (MiB); 0.0 when
    JAX is absent, has no GPU device or fails. As in pytyche it imports JAX."""
    try:
        import jax
        dev = _jax_first_gpu(jax)
        if dev is None:
            return 0.0
        stats = dev.memory_stats()
        if stats is None:
            return 0.0
        return stats.get("peak_bytes_in_use", 0) / (1024 * 1024)
    except Exception:
        return 0.0


def _with_memory(extra):
    """extra with "framework_memory" when a framework is imported (two dict lookups when not)."""
    if "jax" not in sys.modules and "torch" not in sys.modules:
        return extra
    fm = framework_memory()
    return extra if fm is None else dict(extra, **{FRAMEWORK_MEMORY: fm})


def _span_extra(extra):
    """extra with the keys a timed phase's entries keep for themselves (ts, type, name, seconds,
    phase_id) moved into one object under "reserved_extra" (a free name if the caller took
    that one too): the entries stay a phase summarize reads, the caller's values are kept, and
    the call never raises for them (a RuntimeWarning once)."""
    moved = {k: v for k, v in extra.items() if k in _SPAN_KEYS}
    if not moved:
        return extra
    key = _MOVED_EXTRA
    while key in extra:
        key += "_"
    _warn_once("span keys", "phase extras named %s are the entry's own: kept under %r"
               % (", ".join(sorted(moved)), key))
    out = {k: v for k, v in extra.items() if k not in _SPAN_KEYS}
    out[key] = moved
    return out


class _Phase:
    __slots__ = ("log", "name", "extra", "span", "name_b", "reset")

    def __init__(self, log, name, extra, reset=False):
        self.log, self.name, self.extra, self.reset = log, name, _span_extra(extra), reset

    def __enter__(self):
        self.span = _Span()
        self.name_b = _key_b(self.name if type(self.name) is str else str(self.name))
        if self.reset:
            torch = sys.modules.get("torch")
            try:
                if torch is not None and torch.cuda.is_initialized():
                    torch.cuda.reset_peak_memory_stats()
            except Exception:
                pass
        arr, n = _fields(_with_memory(self.extra).items())
        try:
            # The span starts even when the line is lost: the block runs and its end is logged.
            if self.log._call(_lib.rl_phase_begin, ctypes.byref(self.span), self.name_b, arr, n):
                self.log._own_line(_lib.rl_format_phase_begin, ctypes.byref(self.span), arr, n)
        finally:
            _release(arr, n)
        return self

    def __exit__(self, exc_type, exc, tb):
        extra = _with_memory(self.extra)
        if exc_type is not None:
            try:
                msg = str(exc)
            except Exception:  # a __str__ that raises: the type says enough
                msg = ""
            extra = dict(extra, exception=exc_type.__name__,
                         **{EXCEPTION_MESSAGE: msg[:EXCEPTION_MESSAGE_MAX]})
        arr, n = _fields(extra.items())
        secs = ctypes.c_double()
        try:
            if self.log._call(_lib.rl_phase_end, ctypes.byref(self.span), arr, n,
                              ctypes.byref(secs)):
                self.log._own_line(_lib.rl_format_phase_end, ctypes.byref(self.span), secs.value,
                                   arr, n)
        finally:
            _release(arr, n)
        return False


from .monitor import (HWMonitor, Monitor, ResourceSummary, RunSummary,  # noqa: E402
                      SummarizeError, build_resource_summary, summarize)
from .resource_tracker import PidTracker, SystemTracker, get_pid_stats  # noqa: E402
