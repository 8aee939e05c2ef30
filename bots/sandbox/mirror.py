"""Each language's runtime, as a bot's sandbox sees it: a copy of the files it needs (its
closure) on a tmpfs, built once per machine and shared by every sandbox of the language.

Why: the page cache is one for the whole machine. A file read from the disk stays cached
for a while, and a later read of the same page takes 1-3 us instead of 50 us-20 ms; a bot
that could read the machine's large files (all of /usr/lib) could mark pages in its first
seating of a deal and time them in its second, a fresh process in another sandbox, and so
learn the other seating's cards (an audit's bot did). A file on a tmpfs is in memory
whatever anyone does (a machine without swap; and :mod:`bots.sandbox.resident` touches
every page of a mirror in use, which keeps it in a virtual machine's host's memory too),
so timing a read tells nothing: every file a sandboxed bot can read is one (docs/sandbox.md,
"How a bot is started").

:func:`runtime_mounts` gives bwrap's arguments that bind a language's mirror to the same
paths inside the sandbox; :func:`closure` says which files it holds: what the language's
``runtime_files`` names (its interpreter, its standard library...), every link on the way to
each, the shared libraries its ELF files need (``ldd`` of those trusted system files, never
of a bot's program), the dynamic loader, its cache and the C.UTF-8 locale.

The mirror lives in ``/dev/shm/card-arena-runtime-UID/<language>-<digest>`` (the digest of
its files' paths, sizes and times: a system upgrade makes a new one beside the old), built
under a machine-wide flock into a temporary folder that is renamed into place, read-only.
Where it cannot be built (no /dev/shm, no room), the sandbox does not start:
:class:`~bots.sandbox.SandboxUnavailable`, the platform's trouble.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import stat
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.sandbox.resident import keep as keep_resident

log = logging.getLogger("bots.sandbox")

#: the machine-wide tmpfs the mirrors live on
SHM = Path("/dev/shm")
#: the top-level links into /usr that bwrap makes in every sandbox (bots.sandbox.root_links):
#: a path through one is mirrored where it leads
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: what every runtime needs besides its own: the dynamic loader (x86-64's), its cache, and
#: the locale of the sandbox's LANG (C.UTF-8: glibc's C.utf8 folder)
COMMON = ("/lib64/ld-linux-x86-64.so.2", "/etc/ld.so.cache", "/usr/lib/locale/C.utf8")
#: how long a process trusts the closure it worked out (a system upgrade is seen after this)
CLOSURE_TTL_S = 300.0
#: links followed in a row before a path is refused
MAX_HOPS = 40
#: folders the mirror may hold, at its top: what bwrap binds (the rest of / stays bwrap's)
TOPS = ("usr", "etc")
#: how long after a newer copy of the same runtime was built an old copy may be removed
#: (once no process has it mounted): every process has moved to the new one by then, as it
#: looks at the files again every :data:`CLOSURE_TTL_S`
SUPERSEDED_S = 2 * CLOSURE_TTL_S
#: where the processes of the machine are listed
PROC = Path("/proc")


class MirrorError(Exception):
    """The mirror cannot be built; the message says why (bots.sandbox turns it into a
    SandboxUnavailable)."""


@dataclass(frozen=True)
class Closure:
    """The files of a runtime's mirror: each path (absolute, on the host) and what it is."""

    #: path -> ("dir", "") | ("file", "") | ("link", its target)
    entries: dict[str, tuple[str, str]]
    digest: str
    #: bytes of its files
    size: int
    #: what it was worked out from (COMMON and the language's ``runtime_files``)
    roots: tuple[str, ...] = ()


def mirror_root() -> Path:
    """The folder of this machine's mirrors (of the worker's uid): on /dev/shm, owned by the
    worker, that others cannot write."""
    return SHM / f"card-arena-runtime-{os.geteuid()}"


