"""The in-memory copy of each language's runtime that the sandbox binds instead of the
machine's /usr/lib (bots.sandbox.mirror): what it holds, that it is built once and again
beside the old one when the system's files change, and that a sandbox without one does not
start (never falls back to the machine's files)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bots.languages import get_language, languages
from bots.sandbox import DEFAULT_LIMITS, SandboxUnavailable, mirror, sandbox_command


@pytest.fixture
def shm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A tmpfs folder of the test's own in the mirrors' place, and no process-wide memory
    of the mirrors built before."""
    folder = Path(tempfile.mkdtemp(prefix="card-arena-test-mirror-", dir=mirror.SHM))
    monkeypatch.setattr(mirror, "SHM", folder)
    monkeypatch.setattr(mirror, "_known", {})
    yield folder
    for root, _, _ in os.walk(folder):
        os.chmod(root, 0o755)
    shutil.rmtree(folder)


@pytest.mark.parametrize("name", [language.name for language in languages()])
def test_a_runtime_closure_holds_its_runtime_and_libraries_and_nothing_of_the_rest(name):
    language = get_language(name)
    found = mirror.closure(language)
    paths = set(found.entries)
    # the dynamic loader, its cache, libc; never the machine's other large files
    assert "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" in paths
    assert {"/etc/ld.so.cache", "/usr/lib/x86_64-linux-gnu/libc.so.6"} <= paths
    assert not any(
        p.startswith(("/usr/lib/gcc", "/usr/lib/google-cloud-sdk", "/usr/lib/llvm", "/usr/share/"))
        and p != "/usr/share/java/gson.jar"
        for p in paths
    )
    expected = {
        "python": ["/usr/lib/python3.11/os.py", "/usr/lib/python3.11/lib-dynload"],
        "javascript": ["/usr/bin/node"],
        "cpp": ["/usr/lib/x86_64-linux-gnu/libstdc++.so.6"],
        "java": ["/usr/lib/jvm/java-17-openjdk-amd64/lib/modules", "/usr/share/java/gson.jar"],
    }[name]
    assert set(expected) <= paths
    # nor what no bot needs of its runtime: Python's static libraries for embedding it,
    # javac's record of older releases and the JVM's archive for heaps over 32 GiB
    assert not any("/config-3.11" in p or "libpython3.11" in p for p in paths)
    assert not any(p.endswith(("/ct.sym", "/classes_nocoops.jsa")) for p in paths)


def test_the_mirror_is_built_once_read_only_and_again_beside_it_when_a_file_changes(shm, tmp_path):
    source = tmp_path / "usr" / "lib" / "runtime.so"
    source.parent.mkdir(parents=True)
    source.write_bytes(b"\x7fELF one")
    entries = {str(source): ("file", "")}
    first = mirror.build("test", mirror._stamped(entries))
    copy = Path(str(first) + str(source))
    assert copy.read_bytes() == b"\x7fELF one"
    assert mirror.fs_type(copy) == "tmpfs"
    assert not copy.stat().st_mode & 0o222 and not first.stat().st_mode & 0o222  # read-only
    assert mirror.build("test", mirror._stamped(entries)) == first  # there already
    source.write_bytes(b"\x7fELF two, upgraded")
    second = mirror.build("test", mirror._stamped(entries))
    assert second != first and second.parent == first.parent
    assert Path(str(second) + str(source)).read_bytes() == b"\x7fELF two, upgraded"
    assert copy.read_bytes() == b"\x7fELF one"  # (a sandbox may still run on the old one)
    assert not [p for p in first.parent.iterdir() if p.name.endswith(".building")]


def test_an_old_copy_is_removed_once_replaced_long_enough_and_mounted_by_no_process(
    shm, tmp_path, monkeypatch
):
    # Every system upgrade left a copy in memory (79-203 MiB) until the machine restarted.
    source = tmp_path / "usr" / "lib" / "runtime.so"
    source.parent.mkdir(parents=True)
    entries = {str(source): ("file", "")}
    built = []
    for version in (b"one", b"two", b"three"):
        source.write_bytes(b"\x7fELF " + version)
        built.append(mirror.build("test", mirror._stamped(entries, ("/r",))))
    first, second, newest = built
    other = mirror.build("test", mirror._stamped(entries, ("/another-runtime",)))
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    (proc / "self" / "mountinfo").write_text("")
    (proc / "4242").mkdir()  # a sandbox started before the upgrades, on the second copy
    (proc / "4242" / "mountinfo").write_text(
        f"626 602 0:27 /{newest.parent.name}/{second.name}/usr /usr ro,nosuid - tmpfs tmpfs rw\n"
    )
    monkeypatch.setattr(mirror, "PROC", proc)
    assert mirror.prune("test", newest) == []  # too soon: a process may not have looked again
    when = time.time() - mirror.SUPERSEDED_S - 1
    os.utime(newest, (when, when))
    assert mirror.prune("test", newest) == [first]
    assert not first.exists() and second.is_dir() and newest.is_dir()
    assert other.is_dir()  # another runtime's copy (other roots) is never a replaced one
    (proc / "4242" / "mountinfo").unlink()
    (proc / "4242").rmdir()  # that sandbox ended
    assert mirror.prune("test", newest) == [second]
    assert Path(str(newest) + str(source)).read_bytes() == b"\x7fELF three"


