"""What scripts/run-tests says of its pytest runs, read from their JUnit XML files.

    test_report.py counts FILE              prints "PASSED FAILED SKIPPED" (nothing if unreadable)
    test_report.py slowest N LABEL=FILE...  the N slowest tests of all the runs, with their run
    test_report.py skips LABEL=FILE...      the skipped tests of all the runs, by reason

A test's time is its setup, call and teardown together (pytest's JUnit default), so a test
that starts a site for the tests after it shows that cost.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def suites(path: str) -> list[ET.Element]:
    if not Path(path).is_file() or Path(path).stat().st_size == 0:
        return []
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        return []
    return [root] if root.tag == "testsuite" else list(root.iter("testsuite"))


def counts(path: str) -> str:
    found = suites(path)
    if not found:
        return ""
    tests = failed = skipped = 0
    for suite in found:
        tests += int(suite.get("tests", 0))
        failed += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skipped += int(suite.get("skipped", 0))
    return f"{tests - failed - skipped} {failed} {skipped}"


def test_name(case: ET.Element) -> str:
    """tests/site/test_pages.py::test_home, from JUnit's dotted class name."""
    classname, name = case.get("classname", ""), case.get("name", "")
    name = re.sub(r"@shared:[^\[\]]*$", "", name)  # pytest-xdist's group (tests/halves.py)
    parts = classname.split(".")
    # the module is the first parts that name a file; a class may follow it
    for cut in range(len(parts), 0, -1):
        if Path(*parts[:cut]).with_suffix(".py").is_file():
            return "::".join(["/".join(parts[:cut]) + ".py", *parts[cut:], name])
    return f"{classname}::{name}"


def slowest(limit: int, runs: list[str]) -> list[str]:
    rows = []
    for run in runs:
        label, _, path = run.partition("=")
        for suite in suites(path):
            for case in suite.iter("testcase"):
                rows.append((float(case.get("time") or 0), label, test_name(case)))
    rows.sort(reverse=True)
    width = max((len(label) for _, label, _ in rows[:limit]), default=0)
    return [f"{secs:7.1f}s  {label:<{width}}  {name}" for secs, label, name in rows[:limit]]


def skips(runs: list[str]) -> list[str]:
    """One line a reason tests were skipped for: how many, in which runs, and the first
    few tests (a reason that names no test, a module skipped whole, is said as it is)."""
    reasons: dict[str, list[tuple[str, str]]] = {}
    for run in runs:
        label, _, path = run.partition("=")
        for suite in suites(path):
            for case in suite.iter("testcase"):
                skipped = case.find("skipped")
                if skipped is None:
                    continue
                reason = skipped.get("message") or (skipped.text or "").strip() or "no reason"
                reason = re.sub(r"^Skipped: ", "", " ".join(reason.split()))
                reasons.setdefault(reason, []).append((label, test_name(case)))
    lines = []
    for reason, cases in sorted(reasons.items(), key=lambda item: (-len(item[1]), item[0])):
        labels = ", ".join(dict.fromkeys(label for label, _ in cases))
        names = list(dict.fromkeys(name for _, name in cases))
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        lines.append(f"{len(cases)} skipped ({labels}): {reason}: {shown}")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "counts":
        text = counts(argv[1])
        if text:
            print(text)
        return 0
    if len(argv) >= 3 and argv[0] == "slowest" and argv[1].isdigit():
        for line in slowest(int(argv[1]), argv[2:]):
            print(line)
        return 0
    if len(argv) >= 2 and argv[0] == "skips":
        for line in skips(argv[1:]):
            print(line)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