# ---- the closure -----------------------------------------------------------------------
def _hops(path: str) -> tuple[list[str], str]:
    """The links on the way to ``path`` (each a link in the mirror, bar the top-level ones
    bwrap makes) and the real path it names."""
    links: list[str] = []
    todo = list(Path(os.path.normpath(path)).parts[1:])
    current = "/"
    hops = 0
    while todo:
        candidate = os.path.join(current, todo.pop(0))
        if not os.path.islink(candidate):
            current = candidate
            continue
        hops += 1
        if hops > MAX_HOPS:
            raise MirrorError(f"{path}: too many links")
        if candidate not in TOP_LINKS:
            links.append(candidate)
        # where it leads, and the rest of the path after it, resolved from the top again
        target = os.path.normpath(os.path.join(current, os.readlink(candidate)))
        todo = list(Path(target).parts[1:]) + todo
        current = "/"
    return links, current


def _is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"\x7fELF"
    except OSError:
        return False


_LDD_LINE = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x")


def _libraries(files: list[str]) -> set[str]:
    """The shared libraries (and loader) the ELF ``files`` need, as ``ldd`` finds them: run
    on the system's own files only (ldd may run what it reads)."""
    found: set[str] = set()
    for start in range(0, len(files), 200):
        chunk = files[start : start + 200]
        try:
            said = subprocess.run(
                ["ldd", *chunk], capture_output=True, text=True, timeout=60, check=False,
                env={"PATH": "/usr/bin:/bin", "LANG": "C"},
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError) as exc:
            raise MirrorError(f"ldd failed: {exc}") from None
        for line in said.stdout.splitlines():
            matched = _LDD_LINE.search(line)
            if matched and "not found" not in line:
                found.add(matched.group(1))
    return found


def closure(language: Any, config: Any = None) -> Closure:
    """What ``language``'s runtime needs (its ``runtime_files``, :data:`COMMON`), each
    folder whole, each link and where it leads, and the shared libraries of its ELF files.
    Raises :class:`MirrorError` for a file of the language's that is not there."""
    entries: dict[str, tuple[str, str]] = {}
    elves: list[str] = []

    def add(path: str, *, needed: bool) -> None:
        links, real = _hops(path)
        if not os.path.lexists(real) or Path(real).parts[1:2] not in [(t,) for t in TOPS]:
            if needed:
                raise MirrorError(f"{path} is missing")
            return  # (a link that leads nowhere, or out of the mirror: left dangling)
        for link in links:
            entries.setdefault(link, ("link", os.readlink(link)))
        add_real(real)

    def add_real(real: str) -> None:
        if real in entries or real in left_out:
            return
        info = os.lstat(real)
        if stat.S_ISDIR(info.st_mode):
            entries[real] = ("dir", "")
            for child in sorted(os.listdir(real)):
                child_path = os.path.join(real, child)
                if os.path.islink(child_path):
                    target = os.readlink(child_path)
                    entries[child_path] = ("link", target)
                    add(os.path.join(real, target), needed=False)
                else:
                    add_real(child_path)
        elif stat.S_ISREG(info.st_mode):
            entries[real] = ("file", "")
            if _is_elf(real):
                elves.append(real)
        # (sockets, devices, fifos: left out)

    roots = _roots(language, config)
    left_out = {root[len(LEFT_OUT) :] for root in roots if root.startswith(LEFT_OUT)}
    for path in roots:
        if not path.startswith(LEFT_OUT):
            add(path, needed=path not in COMMON[2:])
    done: set[str] = set()
    while True:
        todo = sorted(set(elves) - done)
        if not todo:
            break
        done.update(todo)
        for library in sorted(_libraries(todo)):
            add(library, needed=False)
    for path in entries:
        top = Path(path).parts[1]
        if top not in TOPS:
            raise MirrorError(f"{path}: outside {', '.join('/' + t for t in TOPS)}")
    return _stamped(entries, roots)


#: marks a root that is a folder left out (``runtime_left_out``)
LEFT_OUT = "!"


