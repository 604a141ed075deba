"""Regenerate the golden files: `python tests/update_golden.py` from the repository root.

For every log in testdata/sessions, the golden files are what `sessiontools otel` gives for it,
run from the repository root on its relative path:

- ``tests/golden/NAME.otlp.json``: standard output, byte for byte (when it exits 0);
- ``tests/golden/NAME.stderr``: standard error and the exit status (when it says anything).

And for two of them (``REPORTS``), what `sessiontools report` writes for it:

- ``tests/golden/NAME.report.html``: the HTML report, byte for byte. Its marks carry the
  export's span ids, so it changes whenever they do.

Read the diff of every file this rewrites before committing it: a golden file is the spec.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from click.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden"
#: The logs whose HTML report is kept (tests/html/test_report.py, GOLDEN_REPORTS).
REPORTS = ("02_runs_anthropic_openai_cache", "03_crash_while_call_runs")


def render(log: Path) -> dict[str, bytes]:
    """The golden files of one log, by file name."""
    from sessiontools._cli.main import cli

    here = Path.cwd()
    os.chdir(REPO)
    try:
        result = CliRunner().invoke(cli, ["otel", str(log.relative_to(REPO))])
    finally:
        os.chdir(here)
    files = {}
    if result.exit_code == 0:
        files[f"{log.stem}.otlp.json"] = result.stdout_bytes
    if result.stderr or result.exit_code:
        files[f"{log.stem}.stderr"] = f"exit {result.exit_code}\n{result.stderr}".encode()
    if log.stem in REPORTS:
        os.chdir(REPO)
        try:
            report = CliRunner().invoke(cli, ["report", str(log.relative_to(REPO)), "--out", "-"])
        finally:
            os.chdir(here)
        if report.exit_code != 0 or report.stderr:
            raise SystemExit(f"sessiontools report {log.name}: {report.exit_code} {report.stderr}")
        files[f"{log.stem}.report.html"] = report.stdout_bytes
    return files


def main() -> int:
    sys.path.insert(0, str(REPO))
    logs = sorted((REPO / "testdata" / "sessions").glob("*.jsonl"))
    wanted: dict[str, bytes] = {}
    for log in logs:
        wanted.update(render(log))
    GOLDEN.mkdir(exist_ok=True)
    for stale in sorted(set(p.name for p in GOLDEN.iterdir()) - set(wanted)):
        (GOLDEN / stale).unlink()
        print(f"removed {stale}")
    for name, data in wanted.items():
        path = GOLDEN / name
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
            print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
