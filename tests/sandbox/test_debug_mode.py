"""``arena --no-sandbox`` runs a bot file as the sandbox runs it: the same interpreter, the
same importable modules, the same files visible. Each bot below plays one Last Card game in
the real sandbox and then through ``debug_launch``; both must end the same way (the same
fault kind and the same reason, once the private folder's path is taken out)."""

from __future__ import annotations

import json
import re
import textwrap
import time
from pathlib import Path

import pytest

from bots.languages import get_language
from bots.languages.python import FILE_GUARD_ENV
from bots.running.launch import bot_launch, debug_launch
from bots.running.process import BotProcess, BotStartError, Launch, ProcessAgent
from bots.sandbox import SandboxConfig, sandbox_launch
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner, TimeControl
from games.registry import get_game

LAST_CARD = get_game("last-card")
TC = TimeControl(move=2.0, bank=5.0, startup=10.0)
PASS = 'return {"cards": [], "suit": None, "last_card": False}'

BOTS = {
    "uses_numpy.py": "import numpy\n",
    "beside.py": (
        "import json, os\n"
        "TABLE = json.load(open(os.path.join(os.path.dirname(__file__), 'kuhn.json')))\n"
    ),
    "relative.py": "TABLE = open('kuhn.json').read()\n",
    "absolute.py": "TABLE = open(__KUHN__).read()\n",
    "system.py": "TABLE = open('/etc/hostname').read()\n",
    "writes.py": "import os\nopen(os.path.join(os.path.dirname(__file__), 'out.txt'), 'w')\n",
    "uses_django.py": "import django\n",
    "lists.py": "import os\nSEEN = os.listdir('/'), os.listdir('/usr'), os.listdir('.')\n",
    "writes_root.py": "open('/out.txt', 'w')\n",
    "scratch.py": "import tempfile\nwith tempfile.TemporaryFile() as f:\n    f.write(b'x')\n",
    "movecheck_user.py": "import movecheck\nfrom movecheck import PASS as CHECKED\n",
}
#: what each fails with, in the sandbox and out of it (None: it plays without a fault)
EXPECTED = {
    "uses_numpy.py": ("startup", "ModuleNotFoundError: No module named 'numpy'"),
    "beside.py": ("startup", "FileNotFoundError: [Errno 2] No such file or directory: '/bot/"),
    "relative.py": ("startup", "FileNotFoundError: [Errno 2] No such file or directory: 'kuhn"),
    "absolute.py": ("startup", "FileNotFoundError: [Errno 2] No such file or directory: '/"),
    "system.py": ("startup", "FileNotFoundError: [Errno 2] No such file or directory: '/etc"),
    "writes.py": ("startup", "OSError: [Errno 30] Read-only file system: '/bot/out.txt'"),
    "uses_django.py": ("startup", "ModuleNotFoundError: No module named 'django'"),
    "lists.py": None,
    "writes_root.py": ("startup", "OSError: [Errno 30] Read-only file system: '/out.txt'"),
    "scratch.py": None,
    "movecheck_user.py": None,
}
JS_BOT = """
const fs = require('fs');
const table = __READ__;
module.exports = {play(state) { return {cards: [], suit: null, last_card: false}; }};
"""
JS_READS = {
    "beside.js": "fs.readFileSync(__dirname + '/kuhn.json', 'utf8')",
    "relative.js": "fs.readFileSync('kuhn.json', 'utf8')",
    "module.js": "require('./kuhn.json')",
}


def write_bot(folder: Path, name: str) -> Path:
    """The bot NAME in ``folder``, beside a kuhn.json it may try to read."""
    folder.mkdir(exist_ok=True)
    kuhn = folder / "kuhn.json"
    kuhn.write_text(json.dumps({"J": 0}))
    if name.endswith(".js"):
        source = JS_BOT.replace("__READ__", JS_READS[name])
    else:
        head = BOTS[name].replace("__KUHN__", repr(str(kuhn)))
        source = head + f"\n\nclass Bot:\n    def play(self, state):\n        {PASS}\n"
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def play_one(launch: Launch, log: Path) -> tuple[str, str] | None:
    """One Last Card game of the bot (seat 0) against three naive built-ins: its fault."""
    process = BotProcess(launch, label="bot", stderr_log=log)
    agent = ProcessAgent(process, LAST_CARD.bot_call, startup_timeout=TC.startup)
    naive = [
        InProcessAgent(LAST_CARD.builtin_class("naive"), LAST_CARD.bot_call, f"n{i}")
        for i in range(3)
    ]
    with process:
        state = LAST_CARD.state_class.new(5, num_seats=4)
        outcome = MatchRunner(time.monotonic, TC).run(state, [agent, *naive], seed=5)
    fault = outcome.faults.get(0)
    return None if fault is None else (fault.kind, fault.reason)