def _roots(language: Any, config: Any) -> tuple[str, ...]:
    """What a closure is worked out from: :data:`COMMON`, the language's ``runtime_files``,
    and the folders under them it leaves out (``runtime_left_out``, if it has one: files no
    bot needs, such as Python's static libraries for building C programs, 32 MiB), each
    marked with :data:`LEFT_OUT`."""
    left_out = getattr(language, "runtime_left_out", None)
    skipped = [LEFT_OUT + path for path in left_out(config)] if left_out else []
    return (*COMMON, *language.runtime_files(config), *skipped)


def _same_runtime(one: Any, other: Any) -> bool:
    """Whether two mirrors' roots are of one runtime (what they leave out aside: a copy
    that left out less is replaced by one that leaves out more)."""
    return [r for r in one if not r.startswith(LEFT_OUT)] == [
        r for r in other if not r.startswith(LEFT_OUT)
    ]


def _stamped(entries: dict[str, tuple[str, str]], roots: tuple[str, ...] = ()) -> Closure:
    """The closure of ``entries`` (worked out from ``roots``) with the digest of the roots
    and of the entries' paths, kinds, link targets, sizes and modification times as they
    are now (OSError: one is gone)."""
    digest = hashlib.sha256("\0".join(roots).encode() + b"\n")
    size = 0
    for path in sorted(entries):
        kind, target = entries[path]
        info = os.lstat(path)
        digest.update(f"{path}\0{kind}\0{target}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
        if kind == "file":
            size += info.st_size
    return Closure(entries, digest.hexdigest()[:16], size, roots)


# ---- the mirror --------------------------------------------------------------------------
#: (language, runtime) -> when its closure was last looked at, the closure, its mirror
_known: dict[tuple[str, str], tuple[float, Closure, Path]] = {}
_known_lock = threading.Lock()


def mirror(language: Any, config: Any = None) -> Path:
    """The folder of ``language``'s mirror on this machine, built if it is not there yet
    (once per machine: under a machine-wide lock). A process works out the closure once
    (``ldd``...), and every :data:`CLOSURE_TTL_S` looks at its files again (a digest
    of their sizes and times): when they changed (a system upgrade), it works it out anew
    and builds the new mirror beside the old. Raises :class:`MirrorError`."""
    key = (language.name, language.runtime(config))
    now = time.monotonic()
    with _known_lock:
        known = _known.get(key)
        if known is not None and now - known[0] < CLOSURE_TTL_S and known[2].is_dir():
            return known[2]
        found = None
        if known is not None:
            with contextlib.suppress(OSError):
                found = _stamped(known[1].entries, known[1].roots)
            if found is not None and found.digest != known[1].digest:
                found = None  # changed: the closure may be another one now
        else:
            found = _built(language, config)  # (another process worked it out)
        if found is None:
            try:
                found = closure(language, config)
            except OSError as exc:  # (a file gone as it was read, g++ not there...)
                raise MirrorError(str(exc)) from None
        path = build(language.name, found, config)
        _known[key] = (now, found, path)
        prune(language.name, path)
        return path


#: the file in a mirror's folder (out of the sandbox's sight) that says what it holds
MANIFEST = ".closure.json"


def _built(language: Any, config: Any) -> Closure | None:
    """The closure of a mirror of ``language`` already on the machine whose files have not
    changed since it was built (its manifest's digest is its name's), or None: a process
    that finds one needs no ``ldd``."""
    try:
        root = _root()
        roots = _roots(language, config)
        folders = sorted(
            root.glob(f"{language.name}-*"), key=lambda f: f.stat().st_mtime, reverse=True
        )
    except (OSError, MirrorError):
        return None
    for folder in folders:
        try:
            said = json.loads((folder / MANIFEST).read_text())
            if tuple(said["roots"]) != roots:
                continue
            entries = {path: (kind, target) for path, (kind, target) in said["entries"].items()}
            found = _stamped(entries, roots)
        except (OSError, ValueError, KeyError, TypeError):
            continue  # (a file of it is gone: the system changed)
        if folder.name == f"{language.name}-{found.digest}":
            return found
    return None


def own_folder(path: Path, mode: int) -> str:
    """Make the folder (with ``mode``) unless it is there, and say what is wrong with it: ""
    when it is a folder of this uid's that nobody else can write (a machine-wide folder
    another uid could have made first, or a link to elsewhere, is refused)."""
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=mode)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        return f"{path} must be a folder owned by uid {os.geteuid()} that others cannot write"
    return ""


