"""What `sessiontools cost` loads and when (issue 14, speed (b) to (d)): no pandas, genai-prices
only when a model needs a price, and work done while other processes read (``LogReads.idle``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

from sessiontools import find_logs, read_costs
from sessiontools._cost import rows as _rows
from sessiontools._cost.rows import COST_CUT_AT, LogReads
from sessiontools._parallel import cut as _cut
from sessiontools._parallel.pool import PARALLEL_FROM
from tests.helpers import SESSIONS, assistant, line, outcome, usage
from tests.parallel.splitting import cost_outcome
from tests.parallel.test_split import built_log

LOADED = """
import sys
sys.argv = ["sessiontools", "cost", *sys.argv[1:]]
from sessiontools._cli.main import main
code = main()
roots = {name.split(".")[0] for name in sys.modules}
print(code, *sorted(roots & {"pandas", "numpy", "genai_prices", "tabulate"}), file=sys.stderr)
"""


def loaded(*args: object) -> tuple[str, list[str]]:
    """Run the command in a fresh interpreter: its output, and the exit status and which of
    pandas, numpy, genai_prices and tabulate it loaded."""
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *map(str, args)],
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return done.stdout, done.stderr.splitlines()[-1].split()


def test_the_command_never_loads_pandas() -> None:
    log = SESSIONS / "02_runs_anthropic_openai_cache.jsonl"
    out, said = loaded(log, "--by", "day,model")
    assert said == ["0", "genai_prices", "numpy", "tabulate"]
    # genai-prices' answers were kept by the first run (this test's cache directory): the
    # second loads nothing of it
    _, said = loaded(log, "--format", "json")
    assert said == ["0", "numpy"]  # tabulate is for a person's formats
    assert "claude-sonnet-4-5" in out


def test_the_command_loads_dask_only_for_a_cluster() -> None:
    """Without --scheduler (nor DASK_SCHEDULER_ADDRESS), `cost` loads none of the dask extra;
    with it, the sessiontools._dask stage (checked on a scheduler that does not answer)."""
    code = textwrap.dedent("""
        import sys
        from sessiontools._cli.main import main
        from sessiontools._dask import costs
        costs.CONNECT_SECONDS = 0.5
        status = main(["cost", *sys.argv[1:]])
        roots = {name.split(".")[0] for name in sys.modules}
        print(status, *sorted(roots & {"dask", "distributed", "fsspec"}), file=sys.stderr)
    """)
    log = str(SESSIONS / "01_one_run_tool.jsonl")
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    without = code.replace("from sessiontools._dask import costs\n", "").replace(
        "costs.CONNECT_SECONDS = 0.5\n", ""
    )
    done = subprocess.run(
        [sys.executable, "-c", without, log], capture_output=True, text=True, env=env
    )
    assert done.stderr.splitlines()[-1].split() == ["0"]
    done = subprocess.run(
        [sys.executable, "-c", code, log, "--scheduler", "tcp://127.0.0.1:1"],
        capture_output=True,
        text=True,
        env=env,
    )
    said = done.stderr.splitlines()
    assert said[0].startswith("sessiontools cost: error: no Dask scheduler answered")
    assert said[-1].split()[:3] == ["1", "dask", "distributed"]


def test_genai_prices_loads_only_when_a_model_needs_a_price(tmp_path: Path) -> None:
    """Every model in the price file: genai-prices is not loaded, unless a tool's model call
    needs a provider genai-prices would match to its model (--by provider)."""
    log = tmp_path / "m.jsonl"
    log.write_bytes(
        line(0, "run_started", {"prompt": "p"})
        + line(1, "message", assistant(text="x", model="my-model", u=usage(10, 1)))
        + line(2, "run_ended", outcome(u=usage(10, 1)))
    )
    prices = tmp_path / "p.json"
    prices.write_text('{"my-model": {"input": 2, "output": 8}}')
    _, said = loaded(log, "--prices", prices, "--format", "csv")
    assert said == ["0", "numpy"]
    _, said = loaded(log, "--format", "csv")  # no price file: genai-prices prices it
    assert said == ["0", "genai_prices", "numpy"]


@pytest.mark.parametrize(("file", "loads"), [(False, True), (True, False)])
def test_warm_loads_genai_prices_data_without_a_price_file(file: bool, loads: bool) -> None:
    code = textwrap.dedent(f"""
        import sys
        from sessiontools import PriceBook, Prices
        book = PriceBook({{"m": Prices(1, 2)}} if {file} else None)
        book.warm()
        print("genai_prices.data" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == str(loads)


def test_idle_runs_once_between_this_process_s_part_and_the_child_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log read in two (a real fork): ``idle`` runs once, after this process gave its runs
    and before the child's are merged; the tables are those of one process."""
    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(12))
    monkeypatch.setattr(_cut, "SPLIT_FROM_BYTES", 0)
    monkeypatch.setattr(_cut, "available_cores", lambda: 2)
    events: list[str] = []
    for name in ("take", "merge"):
        real = getattr(_rows._Rows, name)

        def recording(self: Any, *args: Any, _real: Any = real, _name: str = name) -> Any:
            events.append(_name)
            return _real(self, *args)

        monkeypatch.setattr(_rows._Rows, name, recording)
    reads = LogReads(find_logs(path), workers=None)
    reads.idle = lambda: events.append("idle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = read_costs(reads, prices={})
    assert events == ["take", "idle", "merge"]
    one = read_costs(path, prices={}, workers=1)
    assert got.model_calls.equals(one.model_calls) and got.runs.equals(one.runs)


def test_idle_runs_once_while_the_pool_reads(tmp_path: Path) -> None:
    for i in range(PARALLEL_FROM):
        (tmp_path / f"{i:02d}.jsonl").write_bytes(
            line(0, "run_started", {"prompt": str(i)}, f"2026-10-18T09:{i:02d}:00Z")
            + line(1, "message", assistant(text="x", u=usage(10, 1)), f"2026-10-18T09:{i:02d}:01Z")
            + line(2, "run_ended", outcome(u=usage(10, 1)), f"2026-10-18T09:{i:02d}:02Z")
        )
    calls: list[int] = []
    reads = LogReads(find_logs(tmp_path), workers=2)
    reads.idle = lambda: calls.append(1)
    tables = read_costs(reads)
    assert calls == [1] and len(tables.model_calls) == PARALLEL_FROM


def test_without_other_processes_idle_is_not_called(tmp_path: Path) -> None:
    path = tmp_path / "small.jsonl"
    path.write_bytes(built_log(2))
    reads = LogReads(find_logs(path), workers=None)  # under SPLIT_FROM_BYTES: one process
    reads.idle = lambda: pytest.fail("nothing reads meanwhile")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read_costs(reads, prices={})


def test_the_cost_tables_cut_before_the_exports_cut(tmp_path: Path) -> None:
    """The cost tables leave this process a little less to read (it prices and merges
    after), so their cut is looked for from 50% of the log; the export's from 52%."""
    path = tmp_path / "built.jsonl"
    data = built_log(200)
    path.write_bytes(data)
    cost_cut = _cut.find_cut(str(path), len(data), at=COST_CUT_AT)
    export_cut = _cut.find_cut(str(path), len(data))
    assert cost_cut is not None and export_cut is not None
    assert COST_CUT_AT * len(data) <= cost_cut < export_cut


def test_tables_read_in_two_at_the_cost_cut_are_one_process_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(30))
    monkeypatch.setattr(_cut, "SPLIT_FROM_BYTES", 0)
    monkeypatch.setattr(_cut, "available_cores", lambda: 2)
    assert cost_outcome(path, None) == cost_outcome(path, 1)


