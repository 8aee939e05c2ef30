"""Java bots: one ``.java`` file with a public class that has the contract's methods in
camelCase (``draftPick``), taking the call's arguments as types Gson converts to and
returning one; a game may give its bots classes of its own (Last Card: the original kit's
``CardGameStrategy``, ``GameState``, ``Move``..., see docs/games/last-card.md). The platform
compiles the file with Debian's javac in the sandbox (bots.sandbox.compiling: once per
machine, kept by hash) together with ``Host.java``, the game's classes and Debian's Gson,
into a jar that Debian's Java runs in the sandbox like any bot (docs/bot-protocol.md,
"Java").

Where a game has a kit, a bot may also be a jar built with it (the kit's ``mvn package``):
its classes are taken in the compiler's sandbox (``JarImport.java``: the kit's own classes
stay Card Arena's) beside the host and the kit, and its strategy class is the bot. A
version keeps a jar as text (:data:`ARMOR` and base64), which the compile unwraps."""

from __future__ import annotations

import base64
import binascii
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from bots.languages import Language, camel_case, game_spec, tool_version

HERE = Path(__file__).resolve().parent
#: the package of the host and of a game's adapter (card_arena.Adapter): never imported
#: into a bot's file
HOST_PACKAGE = "card_arena"
#: how a jar begins (a zip archive's first local header)
JAR_MAGIC = b"PK\x03\x04"
#: the first line of a jar kept as text: base64 lines follow
ARMOR = b"// Card Arena keeps this built jar as base64 text: upload the .jar itself\n"
#: the files a jar's compile reads, beside the host's and the kit's: the jar, and the step
#: that takes its classes
JAR_FILE = "/bot/upload.jar"
JAR_IMPORT = "/src/card_arena/JarImport.java"
#: Debian's Gson (libgoogle-gson-java): the JSON library a Java bot is compiled and run with
GSON = "/usr/share/java/gson.jar"
#: where a bot's sandbox holds the seal its host loads (:func:`seal_library`)
SEAL = "/sandbox/libseal.so"
#: the JVM's memory beyond the bot's heap (metaspace, code, threads, the collector), counted
#: in its memory cgroup
RUNTIME_MB = 160
#: address space the JVM reserves beyond its heap (RLIMIT_AS counts reservations)
RESERVE_MB = 1536
#: the public top-level type a file declares, and its package
_PUBLIC = re.compile(
    r"^\s*public\s+(?:(?:final|abstract)\s+)*(?:class|interface|enum|record)\s+(\w+)", re.MULTILINE
)
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
#: a top-level class (at a line's start, as a file's classes are written): its modifiers and
#: annotations, its name
_TOP_CLASS = re.compile(
    r"^((?:@[\w.]+(?:\([^)\n]*\))?[ \t]+|[\w-]+[ \t]+)*)class[ \t]+(\w+)", re.MULTILINE
)
#: a public class written in a way the others do not read
_ANY_PUBLIC = re.compile(r"\bpublic\b[^;{}\n]*\bclass\b")
_NESTED = re.compile(r"^\s+public\s+static\s+(?:final\s+)?class\s+(\w+)", re.MULTILINE)
_IMPORT = re.compile(r"^(\s*)import\s+(?!static)([\w.]+)\s*;", re.MULTILINE)
#: the interfaces a kit's file declares (a strategy a bot implements)
_INTERFACE = re.compile(r"^\s*public\s+interface\s+(\w+)", re.MULTILINE)
#: a bot's name as its class declares it: ``public static final String NAME = "...";``
_NAME = re.compile(r"""static\s+final\s+String\s+NAME\s*=\s*"([^"\\\n]*)\"""")