def _root() -> Path:
    root = mirror_root()
    if not root.parent.is_dir():
        raise MirrorError(f"{root.parent} is missing (a tmpfs every process of the machine sees)")
    if problem := own_folder(root, 0o755):
        raise MirrorError(problem)
    if fs_type(root) != "tmpfs":
        raise MirrorError(f"{root.parent} is not a tmpfs (its files could leave memory)")
    return root


def fs_type(path: Path) -> str:
    """The type of the file system ``path`` is on, from /proc/self/mountinfo (the longest
    mount point above it)."""
    real = os.path.realpath(path)
    best, kind = "", ""
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            fields = line.split()
            point = fields[4].replace("\\040", " ")
            inside = real == point or real.startswith(point.rstrip("/") + "/")
            if inside and len(point) >= len(best):
                best, kind = point, fields[fields.index("-") + 1]
    return kind


def build(name: str, found: Closure, config: Any = None) -> Path:
    """The mirror of ``found`` (language ``name``): there already, or built now under the
    machine's lock for it, in a temporary folder renamed into place. Raises
    :class:`MirrorError`."""
    try:
        root = _root()
        final = root / f"{name}-{found.digest}"
        if final.is_dir():
            return final
        # the lock is the mirrors' own (every process of the machine that runs as this uid
        # builds here, whatever its slots' lock folder)
        fd = os.open(
            root / f".{name}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if final.is_dir():  # another process built it while this one waited
                return final
            for left in root.glob(f".{name}-*.building"):  # a builder that died
                _remove(left)
            free = shutil.disk_usage(root).free
            if free < found.size + (16 << 20):
                raise MirrorError(
                    f"{root.parent} has {free >> 20} MiB free; the copy takes "
                    f"{-(-found.size >> 20)} MiB"
                )
            started = time.monotonic()
            building = root / f".{final.name}.building"
            try:
                _copy(found, building)
                os.rename(building, final)
            except OSError:
                _remove(building)
                if final.is_dir():  # (built meanwhile by a process that did not wait)
                    return final
                raise
            except BaseException:
                _remove(building)
                raise
            log.info(
                "event=sandbox.mirror_built language=%s path=%s files=%s mib=%.1f seconds=%.2f",
                name, final, len(found.entries), found.size / (1 << 20),
                time.monotonic() - started,
            )  # fmt: skip
            return final
        finally:
            os.close(fd)
    except OSError as exc:
        raise MirrorError(f"{exc.filename or SHM}: {exc.strerror}") from None


def prune(name: str, current: Path) -> list[Path]:
    """Remove the copies of ``current``'s runtime (language ``name``, the same roots) that a
    newer one replaced :data:`SUPERSEDED_S` ago or more and that no process has mounted:
    without it, every system upgrade left a copy in memory until the machine restarted, and
    a machine upgraded often enough ran out of room for sandboxes. A copy some process still
    has mounted (a sandbox started before the upgrade: a table's bot may run for hours) is
    left for a later look: removing files under a running bot would fail its next read, a
    fault of the platform's. Where this process cannot see every process's mounts (``/proc``
    mounted with ``hidepid``), nothing is removed. Returns what was removed."""
    try:
        root = current.parent
        olds = [f for f in root.glob(f"{name}-*") if f != current and f.is_dir()]
        if not olds or time.time() - current.stat().st_mtime < SUPERSEDED_S:
            return []
        roots = json.loads((current / MANIFEST).read_text())["roots"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    same: list[Path] = []
    for folder in olds:
        try:
            if _same_runtime(json.loads((folder / MANIFEST).read_text())["roots"], roots):
                same.append(folder)  # (another runtime of the language's is not replaced)
        except (OSError, ValueError, KeyError, TypeError):
            continue
    if not same:
        return []
    removed: list[Path] = []
    try:
        fd = os.open(
            root / f".{name}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
    except OSError:
        return []
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        mounted = _mounted(root)
        if mounted is None:
            return []
        for folder in same:
            if folder.name in mounted:
                continue
            _remove(folder)
            if not folder.exists():
                removed.append(folder)
                log.info("event=sandbox.mirror_removed path=%s newer=%s", folder, current.name)
    finally:
        os.close(fd)
    return removed


def _mounted(root: Path) -> set[str] | None:
    """The names of the copies under ``root`` that some process of the machine has mounted
    (a sandbox binds one's /usr and /etc), from every process's mount table; None where
    they cannot all be seen."""
    try:
        with open(PROC / "self" / "mountinfo") as fh:
            for line in fh:
                fields = line.split()
                if fields[4] == str(PROC):
                    options = fields[fields.index("-") + 3].split(",")
                    if any(o.startswith("hidepid=") and o != "hidepid=0" for o in options):
                        return None
        pids = [entry for entry in os.listdir(PROC) if entry.isdigit()]
    except (OSError, ValueError, IndexError):
        return None
    # a mount's root, as a sandbox's table shows it: "/card-arena-runtime-0/python-DIGEST/usr"
    copy = re.compile(rf"/{re.escape(root.name)}/([^/\s]+)")
    names: set[str] = set()
    for pid in pids:
        try:
            with open(PROC / pid / "mountinfo") as fh:
                names.update(copy.findall(fh.read()))
        except FileNotFoundError:
            continue  # (it ended)
        except OSError:
            return None  # (a process whose mounts this one may not read)
    return names


def _copy(found: Closure, into: Path) -> None:
    into.mkdir(mode=0o755)
    dirs = [str(into)]
    for path in sorted(found.entries):
        kind, target = found.entries[path]
        where = str(into) + path
        os.makedirs(os.path.dirname(where), mode=0o755, exist_ok=True)
        if kind == "dir":
            os.makedirs(where, mode=0o755, exist_ok=True)
            dirs.append(where)
        elif kind == "link":
            os.symlink(target, where)
        else:
            # with its times (the JVM's class-data archive checks the modules file's)
            shutil.copy2(path, where, follow_symlinks=False)
            os.chmod(where, os.lstat(path).st_mode & 0o555)
    manifest = into / MANIFEST
    manifest.write_text(json.dumps({"roots": found.roots, "entries": found.entries}))
    os.chmod(manifest, 0o444)
    for folder, subfolders, _ in os.walk(into):
        for sub in subfolders:
            dirs.append(os.path.join(folder, sub))
    for folder in dirs:  # read-only, as the sandbox mounts it
        os.chmod(folder, 0o555)


def _remove(path: Path) -> None:
    """A mirror's folder, gone (its folders made writable first)."""
    if not path.exists():
        return
    for folder, _, _ in os.walk(path):
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o755)
    shutil.rmtree(path, ignore_errors=True)


def runtime_mounts(language: Any, config: Any = None) -> list[str]:
    """bwrap's arguments that bind ``language``'s mirror, read-only, to the same paths in
    the sandbox (its /usr and /etc: nothing else of the machine's is there). Raises
    :class:`MirrorError`."""
    path = mirror(language, config)
    keep_resident(path)  # (and in the host's memory, where the machine is a virtual one)
    args: list[str] = []
    for top in TOPS:
        if (path / top).is_dir():
            args += ["--ro-bind", str(path / top), f"/{top}"]
    return args