def test_the_command_gives_the_garbage_collector_back() -> None:
    """The command reads with the cyclic collector waiting, and leaves it as it found it
    (click's runner runs it in this process)."""
    import gc

    from click.testing import CliRunner

    from sessiontools._cli.main import cli

    assert gc.isenabled()
    result = CliRunner().invoke(cli, ["cost", str(SESSIONS / "01_one_run_tool.jsonl")])
    assert result.exit_code == 0 and gc.isenabled()


def test_reading_in_two_here_gives_the_garbage_collector_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child's part read in this process (the tests' in-process child): the collector
    waits while it reads, and is back on after."""
    import gc

    from tests.parallel.splitting import split_here

    path = tmp_path / "built.jsonl"
    data = built_log(12)
    path.write_bytes(data)
    cut = _cut.find_cut(str(path), len(data))
    ways = split_here(monkeypatch, lambda _: cut)
    assert gc.isenabled()
    frames, _, error = cost_outcome(path, None)
    assert error is None and frames is not None and ways == ["child"]
    assert gc.isenabled()


STAGES = """
import sys
sys.argv = ["sessiontools", *sys.argv[1:]]
from sessiontools._cli.main import main
code = main()
stages = {".".join(name.split(".")[:2]) for name in sys.modules if name.startswith("sessiontools.")}
print(code, *sorted(stages), file=sys.stderr)
"""


def test_each_command_loads_only_its_own_stages() -> None:
    """`cost` loads none of the traces' modules (`_otel`) nor the senders' (`_send`): the
    command line loads a command's module when it is run (it loaded every command's, and
    `otel`'s loads its exporter and the sending settings). `otel` loads no cost module but
    the names of the groups (checked with its imports in tests/test_public_api.py)."""
    log = SESSIONS / "02_runs_anthropic_openai_cache.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", STAGES, "cost", str(log), "--format", "csv"],
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    code, *stages = done.stderr.splitlines()[-1].split()
    assert code == "0"
    assert not [s for s in stages if s in ("sessiontools._otel", "sessiontools._send")], stages
    assert "sessiontools._cost" in stages


def test_a_command_s_module_is_imported_with_signals_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """As the console script imports the command line (``sessiontools._main``): Ctrl-C and
    SIGTERM wait while a command's module is imported, and act once it is."""
    import importlib
    import signal

    import click

    from sessiontools._cli import main as cli_main

    held: list[set[signal.Signals]] = []
    real = importlib.import_module

    def importing(name: str, package: str | None = None) -> Any:
        held.append(signal.pthread_sigmask(signal.SIG_BLOCK, set()))
        return real(name, package)

    monkeypatch.setattr(cli_main.importlib, "import_module", importing)
    group = cli_main._Group("sessiontools")
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    command = group.get_command(click.Context(group), "cost")
    assert command is not None and command.name == "cost"
    assert held and {signal.SIGINT, signal.SIGTERM} <= held[0]
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == before
    assert group.get_command(click.Context(group), "nope") is None
    assert group.list_commands(click.Context(group)) == ["cost", "otel", "report"]