@dataclass(frozen=True)
class Java(Language):
    compiled: bool = True
    named_by_class: bool = True
    binary_suffixes: tuple[str, ...] = (".jar",)

    def stored_code(self, suffix: str, data: bytes) -> bytes:
        if suffix not in self.binary_suffixes:
            return data
        if not data.startswith(JAR_MAGIC):
            raise ValueError("the file is not a jar (a zip archive, as mvn package builds it)")
        return ARMOR + base64.encodebytes(data)

    def runtime_args(self, limits: Any, config: Any) -> list[str]:
        return [
            self.runtime(config),
            f"-Xmx{limits.memory_mb}m",
            "-Xss4m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xshare:auto",
            "-XX:-UsePerfData",
            "-XX:MaxMetaspaceSize=64m",
            "-XX:CompressedClassSpaceSize=32m",
            "-XX:ReservedCodeCacheSize=32m",
            "-XX:ActiveProcessorCount=1",
            # no handlers of SIGTERM, SIGINT, SIGHUP: the JVM's ran its shutdown and exited
            # with 143, which the sandbox ends a bot for (a status that passes for a signal's),
            # so an operator's SIGTERM was the bot's crash; the sandbox's first process, it
            # now ignores them, as Node does
            "-Xrs",
            "-Djava.io.tmpdir=/tmp",
            "-cp",  # the jar, wherever it is (/sandbox/, or --no-sandbox's folder): Gson is
            # on its manifest's Class-Path
        ]

    def host_args(self, *, control: str, wipe: str | None, sandboxed: bool) -> list[str]:
        # sandboxed, the host seals its JVM before it loads the bot's class (seal.c)
        return ["card_arena.Host", *(["--seal", SEAL] if sandboxed else [])]

    def seccomp_data(self) -> dict[str, bytes]:
        from bots.sandbox.seccomp import filter_bpf

        return {"{seccomp}": filter_bpf(), "{seal}": seal_library()}

    def sandbox_binds(self) -> list[str]:
        return ["--perms", "0555", "--ro-bind-data", "{seal}", SEAL]

    def without_proc(self, runtime: list[str]) -> list[str] | None:
        # the launcher finds its libraries through /proc/self/exe ($ORIGIN) unless told
        # where they are; the JVM's other reads of /proc are settled by its flags
        home = Path(os.path.realpath(runtime[0])).parent.parent
        return ["--setenv", "LD_LIBRARY_PATH", str(home / "lib")]

    def plain_argv(
        self, host: Path, bot: Path, game: str | None, interpreter: str | None
    ) -> list[str]:
        return ["/usr/bin/java", "-cp", str(host), "card_arena.Host", str(bot)]

    def memory_extra_mb(self, limits: Any) -> int:
        return RUNTIME_MB

    def address_space_mb(self, limits: Any) -> int:
        return limits.memory_mb + RUNTIME_MB + RESERVE_MB

    def runtime_files(self, config: Any = None) -> list[str]:
        """What the sandbox's copy of the runtime holds (bots.sandbox.mirror, which adds
        the shared libraries its ELF files need, libjvm's and lib/*.so's): ``java``, the
        runtime's own files of its home (``lib``, ``conf`` and the configuration folder its
        links lead to; not the JDK's ``jmods``, headers or tools) and Gson's jar."""
        java = self.runtime(config)
        home = Path(os.path.realpath(java)).parents[1]
        conf = _conf_dir(java)
        return [java, str(home / "lib"), str(home / "conf"), GSON, *([conf] if conf else [])]

    def runtime_left_out(self, config: Any = None) -> list[str]:
        """Files of the runtime's ``lib`` no bot's JVM reads (20 MiB, a tenth of the copy's
        pages, each one a worker touches before a seating): ``ct.sym``, javac's record of
        older releases' APIs (a bot is compiled outside this copy), and
        ``classes_nocoops.jsa``, the class-data archive for heaps over 32 GiB (a bot's is
        far smaller, and its JVM maps ``classes.jsa``)."""
        lib = Path(os.path.realpath(self.runtime(config))).parents[1] / "lib"
        files = [lib / "ct.sym", lib / "server" / "classes_nocoops.jsa"]
        return [os.path.realpath(f) for f in files if f.is_file()]

    def probe_args(self) -> list[str]:
        # within the sandbox's address space, as a bot's JVM is (runtime_args)
        return ["-Xmx64m", "-XX:+UseSerialGC", "-XX:CompressedClassSpaceSize=32m", "-version"]

    def kept_file(self, code: str) -> tuple[str, bytes] | None:
        if not code.startswith(ARMOR.decode()):
            return None  # (a page of a .java file's version encodes nothing)
        return ".jar", _jar(code.encode("utf-8", "replace")) or b""

    def may_play(self, data: bytes, game: Any) -> bool:
        if _jar(data) is not None:  # a built jar: taken where the game has a kit
            return bool(_kit(game))
        text = data.decode("utf-8", "replace")
        return super().may_play(data, game) or any(
            re.search(rf"\bimplements\s+(?:[\w.]+\.)?{name}\b", text)
            for data in _kit(game).values()
            for name in _INTERFACE.findall(data.decode())
        )

    def method_name(self, method: str) -> str:
        # the host's rule (Host.java: a method's protocol name is its camelCase name made
        # snake_case), JavaScript's too: a fault names the call as the bot's file does
        return camel_case(method)

    #: javac compiles the file as its public class's (:meth:`compile_files`), and a class
    #: file keeps that name, which a stack trace's lines give: ``at MyBot.mainPlay(MyBot.java:32)``
    traced_after = "its public class"

    def traced_file(self, code: str) -> str | None:
        if _jar(code.encode()) is not None:
            return None  # (a built jar's classes name the files they were built from)
        public = _PUBLIC.search(code)
        return f"{public.group(1)}.java" if public else None

    def declared_name(self, text: str) -> str | None:
        found = _NAME.search(text)
        return found.group(1) if found else None

    def compile_files(self, bot_name: str, source: bytes, game: Any) -> dict[str, bytes]:
        kit = _kit(game)
        files = {"/src/card_arena/Host.java": self.host_source}
        files |= {f"/src/kit/{path}": data for path, data in kit.items()}
        jar = _jar(source)
        if jar is not None:  # a built jar: JarImport takes its classes and finds the bot's
            files["/src/card_arena/BotClass.java"] = _bot_class("", "")
            files[JAR_IMPORT] = (HERE / "JarImport.java").read_bytes()
            files[JAR_FILE] = jar
            return files
        text = _with_kit(source.decode("utf-8", "replace"), kit)
        public = _PUBLIC.search(text)
        own = public.group(1) if public else Path(bot_name).stem
        package = _PACKAGE.search(text)
        files["/src/card_arena/BotClass.java"] = _bot_class(
            f"{package.group(1)}.{own}" if package else own,
            "" if public else not_public(source.decode("utf-8", "replace")),
        )
        # named as its public class: javac takes no other name
        files[f"/bot/{own}.java"] = text.encode()
        return files

    def compile_script(self, files: list[str], config: Any = None, root: str = "/") -> str:
        java = self.runtime(config)
        sources = " ".join(f"{root}{name.lstrip('/')}" for name in files if name.endswith(".java"))
        # the compiler's own JVM within the compile's memory (its defaults reserve a quarter
        # of the machine's memory and a gigabyte of class space)
        jvm = "-J-Xmx768m -J-XX:CompressedClassSpaceSize=64m -J-XX:+UseSerialGC -J-Xshare:auto"
        classes = f"{root}tmp/classes"
        take = ""
        if JAR_FILE in files:  # a built jar: its classes, beside what javac made
            take = (
                f"{_tool(java, 'java')} -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 "
                f"-Xshare:auto -XX:CompressedClassSpaceSize=64m -cp {classes}:{GSON} "
                f"card_arena.JarImport "
                f"{root}{JAR_FILE.lstrip('/')} {classes} && "
                f"rm -f {classes}/card_arena/JarImport*.class && "
            )
        return (
            f"mkdir -p {classes} && {_tool(java, 'javac')} {jvm} -encoding UTF-8 "
            f"-proc:none -Xmaxerrs 10 -nowarn -cp {GSON} -d {classes} {sources} && {take}"
            f"printf 'Class-Path: {GSON}\\n' > {root}tmp/manifest && "
            f"{_tool(java, 'jar')} {jvm} --create --file {root}tmp/program "
            f"--manifest {root}tmp/manifest -C {classes} ."
        )

    def compile_tools(self, config: Any = None) -> list[str]:
        java = self.runtime(config)
        # (the JDK's tools are under /usr/lib/jvm; the script makes a folder, removes files)
        return [_tool(java, "javac"), _tool(java, "jar"), GSON, "/usr/bin/mkdir", "/usr/bin/rm"]

    def compile_binds(self) -> list[str]:
        return _binds(_conf_dir(self.runtime_default))

    def toolchain(self, config: Any = None) -> str:
        return tool_version((self.runtime(config), "-version"), stderr=True)


