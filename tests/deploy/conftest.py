"""A failed test of a deployment shows the logs of its processes."""

from __future__ import annotations

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    report = yield
    if report.failed:
        deployment = getattr(item, "funcargs", {}).get("deployment")
        site = getattr(deployment, "site", None)
        if site is not None and site.processes:
            report.sections.append(("processes", site.logs()))
    return report