def test_a_copy_that_left_out_less_of_the_runtime_is_replaced_by_one_that_leaves_out_more(
    shm, tmp_path, monkeypatch
):
    # (Python's copy once held the static libraries for embedding it, 32 MiB: machines that
    # had built it keep no such copy for good)
    source = tmp_path / "usr" / "lib" / "runtime.so"
    source.parent.mkdir(parents=True)
    source.write_bytes(b"\x7fELF")
    entries = {str(source): ("file", "")}
    fat = mirror.build("test", mirror._stamped(entries, ("/r",)))
    lean = mirror.build("test", mirror._stamped(entries, ("/r", mirror.LEFT_OUT + "/r/x")))
    assert fat != lean
    (tmp_path / "proc" / "self").mkdir(parents=True)
    (tmp_path / "proc" / "self" / "mountinfo").write_text("")
    monkeypatch.setattr(mirror, "PROC", tmp_path / "proc")
    when = time.time() - mirror.SUPERSEDED_S - 1
    os.utime(lean, (when, when))
    assert mirror.prune("test", lean) == [fat]


def test_no_copy_is_removed_where_some_process_mounts_cannot_be_read(shm, tmp_path, monkeypatch):
    source = tmp_path / "usr" / "lib" / "runtime.so"
    source.parent.mkdir(parents=True)
    entries = {str(source): ("file", "")}
    source.write_bytes(b"\x7fELF one")
    old = mirror.build("test", mirror._stamped(entries, ("/r",)))
    source.write_bytes(b"\x7fELF two")
    new = mirror.build("test", mirror._stamped(entries, ("/r",)))
    when = time.time() - mirror.SUPERSEDED_S - 1
    os.utime(new, (when, when))
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    # /proc mounted with hidepid: others' processes are hidden from this one
    (proc / "self" / "mountinfo").write_text(
        f"23 1 0:21 / {proc} rw,nosuid - proc proc rw,hidepid=invisible\n"
    )
    monkeypatch.setattr(mirror, "PROC", proc)
    assert mirror.prune("test", new) == [] and old.is_dir()
    (proc / "self" / "mountinfo").write_text("")
    (proc / "77").mkdir()
    (proc / "77" / "mountinfo").mkdir()  # (unreadable as a file: a process it may not read)
    assert mirror.prune("test", new) == [] and old.is_dir()


def test_a_process_finds_the_copy_another_built_without_working_it_out_again(shm, monkeypatch):
    cpp = get_language("cpp")
    built = mirror.mirror(cpp)
    monkeypatch.setattr(mirror, "_known", {})  # another process

    def no_ldd(files):
        raise AssertionError("worked out again")

    monkeypatch.setattr(mirror, "_libraries", no_ldd)
    assert mirror.mirror(cpp) == built
    assert [p.name for p in built.parent.iterdir() if p.name.startswith("cpp-")] == [built.name]


def test_a_sandbox_without_its_runtimes_copy_does_not_start(shm, monkeypatch, sandbox_config):
    python = get_language("python")

    def command():
        return sandbox_command(
            python, "bot.py", limits=DEFAULT_LIMITS, config=sandbox_config, slot=None, game=None
        )

    argv = command()  # (it builds the copy)
    assert ["--ro-bind", str(mirror.mirror(python, sandbox_config) / "usr"), "/usr"] == argv[
        argv.index("/usr") - 2 : argv.index("/usr") + 1
    ]
    assert "/usr/lib" not in argv  # the machine's own is never bound
    # no room on the tmpfs
    monkeypatch.setattr(mirror, "_known", {})
    monkeypatch.setattr(mirror, "SHM", shm / "elsewhere")
    (shm / "elsewhere").mkdir()
    usage = shutil.disk_usage(shm)
    monkeypatch.setattr(mirror.shutil, "disk_usage", lambda path: usage._replace(free=1 << 20))
    with pytest.raises(SandboxUnavailable, match="no in-memory copy of the Python runtime") as no:
        command()
    assert "has 1 MiB free; the copy takes" in str(no.value)
    # no /dev/shm at all
    monkeypatch.setattr(mirror, "SHM", shm / "missing")
    with pytest.raises(SandboxUnavailable, match="is missing"):
        command()


def test_a_mirror_is_only_ever_on_a_tmpfs(monkeypatch, tmp_path):
    monkeypatch.setattr(mirror, "SHM", tmp_path)  # (the disk, where the test's files are)
    monkeypatch.setattr(mirror, "_known", {})
    if mirror.fs_type(tmp_path) == "tmpfs":
        pytest.skip("the test's folder is on a tmpfs")
    with pytest.raises(mirror.MirrorError, match="is not a tmpfs"):
        mirror.mirror(get_language("cpp"))
    assert not (tmp_path / f"card-arena-runtime-{os.geteuid()}" / "cpp").exists()