@cache
def seal_library() -> bytes:
    """The seal a Java bot's host loads in the sandbox (``seal.c``: a shared library whose
    JNI_OnLoad adds to every thread of the JVM the seccomp filter that refuses making pipes
    and sockets, bots.sandbox.seccomp.inode_filter_bpf). The JVM makes a socket pair of its
    own as its file channels load, so the filter cannot be there from the start, as it is for
    C++ and a Python match's process; the host loads the seal once they have, before the
    bot's class. Built once per process with the machine's C compiler (``cc``, from gcc,
    which g++ for C++ bots brings); raises SeccompUnavailable without one."""
    from bots.sandbox.seccomp import SeccompUnavailable, inode_filter_bpf

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SeccompUnavailable(
            "Java bots' sandbox builds its seal (bots/languages/java/seal.c) with a C "
            "compiler, and this machine has none: install Debian's gcc"
        )
    program = ", ".join(str(byte) for byte in inode_filter_bpf())
    header = f"static const unsigned char PROGRAM[] __attribute__((aligned(8))) = {{{program}}};\n"
    with tempfile.TemporaryDirectory(prefix="card-arena-seal-") as folder:
        Path(folder, "program.h").write_text(header)
        built = Path(folder, "libseal.so")
        argv = [compiler, "-O2", "-shared", "-fPIC", "-I", folder, "-o", str(built)]
        done = subprocess.run(
            [*argv, str(HERE / "seal.c")], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            said = done.stderr.strip().splitlines()
            raise SeccompUnavailable(
                f"{compiler} could not build Java bots' seal (bots/languages/java/seal.c): "
                + (said[-1] if said else f"exit status {done.returncode}")
            )
        # tried once, in a process of its own: a seal that does not load, or loads and lets
        # a pipe be made, is the machine's trouble, found here rather than as every Java
        # bot's failure to start
        tried = subprocess.run(
            [sys.executable, "-c", SEAL_TRIAL, str(built)], capture_output=True, text=True,
            check=False, timeout=30,
        )  # fmt: skip
        if tried.stdout.strip() != "sealed":
            said = (tried.stdout + tried.stderr).strip().splitlines()
            raise SeccompUnavailable(
                "Java bots' seal (bots/languages/java/seal.c) does not work on this machine: "
                + (said[-1] if said else f"exit status {tried.returncode}")
            )
        return built.read_bytes()


#: loads the seal as the JVM does (its JNI_OnLoad), then makes a pipe, which must be refused;
#: from a memfd, as the file it was built in may be on a file system mounted noexec (/tmp)
SEAL_TRIAL = """
import ctypes, errno, os, sys
fd = os.memfd_create("seal")
with open(sys.argv[1], "rb") as built:
    os.write(fd, built.read())
if ctypes.CDLL(f"/proc/self/fd/{fd}").JNI_OnLoad(None, None) != 0x00010008:
    sys.exit("its JNI_OnLoad failed")
try:
    os.pipe()
except OSError as refused:
    print("sealed" if refused.errno == errno.EPERM else refused)
else:
    print("a pipe was made after it loaded")
"""


def _jar(source: bytes) -> bytes | None:
    """The jar a bot's source is (its bytes, or as a version keeps it: :data:`ARMOR`), else
    None: a ``.java`` file."""
    if source.startswith(JAR_MAGIC):
        return source
    if source.startswith(ARMOR):
        try:
            return base64.decodebytes(source[len(ARMOR) :])
        except binascii.Error:
            return b""  # not a jar: JarImport says so, as the compile's message
    return None


def not_public(text: str) -> str:
    """What the host says of a bot file whose class is not public when it cannot load it (a
    class the host, in a package of its own, cannot make): its first top-level class made
    public."""
    classes = _TOP_CLASS.findall(text)
    if any("public" in words.split() for words, _ in classes):
        return ""  # (a public class after all: the loader's own words)
    if classes:
        return f'a Java bot\'s class must be public: write "public class {classes[0][1]}"'
    if _ANY_PUBLIC.search(text):
        return ""
    return "a Java bot's class must be public: this file declares no public class"


def _bot_class(qualified: str, refusal: str) -> bytes:
    """The host's word on the bot's class: its name ("": a jar's, which JarImport finds),
    and, for a file with no public class, why it cannot load it (:func:`not_public`)."""
    said = refusal.replace("\\", "\\\\").replace('"', '\\"')
    return (
        "package card_arena;\n\n// written by Card Arena: the bot's class\n"
        f'final class BotClass {{\n    static final String NAME = "{qualified}";\n'
        f'    static final String NOT_PUBLIC = "{said}";\n}}\n'
    ).encode()


def _binds(path: str | None) -> list[str]:
    return ["--ro-bind", path, path] if path and os.path.exists(path) else []


@cache
def _conf_dir(java: str) -> str | None:
    """Where the JDK's configuration lives (Debian: /etc/java-17-openjdk, linked from the
    JDK's conf/): the JVM reads it at start."""
    home = Path(os.path.realpath(java)).parents[1]
    for entry in (home / "conf").iterdir() if (home / "conf").is_dir() else []:
        if entry.is_symlink():
            return str(Path(os.path.realpath(entry)).parent)
    return None


@cache
def _tool(java: str, name: str) -> str:
    """A JDK tool beside the runtime (javac, jar), by its real path."""
    return str(Path(os.path.realpath(java)).parent / name)


def _kit(game: Any) -> dict[str, bytes]:
    """The Java classes the game gives its bots (``GameSpec.kits['java']``), by file name."""
    spec = game_spec(game)
    kit = () if spec is None else spec.kits.get("java", ())
    return {path.name: path.read_bytes() for path in kit}


def _with_kit(text: str, kit: dict[str, bytes]) -> str:
    """The bot's file, finding the game's classes whatever package it imported them from: an
    import of one of them names the package they are in here, and the file imports their
    package (and their nested classes: ``new Builder()``) on the line of its own package
    declaration, or its first line. Line numbers stay the same."""
    if not kit:
        return text
    names: dict[str, str] = {}
    extra: list[str] = []
    for data in kit.values():
        source = data.decode()
        public, package = _PUBLIC.search(source), _PACKAGE.search(source)
        if public is None or package is None or package.group(1) == HOST_PACKAGE:
            continue  # (the platform's own classes, such as the kit's adapter, stay apart)
        names[public.group(1)] = package.group(1)
        extra.append(f"import {package.group(1)}.*;")
        extra += [
            f"import {package.group(1)}.{public.group(1)}.*;" for _ in _NESTED.findall(source)[:1]
        ]

    def moved(found: re.Match[str]) -> str:
        parts = found.group(2).split(".")
        for i, part in enumerate(parts):
            if part in names:
                return f"{found.group(1)}import {names[part]}.{'.'.join(parts[i:])};"
        return found.group(0)

    text = _IMPORT.sub(moved, text)
    imports = " ".join(dict.fromkeys(extra))
    package = _PACKAGE.search(text)
    if package is not None:
        return text[: package.end()] + " " + imports + text[package.end() :]
    return imports + " " + text


LANGUAGE = Java(
    name="java",
    title="Java",
    suffixes=(".java", ".jar"),
    host=HERE / "Host.java",
    host_name="bot.jar",
    content_type="text/x-java",
    runtime_default="/usr/bin/java",
    runtime_setting="SANDBOX_JAVA",
    bot_shape="the bot's public class",
    contract_summary="one <code>.java</code> file with a public class whose methods have the "
    "contract's names in camelCase and take and return what Gson converts; compiled once "
    "with javac; a new instance for every {match}",
    marks=(
        r"^[ \t]*public[ \t]+(?:(?:final|abstract)[ \t]+)*(?:class|interface|enum)[ \t]+\w+",
        r"^package[ \t]+[\w.]+[ \t]*;",
        r"^import[ \t]+(?:static[ \t]+)?[A-Za-z_]\w*(?:\.[\w*]+)+[ \t]*;",
        r"\bSystem\.out\.print",
    ),
)