def without_private_folder(reason: str) -> str:
    return re.sub(r"/[^'\s]*/arena-debug-[^/'\s]+", "", reason)


@pytest.mark.parametrize("name", [*BOTS, *JS_READS])
def test_a_bot_ends_the_same_with_and_without_the_sandbox(
    tmp_path: Path, sandbox_config: SandboxConfig, name: str
):
    path = write_bot(tmp_path / "bots", name)
    sandboxed = play_one(
        sandbox_launch(path, game=LAST_CARD, config=sandbox_config), tmp_path / "in.log"
    )
    plain = play_one(debug_launch(path, game=LAST_CARD), tmp_path / "out.log")
    if name.endswith(".js"):
        assert sandboxed is not None and sandboxed[0] == "startup"
        assert "ENOENT" in sandboxed[1] or "Cannot find module" in sandboxed[1], sandboxed
    else:
        expected = EXPECTED[name]
        assert (sandboxed is None) == (expected is None), sandboxed
        if expected is not None:
            assert sandboxed is not None and sandboxed[0] == expected[0]
            assert expected[1] in sandboxed[1], sandboxed
    assert plain is None or sandboxed is not None, plain
    if plain is not None:
        plain = (plain[0], without_private_folder(plain[1]))
    assert plain == sandboxed


def test_it_runs_the_sandboxs_interpreter_in_a_private_folder_it_removes(tmp_path: Path):
    path = tmp_path / "where.py"
    path.write_text(
        textwrap.dedent(f"""
        import os, sys
        print("seen:", sys.executable, sys.flags.isolated, sys.flags.no_site, os.getcwd(),
              sorted(os.listdir(os.path.dirname(__file__))), sorted(os.environ),
              file=sys.stderr)

        class Bot:
            def play(self, state):
                {PASS}
        """)
    )
    launch = debug_launch(path, game=LAST_CARD)
    config = SandboxConfig()
    python = get_language("python").runtime(config)
    assert launch.argv[0] == config.prlimit and python in launch.argv
    assert FILE_GUARD_ENV in launch.env
    folder = Path(launch.env["HOME"]).parent
    assert (folder / "bot" / "movecheck.py").is_file()
    assert play_one(launch, tmp_path / "where.log") is None
    seen = (tmp_path / "where.log").read_text()
    line = next(x for x in seen.splitlines() if x.startswith("seen:"))
    assert f"seen: {python} 1 1 {folder / 'tmp'} ['movecheck.py', 'where.py']" in line
    # the host takes the guard's variable away before the bot is loaded
    assert "['HOME', 'LANG', 'PATH', 'TMPDIR']" in line
    assert not folder.exists()


def test_the_same_bot_file_limits_hold_without_the_sandbox(tmp_path: Path):
    big = tmp_path / "big.py"
    big.write_text("#" * (2 << 20))
    with pytest.raises(BotStartError, match="over 1 MiB"):
        debug_launch(big, game=LAST_CARD)
    link = tmp_path / "link.py"
    link.symlink_to(big)
    with pytest.raises(BotStartError, match="cannot open the bot file"):
        bot_launch(link, game=LAST_CARD, sandboxed=False)


def test_it_says_which_interpreter_is_missing(tmp_path: Path):
    path = write_bot(tmp_path, "movecheck_user.py")
    with pytest.raises(BotStartError, match="/nowhere/python3 is missing: --no-sandbox runs"):
        debug_launch(
            path, game=LAST_CARD, config=SandboxConfig(runtimes={"python": "/nowhere/python3"})
        )
