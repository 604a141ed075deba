"""The cost frames read on a real Dask cluster (issue 16): ``sessiontools.dask.read_costs`` on a
``LocalCluster`` of two worker processes on 127.0.0.1 equals the pandas ``read_costs`` of the
same logs (row for row once sorted by the index, dtypes and categories included), with copies
of a session spread over partitions, damaged logs with and without ``skip_damaged``, gzip logs
and ``file://`` URLs; and ``sessiontools cost --scheduler`` writes what the command writes
without it, byte for byte."""

from __future__ import annotations

import gzip
import shutil
import socket
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dask
import pandas as pd
import pytest
from click.testing import CliRunner
from distributed import Client

import sessiontools
import sessiontools.dask
from sessiontools import DamagedLogError
from sessiontools._cli.main import cli
from sessiontools._dask import costs as _costs
from sessiontools._dask import parts as _parts
from tests.dask.clusters import local_cluster, stop_resource_tracker
from tests.helpers import SESSIONS

FULL = SESSIONS / "02_runs_anthropic_openai_cache.jsonl"
DAMAGED = SESSIONS / "05_damaged_middle_line.jsonl"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    with (
        local_cluster(tmp_path_factory.mktemp("dask-workers")) as cluster,
        Client(cluster) as client,
    ):
        yield client
    stop_resource_tracker()


def _lines(path: Path, n: int) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:n])


@pytest.fixture
def copies(tmp_path: Path) -> list[Path]:
    """A session given four times, in four places of the order: a copy taken mid-run (its
    second run has model calls but has not ended), a copy taken before the second run's first
    model call (no first call yet: a prefix of that run), the sample logs (the session itself
    among them), and a byte copy after them. Every run counts once, from the read that goes
    furthest, placed where it was first read."""
    early = tmp_path / "a_early.jsonl"
    early.write_bytes(_lines(FULL, 15))
    before_call = tmp_path / "b_before_call.jsonl"
    before_call.write_bytes(_lines(FULL, 12))
    again = tmp_path / "z_again.jsonl"
    shutil.copy(FULL, again)
    return [early, before_call, SESSIONS, again]


def _pandas(logs: Any, **options: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tables = sessiontools.read_costs(logs, **options)
    return tables, [str(w.message) for w in caught]


def _dask(client: Client, logs: Any, **options: Any) -> tuple[Any, Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frames = sessiontools.dask.read_costs(logs, client=client, **options)
    return frames, frames.compute(), [str(w.message) for w in caught]


def _assert_same(got: Any, want: Any) -> None:
    for name in ("model_calls", "runs", "tool_calls"):
        a, b = getattr(got, name), getattr(want, name)
        # exact: dtypes, categories (values and order), NA, index
        pd.testing.assert_frame_equal(a, b, check_exact=True, check_categorical=True)
        for column in a.columns:
            if isinstance(a[column].dtype, pd.CategoricalDtype):
                assert a[column].dtype == b[column].dtype, column
    assert got.skipped == want.skipped
    assert got.copies == want.copies
    assert got.warnings == want.warnings


@pytest.mark.parametrize("files_per_partition", [1, 3])
def test_equal_to_pandas_with_copies_spread_over_partitions(
    client: Client, copies: list[Path], files_per_partition: int
) -> None:
    want, want_said = _pandas(copies, skip_damaged=True)
    frames, got, said = _dask(
        client, copies, skip_damaged=True, files_per_partition=files_per_partition
    )
    n_logs = 3 + len(list(SESSIONS.glob("*.jsonl")))
    assert frames.partitions == -(-n_logs // files_per_partition)
    _assert_same(got, want)
    assert said == want_said
    # the session's runs, read in four logs (with files_per_partition=1, four partitions), count
    # once each: the first, whole in the mid-run copy already, from that copy (the first read
    # on a tie); the second from the session, which goes furthest; the others only it holds
    names = ["a_early", "b_before_call", "02_runs_anthropic_openai_cache", "z_again"]
    runs = got.runs[got.runs["conversation_id"].isin(names)]
    assert len(runs) == 5
    assert runs["run_identity"].is_unique
    assert list(runs["session"]) == [str(copies[0])] + [str(FULL)] * 4
    assert set(got.copies) >= {str(copies[0]), str(copies[1]), str(copies[3])}
    # each frame's index is the row's place in the pandas frame
    calls = frames.model_calls.compute()
    assert sorted(calls.index) == list(range(len(want.model_calls)))


def test_the_read_that_goes_furthest_counts_where_first_read(
    client: Client, tmp_path: Path
) -> None:
    """The copy taken mid-run is first, alone in its partition; the whole session comes in a
    later partition: its rows count (the second run's end, its calls), in the place of the
    first read, as pandas has it."""
    early = tmp_path / "early.jsonl"
    early.write_bytes(_lines(FULL, 15))
    logs = [early, SESSIONS / "01_one_run_tool.jsonl", FULL]
    want, _ = _pandas(logs)
    _, got, _ = _dask(client, logs, files_per_partition=1)
    _assert_same(got, want)
    sessions = [str(early), str(FULL), str(logs[1]), str(FULL), str(FULL), str(FULL)]
    assert list(got.runs["session"]) == sessions
    assert got.copies == (str(early),)


def test_run_identity_is_the_same_column_in_both(client: Client) -> None:
    want, _ = _pandas(FULL)
    _, got, _ = _dask(client, FULL)
    identity = sessiontools.read_session(FULL).runs[1]
    from sessiontools._model.identity import run_identity

    assert got.runs["run_identity"][1] == run_identity(identity).hex()
    assert list(got.runs["run_identity"]) == list(want.runs["run_identity"])
    assert got.runs["run_identity"].dtype == want.runs["run_identity"].dtype == "string"


def test_damaged_log_raises_as_pandas_names_it(client: Client) -> None:
    logs = [SESSIONS / "01_one_run_tool.jsonl", DAMAGED, FULL]
    with pytest.raises(DamagedLogError) as local:
        sessiontools.read_costs(logs)
    with pytest.raises(DamagedLogError) as remote:
        sessiontools.dask.read_costs(logs, client=client, files_per_partition=1)
    assert str(remote.value) == str(local.value)
    assert "05_damaged_middle_line.jsonl: line 17 (byte 5294)" in str(remote.value)


def test_damaged_log_skipped_as_pandas_skips_it(client: Client) -> None:
    logs = [SESSIONS / "01_one_run_tool.jsonl", DAMAGED, FULL]
    want, _ = _pandas(logs, skip_damaged=True)
    _, got, _ = _dask(client, logs, skip_damaged=True, files_per_partition=2)
    _assert_same(got, want)
    assert [s.name for s in got.skipped] == [str(DAMAGED)]


def test_a_log_that_cannot_be_read_is_skipped_or_raised(client: Client, tmp_path: Path) -> None:
    gone = tmp_path / "gone.jsonl"
    gone.write_bytes(FULL.read_bytes())
    frames = sessiontools.dask.read_costs(
        [gone, FULL], client=client, skip_damaged=True, files_per_partition=1
    )
    assert frames.skipped == ()  # listed and read
    source = _costs.find_sources(gone)[0]
    assert source.url == str(gone)
    part = _parts.read_part([(0, source)], {}, _costs._prices_token(sessiontools.PriceBook()))
    gone.unlink()
    part = _parts.read_part([(0, source)], {}, _costs._prices_token(sessiontools.PriceBook()))
    assert isinstance(part.logs[0].error, FileNotFoundError)


def test_gzip_logs(client: Client, tmp_path: Path) -> None:
    for path in sorted(SESSIONS.glob("0[1-4]*.jsonl")):
        (tmp_path / (path.name + ".gz")).write_bytes(gzip.compress(path.read_bytes()))
    want, _ = _pandas(tmp_path)
    _, got, _ = _dask(client, tmp_path, files_per_partition=2)
    _assert_same(got, want)
    assert len(got.model_calls) > 0


def test_file_urls_are_read_through_fsspec(client: Client, tmp_path: Path) -> None:
    for path in sorted(SESSIONS.glob("0[1-3]*.jsonl")):
        shutil.copy(path, tmp_path / path.name)
    want, _ = _pandas(tmp_path)
    url = tmp_path.as_uri()
    for given in (url, url + "/*.jsonl"):
        _, got, _ = _dask(client, given, files_per_partition=1)
        for name in ("model_calls", "runs", "tool_calls"):
            a, b = getattr(got, name), getattr(want, name)
            # named by their URLs; all else as pandas has it
            assert list(a["session"]) == ["file://" + s for s in b["session"]]
            pd.testing.assert_frame_equal(a.drop(columns="session"), b.drop(columns="session"))


def test_a_url_that_names_nothing(client: Client, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no log at file://"):
        sessiontools.dask.read_costs(tmp_path.as_uri() + "/*.jsonl", client=client)
    with pytest.raises(FileNotFoundError, match=r"no \*\.jsonl or \*\.jsonl\.gz log in"):
        sessiontools.dask.read_costs(tmp_path.as_uri(), client=client)


def test_prices_book_made_once_per_worker(client: Client, tmp_path: Path) -> None:
    """Eight partitions on two workers with a price file: each worker makes one book for those
    prices, not one per partition. A price file prices $2 and $8 per million input and output
    tokens: 01's one turn, 1,500 input and 200 output tokens (tests/helpers' sample), is not
    needed here: the frames equal pandas' with the same file."""
    prices = tmp_path / "p.json"
    prices.write_text('{"claude-sonnet-4-5": {"input": 2, "output": 8}}')
    logs = sorted(SESSIONS.glob("0[1-9]*.jsonl"))
    logs.remove(DAMAGED)
    before = client.run(_parts.books_made)
    want, _ = _pandas(logs, prices=prices)
    _, got, _ = _dask(client, logs, prices=prices, files_per_partition=1)
    _assert_same(got, want)
    after = client.run(_parts.books_made)
    assert sum(after.values()) - sum(before.values()) <= len(after)  # one new book a worker
    assert "prices file" in set(got.model_calls["price_source"].dropna())


def test_no_client_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import distributed

    def none() -> Any:
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "default_client", none)
    with pytest.raises(ValueError, match="no Dask client"):
        sessiontools.dask.read_costs(FULL)


def test_files_per_partition_must_be_positive(client: Client) -> None:
    with pytest.raises(ValueError, match="files_per_partition"):
        sessiontools.dask.read_costs(FULL, client=client, files_per_partition=0)


def test_a_file_object_is_refused(client: Client) -> None:
    with FULL.open("rb") as f, pytest.raises(TypeError, match="by path or URL"):
        sessiontools.dask.read_costs([f], client=client)  # type: ignore[list-item]


# --- sessiontools cost --scheduler -------------------------------------------------------


def _run(*args: str, env: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    runner = CliRunner()
    done = runner.invoke(cli, list(args), env=env)
    return done.exit_code, done.stdout_bytes, done.stderr_bytes


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown"])
def test_cost_on_the_cluster_writes_what_the_command_writes(
    client: Client, copies: list[Path], fmt: str
) -> None:
    paths = [str(p) for p in copies]
    by = "label,model" if fmt == "table" else "session,day"
    local = _run("cost", *paths, "--format", fmt, "--by", by)
    remote = _run(
        "cost", *paths, "--format", fmt, "--by", by, "--scheduler", client.scheduler.address
    )
    assert remote == local
    assert local[0] == 1  # the damaged sample log: skipped, said, exit 1
    assert b"were copies of other logs" in local[2]


def test_cost_on_the_cluster_with_a_price_file_since_and_out(
    client: Client, tmp_path: Path
) -> None:
    """A price file that leaves prices out (the note under the table), --since, --tz and --out:
    the same files and lines as without the cluster."""
    prices = tmp_path / "prices.json"
    prices.write_text('{"claude-sonnet-4-5": {"input": 3}, "gpt-4.1": {"input": 2, "output": 8}}')
    args = ["cost", str(SESSIONS), "--prices", str(prices), "--since", "2026-10-15"]
    args += ["--tz", "Europe/Berlin", "--by", "week,provider"]
    local = _run(*args, "--out", str(tmp_path / "local.txt"))
    remote = _run(
        *args, "--out", str(tmp_path / "remote.txt"), "--scheduler", client.scheduler.address
    )
    assert remote == local
    assert (tmp_path / "remote.txt").read_bytes() == (tmp_path / "local.txt").read_bytes()
    assert b"prices.json gives no" in (tmp_path / "local.txt").read_bytes()


def test_dask_scheduler_address_from_the_environment(client: Client) -> None:
    local = _run("cost", str(SESSIONS), "--format", "csv")
    remote = _run(
        "cost",
        str(SESSIONS),
        "--format",
        "csv",
        env={"DASK_SCHEDULER_ADDRESS": client.scheduler.address},
    )
    assert remote == local


def test_scheduler_local_writes_what_the_command_writes(tmp_path: Path) -> None:
    local = _run("cost", str(SESSIONS), "--by", "day,model", "--max-cost", "0.01")
    remote = _run(
        "cost", str(SESSIONS), "--by", "day,model", "--max-cost", "0.01", "--scheduler", "local"
    )
    assert remote == local, remote[2].decode()
    assert local[1].startswith(b"day")


def test_a_bad_scheduler_address_is_a_usage_error() -> None:
    code, out, err = _run("cost", str(FULL), "--scheduler", "no address here")
    assert (code, out) == (2, b"")
    assert err.count(b"\n") == 1 and b"is not a scheduler address" in err
    code, _, err = _run("cost", str(FULL), "--scheduler", "gopher://127.0.0.1:8786")
    assert code == 2 and b"unknown address scheme" in err and err.count(b"\n") == 1


def test_a_refused_connection_fails_at_once() -> None:
    """Nothing listens at port 1: it waited the full 10 s, then exited 1. Now at once."""
    started = time.monotonic()
    code, out, err = _run("cost", str(FULL), "--scheduler", "tcp://127.0.0.1:1")
    took = time.monotonic() - started
    assert (code, out) == (1, b"")
    assert err == (
        b"sessiontools cost: error: no Dask scheduler answered at tcp://127.0.0.1:1 "
        b"(connection refused); start one (dask scheduler) or check the address\n"
    )
    assert took < 2.0, took


def test_a_scheduler_that_does_not_answer_is_waited_for_as_dask_says() -> None:
    """Something accepts the connection but never answers (a scheduler still busy starting,
    or not a scheduler): it is waited for Dask's ``distributed.comm.timeouts.connect``, here
    1 s, then one line and exit 1."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
        with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
            started = time.monotonic()
            code, out, err = _run("cost", str(FULL), "--scheduler", address)
            took = time.monotonic() - started
    assert (code, out) == (1, b"")
    assert err.startswith(f"sessiontools cost: error: no Dask scheduler answered at {address} "
                          "within 1 s (".encode())  # fmt: skip
    assert b"distributed.comm.timeouts.connect" in err
    assert err.count(b"\n") == 1 and b"Traceback" not in err
    assert 1.0 <= took < 5.0, took


def test_a_host_that_does_not_resolve_fails_at_once() -> None:
    code, out, err = _run("cost", str(FULL), "--scheduler", "tcp://no-such-host.invalid:8786")
    assert (code, out) == (1, b"")
    said = b"no Dask scheduler answered at tcp://no-such-host.invalid:8786 (cannot resolve the"
    assert err.startswith(b"sessiontools cost: error: " + said)
    assert err.count(b"\n") == 1


def test_standard_input_is_not_read_on_a_cluster(client: Client) -> None:
    code, out, err = _run("cost", "-", "--scheduler", client.scheduler.address)
    assert (code, out) == (2, b"")
    assert b"cannot be read on a cluster" in err


def test_a_path_that_names_nothing_on_a_cluster(client: Client, tmp_path: Path) -> None:
    address = client.scheduler.address
    code, _, err = _run("cost", str(tmp_path / "none.jsonl"), "--scheduler", address)
    assert code == 2 and b"no log at" in err


# --- from a new user's trial of the engine ------------------------------------------------


def test_no_logs_give_empty_frames_as_pandas(client: Client) -> None:
    """``read_costs([])`` raised ``KeyError: 'model_calls.source'``; pandas gives empty frames."""
    want, _ = _pandas([])
    frames, got, _ = _dask(client, [])
    assert frames.partitions == 1
    assert len(got.model_calls) == len(got.runs) == len(got.tool_calls) == 0
    _assert_same(got, want)


def test_a_session_is_refused_as_a_file_object_is(client: Client) -> None:
    """A ``Session`` is iterable (its runs): it gave "'Session' object is not iterable"."""
    session = sessiontools.read_session(FULL)
    with pytest.raises(TypeError, match="by path or URL, not Session"):
        sessiontools.dask.read_costs(session, client=client)  # type: ignore[arg-type]


def test_files_per_partition_takes_numpy_integers(client: Client) -> None:
    import numpy as np

    frames, _, _ = _dask(client, [FULL, FULL], files_per_partition=np.int64(1))
    assert frames.partitions == 2
    with pytest.raises(ValueError, match="files_per_partition"):
        sessiontools.dask.read_costs(FULL, client=client, files_per_partition=True)


def test_a_large_log_is_a_partition_of_its_own() -> None:
    """A log that would take a partition past its bytes starts the next one: [a, B, c, d] with
    B of the partition's bytes or more is [a], [B], [c, d] (it was [a, B], [c, d])."""
    from sessiontools._dask.sources import StoredLog, partitions

    def log(name: str, size: int) -> StoredLog:
        return StoredLog(name, "/" + name, size, None)

    logs = [log("a", 2_500), log("b", 70 << 20), log("c", 10), log("d", 10)]
    groups = partitions(logs, 256)
    assert [[s.name for _, s in g] for g in groups] == [["a"], ["b"], ["c", "d"]]
    assert [p for g in groups for p, _ in g] == [0, 1, 2, 3]
    # under the bytes, logs share a partition up to the count
    small = [log(str(i), 1_000) for i in range(5)]
    assert [len(g) for g in partitions(small, 2)] == [2, 2, 1]
    # two logs that together pass the bytes are two partitions
    half = [log("x", 40 << 20), log("y", 40 << 20)]
    assert [len(g) for g in partitions(half, 256)] == [1, 1]


def test_scheduler_addresses_that_cannot_work_are_usage_errors() -> None:
    """A port out of range waited 10 s and exited 1; inproc:// said 'not enough values to
    unpack'. Both are addresses no other process can reach: exit 2 at once, one line."""
    for address, says in (
        ("tcp://127.0.0.1:99999", b"Port out of range"),
        ("inproc://x", b"does not reach a scheduler from another process"),
    ):
        code, out, err = _run("cost", str(FULL), "--scheduler", address)
        assert (code, out) == (2, b""), err
        assert err.count(b"\n") == 1 and says in err and b"Traceback" not in err


def test_scheduler_none_reads_here_whatever_the_environment_says() -> None:
    """``DASK_SCHEDULER_ADDRESS`` set for other programs could not be turned off for one
    command: ``--scheduler none`` reads here (nothing listens at port 1: without it, exit 1)."""
    env = {"DASK_SCHEDULER_ADDRESS": "tcp://127.0.0.1:1"}
    local = _run("cost", str(SESSIONS), "--format", "csv")
    assert _run("cost", str(SESSIONS), "--format", "csv", env=env)[0] == 1
    assert _run("cost", str(SESSIONS), "--format", "csv", "--scheduler", "none", env=env) == local
    assert _run("cost", str(SESSIONS), "--format", "csv", "--scheduler", "none") == local


@pytest.mark.parametrize("command", ["cost", "otel"])
@pytest.mark.parametrize("given", ["garbage", "-5s", "0"])
@pytest.mark.parametrize("scheduler", ["local", "tcp://127.0.0.1:1"])
def test_a_bad_connect_wait_is_one_line_naming_the_setting(
    command: str, given: str, scheduler: str
) -> None:
    """The wait the README names (DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT) set to something
    that is not a duration of more than 0 s. A new user's trial: 57 lines of traceback
    (``KeyError: 'Invalid time unit: garbage'``) with an address; with ``local``, 11 s, then
    "cannot start a local cluster: no scheduler within 120 s"; 0 waited 30 s. Now a usage
    error at once, naming the variable, before any cluster starts."""
    args = [command, str(FULL), "--scheduler", scheduler]
    if command == "otel":
        args += ["--endpoint", "http://127.0.0.1:9/v1/traces"]
    with dask.config.set({"distributed.comm.timeouts.connect": given}):
        started = time.monotonic()
        code, out, err = _run(*args)
        took = time.monotonic() - started
    assert (code, out) == (2, b"")
    assert err.count(b"\n") == 1 and b"Traceback" not in err, err
    assert b"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT" in err and repr(given).encode() in err
    assert took < 5.0, took


@pytest.mark.parametrize("command", ["cost", "otel"])
@pytest.mark.parametrize(
    "address",
    ["tcp://a..b:1", "tcp://.:1", "tcp://" + "a" * 64 + ".com:1", "ucx://127.0.0.1:8786"],
)
def test_an_address_dask_cannot_use_is_a_usage_error(command: str, address: str) -> None:
    """A host name with an empty or too long label (the idna codec refuses it) and ucx://
    (listed by Dask, unusable without its extra): a new user's trial got 65 to 77 lines of
    traceback (UnicodeError, ``TypeError: Can't instantiate abstract class UCXConnector``)."""
    args = [command, str(FULL), "--scheduler", address]
    if command == "otel":
        args += ["--endpoint", "http://127.0.0.1:9/v1/traces"]
    code, out, err = _run(*args)
    assert (code, out) == (2, b""), err
    assert err.count(b"\n") == 1 and b"Traceback" not in err, err
    assert b"is not a scheduler address" in err and b"--scheduler" in err


@pytest.mark.parametrize("address", ["tcp://user:s3cret@127.0.0.1:1", "user:s3cret@127.0.0.1:1"])
def test_a_password_in_the_address_is_not_shown(address: str) -> None:
    """A password in the address (tcp://user:secret@host) was repeated in the error line."""
    code, _, err = _run("cost", str(FULL), "--scheduler", address)
    assert code == 2 and err.count(b"\n") == 1
    assert b"s3cret" not in err and b"user:***@127.0.0.1:1" in err


def test_a_scheduler_that_does_not_answer_is_said_once() -> None:
    """The line said the wait twice: "within 1 s (no answer within 1 s)"."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
        with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
            code, _, err = _run("cost", str(FULL), "--scheduler", address)
    assert code == 1 and err.count(b"within") == 1, err


def test_a_partitions_frames_are_made_by_one_task(client: Client, copies: list[Path]) -> None:
    """The three frames of a partition are made on its worker by one task, not one a frame
    (the scheduler and the gather pay by the task: 10,000 small logs in 40 partitions were 120
    tasks and 120 keys gathered); ``compute`` runs no task, it gathers; the frames still equal
    the pandas ones."""
    from distributed import get_task_stream

    want, _ = _pandas(copies, skip_damaged=True)
    with get_task_stream(client) as stream:
        frames, got, _ = _dask(client, copies, skip_damaged=True, files_per_partition=2)
    keys = [str(task["key"]) for task in stream.data]
    read = ("sessiontools-read-part-", "summaries-", "kept_values-")
    assert sum(k.startswith("sessiontools-read-part-") for k in keys) == frames.partitions
    making = [k for k in keys if not k.startswith(read)]
    assert len(making) == frames.partitions > 1, keys
    assert len(frames.futures) == frames.partitions
    _assert_same(got, want)


@pytest.mark.parametrize("command", ["cost", "otel"])
def test_a_bad_address_from_the_environment_names_the_variable(command: str) -> None:
    """DASK_SCHEDULER_ADDRESS=garbage was said as "Invalid value for --scheduler", a flag the
    user never gave (a new user's trial); the flag given says the flag alone."""
    args = [command, str(FULL)]
    if command == "otel":
        args += ["--endpoint", "http://127.0.0.1:9/v1/traces"]
    code, out, err = _run(*args, env={"DASK_SCHEDULER_ADDRESS": "garbage"})
    assert (code, out) == (2, b"") and err.count(b"\n") == 1
    assert b"--scheduler (from DASK_SCHEDULER_ADDRESS): 'garbage' is not a scheduler" in err
    code, _, err = _run(*args, "--scheduler", "garbage")
    assert code == 2 and b"Invalid value for --scheduler: 'garbage'" in err
