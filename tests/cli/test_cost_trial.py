"""Defects a new user's trial of `sessiontools cost` found (after issue 14), each with the
input that showed it, through click's runner.

``one_call`` writes the trial's one-call log: a labels entry (when labels are given), a run of
one user message and one assistant turn of the given model, provider and usage, and its end.
"""

from __future__ import annotations

import json
import unicodedata
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from sessiontools import SessionToolsWarning, read_costs
from sessiontools._cost.report import escape_text
from sessiontools._log.reader import printable
from tests.cli.test_cost_cli import as_json, invoke, ok, one_error_line, write


def one_call(
    model: str, provider: str, usage: dict[str, int], labels: list[str] | None = None
) -> bytes:
    """The trial's `mk FILE MODEL PROVIDER USAGE_JSON [LABELS_JSON]`, as bytes."""
    lines: list[dict[str, Any]] = []
    at = "2026-10-18T10:00:00Z"
    if labels is not None:
        lines.append(
            {"seq": 0, "time": at, "type": "labels", "labels": {"labels": labels, "source": "seed"}}
        )
    text = [{"type": "text", "text": "ok"}]
    lines += [
        {"seq": 1, "time": at, "type": "run_started", "run_started": {"prompt": "hi"}},
        {
            "seq": 2,
            "time": at,
            "type": "message",
            "message": {
                "message": {"role": "user", "parts": [{"type": "text", "text": "hi"}]},
                "usage": {"input_tokens": 0, "output_tokens": 0},
            },
        },
        {
            "seq": 3,
            "time": "2026-10-18T10:00:01Z",
            "type": "message",
            "message": {
                "message": {
                    "role": "assistant",
                    "parts": text,
                    "native": {"provider": provider, "model": model, "data": {}},
                },
                "stop": "end_turn",
                "usage": usage,
                "model": model,
            },
        },
        {
            "seq": 4,
            "time": "2026-10-18T10:00:01Z",
            "type": "run_ended",
            "run_ended": {"reason": "completed", "text": "ok", "turns": 1, "usage": usage},
        },
    ]
    return b"".join(json.dumps(entry).encode() + b"\n" for entry in lines)


SONNET_1000_100 = one_call(
    "claude-sonnet-4-5", "anthropic", {"input_tokens": 1000, "output_tokens": 100}
)


# -- 1. --max-cost compares exactly -----------------------------------------------------------


def test_max_cost_equal_to_the_exact_total_passes(tmp_path: Path) -> None:
    """claude-sonnet-4-5 at $3 input and $15 output per million tokens: 1000 input and 100
    output tokens cost 1000 * 3/1e6 + 100 * 15/1e6 = 0.003 + 0.0015 = $0.0045 exactly (the
    float sum of the two products is 0.0045000000000000005). Equal passes; a limit one
    hundred-millionth of a dollar below fails."""
    log = write(tmp_path, "eq.jsonl", SONNET_1000_100)
    ok(log, "--max-cost", "0.0045")
    ok(log, "--max-cost", "0.004500000")
    line = one_error_line(invoke(log, "--max-cost", "0.00449999"), 3)
    assert line == (
        "sessiontools cost: error: the total cost $0.004500 is above the limit of "
        "$0.00449999 (--max-cost)"
    )


def test_a_call_s_cost_is_the_float_nearest_its_exact_cost(tmp_path: Path) -> None:
    """The same call: its cost_usd is the float nearest $0.0045, which is float('0.0045')
    (not 0.0045000000000000005, the sum of two rounded products)."""
    log = write(tmp_path, "eq.jsonl", SONNET_1000_100)
    calls = read_costs(log).model_calls
    assert calls["cost_usd"].tolist()[-1] == 0.0045
    document = as_json(log)
    assert document["total_cost_usd"] == 0.0045


def test_max_cost_adds_many_calls_exactly(tmp_path: Path) -> None:
    """A price file at $100,000 per million input tokens ($0.1 a token); three runs of one
    call of 1 input token each: 3 * 0.1 = $0.3 exactly, though 0.1 + 0.1 + 0.1 in floats is
    0.30000000000000004. --max-cost 0.3 passes; 0.2999 fails."""
    prices = tmp_path / "p.json"
    prices.write_text(json.dumps({"m-1": {"input": 100000, "output": 0}}))
    logs = [
        write(
            tmp_path,
            f"{i}.jsonl",
            one_call("m-1", "acme", {"input_tokens": 1}).replace(
                b'"prompt": "hi"', f'"prompt": "hi {i}"'.encode()
            ),
        )
        for i in range(3)
    ]
    assert as_json(*logs, "--prices", prices)["total"]["calls"] == 3
    ok(*logs, "--prices", prices, "--max-cost", "0.3")
    ok(*logs, "--prices", prices, "--max-cost", "3e-1")
    one_error_line(invoke(*logs, "--prices", prices, "--max-cost", "0.2999"), 3)


# -- 2. no tokens of an unknown model cost 0 -------------------------------------------------


def test_no_tokens_of_an_unknown_model_cost_nothing_and_are_priced(tmp_path: Path) -> None:
    """acme-llm-1 has no price anywhere, but the call counted no tokens: 0 tokens at any
    price cost $0 (docs/costs.md: a count of zero never makes NaN). Priced; under a budget
    of $0 (0 <= 0)."""
    log = write(
        tmp_path,
        "zero.jsonl",
        one_call("acme-llm-1", "acme", {"input_tokens": 0, "output_tokens": 0}),
    )
    document = as_json(log)
    assert document["total_cost_usd"] == 0.0
    assert document["lower_bound"] is False and document["unpriced_models"] == []
    ok(log, "--max-cost", "0")
    calls = read_costs(log).model_calls
    assert calls["cost_usd"].tolist() == [0.0] and calls["priced"].tolist() == [True]
    assert Decimal(0) == Decimal(str(calls["cost_usd"].iloc[0]))


# -- 4. invisible format characters are escaped ----------------------------------------------

#: Every character of Unicode's category Cf (format) this Python knows, and the tag block.
FORMAT_CHARS = [
    chr(c)
    for c in range(0x110000)
    if unicodedata.category(chr(c)) == "Cf" or 0xE0000 <= c <= 0xE007F
]


@pytest.mark.parametrize("escape", [printable, escape_text])
def test_every_invisible_format_character_is_escaped(escape: Any) -> None:
    """U+200B (zero-width space) in "pri\\u200bvate" would show as "private"; U+061C, the
    Arabic letter mark, reorders text; a tag character hides text. Each Cf character comes
    out as its escape, \\uXXXX or \\U000XXXXX, and nothing else is left invisible."""
    assert escape("pri\u200bvate") == "pri\\u200bvate"
    assert escape("a\u061cb") == "a\\u061cb"
    assert escape("x\U000e0041y") == "x\\U000e0041y"
    assert escape("\u00ad\ufeff\u2060\u180e") == "\\xad\\ufeff\\u2060\\u180e"
    for c in FORMAT_CHARS:
        code = ord(c)
        want = (
            f"\\x{code:02x}"
            if code < 0x100
            else (f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        )
        assert escape(f"a{c}b") == f"a{want}b", hex(code)
    assert escape("plain text, ascii") == "plain text, ascii"
    assert escape("日本語 café") == "日本語 café"  # visible text as it is


def test_a_model_named_with_a_zero_width_space_shows_it(tmp_path: Path) -> None:
    """The table and markdown show the hidden character as \\u200b; json keeps the text."""
    log = write(
        tmp_path,
        "zw.jsonl",
        one_call("pri\u200bvate", "acme", {"input_tokens": 1}),
    )
    table = invoke(log).stdout
    assert "pri\\u200bvate" in table and "pri\u200bvate" not in table
    assert "pri\\u200bvate" in invoke(log, "--format", "markdown").stdout
    assert as_json(log)["groups"][0]["model"] == "pri\u200bvate"


# -- 3. labels agentloop refuses, and the calls with no label --------------------------------


def two_sessions(tmp_path: Path, label: str) -> list[Path]:
    """A session whose label is ``label`` (claude-haiku-4-5, 100 + 10 tokens) and one with
    no label (claude-sonnet-4-5, 1000 + 100 tokens)."""
    return [
        write(
            tmp_path,
            "labelled.jsonl",
            one_call(
                "claude-haiku-4-5", "anthropic", {"input_tokens": 100, "output_tokens": 10}, [label]
            ),
        ),
        write(tmp_path, "none.jsonl", SONNET_1000_100.replace(b'"hi"}}', b'"hey"}}', 1)),
    ]


@pytest.mark.parametrize("label", ["(none)", "-", ""])
def test_a_label_spelled_like_no_label_is_its_own_group(tmp_path: Path, label: str) -> None:
    """claude-haiku-4-5 at $1/$5 per million: 100 * 1/1e6 + 10 * 5/1e6 = $0.00015 under the
    label; claude-sonnet-4-5's 1000 + 100 tokens, $0.0045, under no label. Two groups, not one
    of $0.00465: in json the calls with no label are null, the label is itself; the table
    shows the label in double quotes and the calls without as (none); one warning."""
    logs = two_sessions(tmp_path, label)
    result = invoke(*logs, "--by", "label", "--format", "json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    groups = {g["label"]: g for g in document["groups"]}
    assert set(groups) == {label, None}
    assert groups[label]["cost_usd"] == pytest.approx(0.00015, rel=1e-12)
    assert groups[None]["cost_usd"] == pytest.approx(0.0045, rel=1e-12)
    warnings = result.stderr.splitlines()
    assert warnings == [
        f"sessiontools cost: warning: {logs[0]}: 1 label that agentloop refuses ({label!r}): "
        "counted as written; tables show such a label in double quotes, apart from (none), "
        "the calls with no label"
    ]
    table = invoke(*logs, "--by", "label").stdout
    cells = [line.split("  ")[0] for line in table.splitlines()[2:4]]
    assert cells == [json.dumps(label), "(none)"]
    with pytest.warns(SessionToolsWarning, match="1 label that agentloop refuses"):
        frame = read_costs(logs).model_calls
    from sessiontools import cost_by

    by_label = cost_by(frame, "label")
    assert by_label["label"].iloc[0] == label and by_label["label"].isna().tolist() == [
        False,
        True,
    ]


def test_refused_labels_are_named_once_per_log_and_cut(tmp_path: Path) -> None:
    """A 2,000-byte label, one with an ESC and two more: one warning for the log, naming three
    (the long one cut to 40 characters and its size), "and 1 more"; nothing for valid labels."""
    long = "b" * 2000
    log = write(
        tmp_path,
        "hostile.jsonl",
        one_call(
            "claude-haiku-4-5",
            "anthropic",
            {"input_tokens": 1},
            [long, "evil\x1b[31m", "Upper", "ok:label", "x y"],
        ),
    )
    result = invoke(log, "--by", "label")
    assert result.exit_code == 0
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"sessiontools cost: warning: {log}: 4 labels that agentloop refuses (")
    assert f"'{'b' * 40}... (2000 bytes)'" in line and "and 1 more" in line
    assert "\x1b" not in result.stderr and "ok:label" not in line
    fine = write(tmp_path, "fine.jsonl", one_call("claude-haiku-4-5", "anthropic", {}, ["a:b"]))
    ok(fine, "--by", "label")  # no warning


# -- 5. display width and long names ---------------------------------------------------------


def cells_at(line: str) -> list[tuple[int, int]]:
    """Where each cell of a table line starts and ends, in terminal columns (cells are apart
    by two spaces or more; a wide character takes two columns, a combining mark none)."""
    import re

    from wcwidth import wcswidth

    return [
        (wcswidth(line[: m.start()]), wcswidth(line[: m.end()]))
        for m in re.finditer(r"\S+(?: \S+)*", line)
    ]


def test_wide_and_combining_names_line_up(tmp_path: Path) -> None:
    """Models named in CJK (two columns a character), with an emoji, and with combining
    accents (none): every row's numbers start at the same terminal column as the header's,
    and the bar's bars line up."""
    names = ["项目阿波罗模型", "rocket-🚀🚀", "cafe\u0301-e\u0301e\u0301", "plain-model"]
    logs = [
        write(
            tmp_path,
            f"{i}.jsonl",
            one_call(name, "acme", {"input_tokens": 1}).replace(
                b'"hi"}}', f'"hi{i}"}}}}'.encode(), 1
            ),
        )
        for i, name in enumerate(names)
    ]
    prices = tmp_path / "p.json"
    prices.write_text(json.dumps({n: {"input": 1 + i} for i, n in enumerate(names)}))
    text = invoke(*logs, "--prices", prices).stdout
    lines = text.splitlines()
    header = cells_at(lines[0])
    for line in lines[2 : 3 + len(names)]:  # the groups and the totals row
        row = cells_at(line)
        assert row[0][0] == 0 and len(row) == len(header), line
        # numbers to the right: each ends where its header does
        assert [end for _, end in row[1:]] == [end for _, end in header[1:]], line
    bar = lines[lines.index("") + 2 :]
    assert len(bar) == len(names)
    assert len({cells_at(line)[1][0] for line in bar}) == 1, bar  # the bars start together


def test_long_names_are_cut_in_tables_and_whole_in_json(tmp_path: Path) -> None:
    """A model id of 100,000 characters and a 2,000-byte label: table and markdown lines stay
    under 400 characters (the name cut to 100 columns, ending in …); json and csv keep them."""
    model = "m" * 100_000
    log = write(
        tmp_path,
        "long.jsonl",
        one_call(model, "acme", {"input_tokens": 1}, ["l" * 2000]),
    )
    for fmt in ("table", "markdown"):
        text = invoke(log, "--by", "label,model", "--format", fmt).stdout
        assert max(len(line) for line in text.splitlines()) < 400, fmt
        assert "m" * 99 + "…" in text and "m" * 101 not in text
    document = json.loads(invoke(log, "--by", "label,model", "--format", "json").stdout)
    assert document["groups"][0]["model"] == model
    assert document["groups"][0]["label"] == "l" * 2000
    assert model in invoke(log, "--format", "csv").stdout


def test_a_long_session_name_keeps_its_end(tmp_path: Path) -> None:
    """A log 150 characters deep: the table shows …, then its last 99 characters (the file's
    name)."""
    deep = tmp_path / ("d" * 120)
    deep.mkdir()
    log = write(deep, "the-log.jsonl", SONNET_1000_100)
    text = invoke(log, "--by", "session").stdout
    shown = str(log)[-99:]
    assert "…" + shown in text and str(log) not in text


# -- 6. the library's arguments --------------------------------------------------------------


def test_cost_by_takes_a_tzinfo(tmp_path: Path) -> None:
    """The call at 2026-10-18T10:00:01Z: 12:00 in Berlin (UTC+2 in October), the 18th either
    way; the frame says which zone, by name. timezone.utc is UTC; a fixed +02:00 is Etc/GMT-2
    (POSIX's sign); an offset of 90 minutes has no IANA zone: TypeError."""
    import datetime
    import zoneinfo

    from sessiontools import cost_by

    calls = read_costs(write(tmp_path, "eq.jsonl", SONNET_1000_100)).model_calls
    for tz, name in [
        (zoneinfo.ZoneInfo("Europe/Berlin"), "Europe/Berlin"),
        (datetime.UTC, "UTC"),
        (datetime.timezone(datetime.timedelta(hours=2)), "Etc/GMT-2"),
        ("Europe/Berlin", "Europe/Berlin"),
    ]:
        frame = cost_by(calls, "day", tz=tz)
        assert frame.attrs["tz"] == name and frame["day"].tolist() == ["2026-10-18"]
    for bad in (datetime.timezone(datetime.timedelta(minutes=90)), 2, None):
        with pytest.raises(TypeError, match="tz must be a time zone's name"):
            cost_by(calls, "day", tz=bad)  # type: ignore[arg-type]


def test_cost_report_refuses_bounds_that_are_no_time(tmp_path: Path) -> None:
    import pandas as pd

    from sessiontools import cost_report

    log = write(tmp_path, "eq.jsonl", SONNET_1000_100)
    with pytest.raises(TypeError, match="since must be a datetime"):
        cost_report(log, since=123)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="until must be a datetime"):
        cost_report(log, until=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="since is NaT, not a time"):
        cost_report(log, since=pd.NaT)
    import datetime

    # a date is its midnight in the zone: the call at 10:00:01Z is on the 18th, not the 19th
    assert cost_report(log, since=datetime.date(2026, 10, 18)).frame["calls"].tolist() == [1]
    assert cost_report(log, since=datetime.date(2026, 10, 19)).frame["calls"].tolist() == []


def test_cost_by_a_frame_that_is_not_model_calls_says_so(tmp_path: Path) -> None:
    from sessiontools import cost_by

    tables = read_costs(write(tmp_path, "eq.jsonl", SONNET_1000_100))
    with pytest.raises(ValueError, match=r"cost_by groups a model_calls frame") as caught:
        cost_by(tables.runs, "model")
    assert "'model'" in str(caught.value) and "session, run, label" in str(caught.value)
    with pytest.raises(ValueError, match="cannot group by 'nope'"):
        cost_by(tables.runs, "nope")


# -- 7. CSV ----------------------------------------------------------------------------------


def test_csv_unpriced_models_split_back_and_booleans_read_as_json(tmp_path: Path) -> None:
    """Two unpriced models, one with ';' and ',' in its id: the cell is a JSON array that
    json.loads splits back exactly; lower_bound is true/false, as in json."""
    import csv
    import io

    logs = [
        write(tmp_path, "a.jsonl", one_call("acme;v2,x", "acme", {"input_tokens": 1})),
        write(
            tmp_path,
            "b.jsonl",
            one_call("acme", "acme", {"input_tokens": 1}).replace(b'"hi"}}', b'"yo"}}', 1),
        ),
    ]
    rows = list(
        csv.DictReader(io.StringIO(invoke(*logs, "--by", "session", "--format", "csv").stdout))
    )
    assert [json.loads(r["unpriced_models"]) for r in rows] == [["acme;v2,x"], ["acme"]]
    assert [r["lower_bound"] for r in rows] == ["true", "true"]
    priced = write(tmp_path, "c.jsonl", SONNET_1000_100)
    (row,) = csv.DictReader(io.StringIO(invoke(priced, "--format", "csv").stdout))
    assert row["unpriced_models"] == "[]" and row["lower_bound"] == "false"
    assert float(row["cost_usd"]) == 0.0045


# -- 8. priced_as says where the price came from ---------------------------------------------


def test_priced_as_groups_by_price_source_too(tmp_path: Path) -> None:
    """gpt-5 priced by a price file at $100 per million input and output tokens: 1000 + 10
    tokens cost 1010 * 100/1e6 = $0.101; gpt-5-2025-08-07, which the file does not name, is
    genai-prices' gpt-5 at $1.25 input and $10 output: 1000 * 1.25/1e6 + 10 * 10/1e6 =
    0.00125 + 0.0001 = $0.00135. Two groups named gpt-5, told apart by price_source."""
    prices = tmp_path / "p.json"
    prices.write_text(json.dumps({"gpt-5": {"input": 100, "output": 100}}))
    usage = {"input_tokens": 1000, "output_tokens": 10}
    logs = [
        write(tmp_path, "a.jsonl", one_call("gpt-5", "openai", usage)),
        write(
            tmp_path,
            "b.jsonl",
            one_call("gpt-5-2025-08-07", "openai", usage).replace(b'"hi"}}', b'"yo"}}', 1),
        ),
    ]
    document = as_json(*logs, "--by", "priced_as", "--prices", prices)
    got = {(g["price_source"], g["priced_as"]): g["cost_usd"] for g in document["groups"]}
    assert got == {
        ("genai-prices", "gpt-5"): pytest.approx(0.00135, rel=1e-12),
        ("prices file", "gpt-5"): pytest.approx(0.101, rel=1e-12),
    }
    # without a price file both are genai-prices' gpt-5: one group, as the grouping is for
    document = as_json(*logs, "--by", "priced_as")
    assert [(g["price_source"], g["priced_as"], g["calls"]) for g in document["groups"]] == [
        ("genai-prices", "gpt-5", 2)
    ]


# -- 9. a count past 2^64 -------------------------------------------------------------------


def test_a_count_past_2_to_the_64_is_out_of_range(tmp_path: Path) -> None:
    """18446744073709551616 (2^64) is a whole number, too large for a signed 64-bit integer
    (orjson reads it as a float): the message says out of range and names the limit."""
    data = one_call("claude-haiku-4-5", "anthropic", {"input_tokens": 1}).replace(
        b'"usage": {"input_tokens": 1}, "model"',
        b'"usage": {"input_tokens": 18446744073709551616}, "model"',
    )
    assert b"18446744073709551616" in data
    line = one_error_line(invoke(write(tmp_path, "over.jsonl", data)), 1)
    assert "message.usage.input_tokens is 1.8446744073709552e+19, outside a signed 64-bit " in line
    assert "(-9223372036854775808 to 9223372036854775807)" in line and "not an integer" not in line
    half = data.replace(b"18446744073709551616", b"1.5")
    line = one_error_line(invoke(write(tmp_path, "half.jsonl", half)), 1)
    assert "message.usage.input_tokens is a number, not an integer" in line


# -- 10. what the command says ---------------------------------------------------------------


def test_prices_help_says_the_unit() -> None:
    text = " ".join(invoke("--help").stdout.split())
    assert "Prices by model id (JSON or TOML), in US dollars per million tokens" in text


def test_an_empty_no_color_does_not_turn_colour_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """no-color.org: NO_COLOR set to a non-empty string turns colour off; empty does not."""
    import io

    from sessiontools._cli import cost as _cli

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("NO_COLOR", "")
    assert _cli._colour(Tty())
    monkeypatch.setenv("NO_COLOR", "0")
    assert not _cli._colour(Tty())


def test_a_reader_that_goes_away_is_told_about_the_output(tmp_path: Path) -> None:
    """`sessiontools cost ... | head -1` (the pipe closed early): the message says the output,
    not an export; exit status 1."""
    import subprocess
    import sys

    logs = [
        write(
            tmp_path, f"{i}.jsonl", SONNET_1000_100.replace(b'"hi"}}', f'"hi{i}"}}}}'.encode(), 1)
        )
        for i in range(300)
    ]
    reader = subprocess.Popen(["head", "-c", "1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    got = subprocess.run(
        [sys.executable, "-m", "sessiontools", "cost", *map(str, logs), "--by", "session"],
        stdout=reader.stdin,
        stderr=subprocess.PIPE,
        check=False,
        timeout=300,
    )
    assert reader.stdin is not None
    reader.stdin.close()
    reader.wait()
    assert got.returncode == 1, got.stderr
    assert got.stderr.decode() == (
        "sessiontools cost: error: stdout was closed before the output was written\n"
    )


def test_the_progress_bar_waits_for_long_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal: nothing while reading takes under a second (two small logs), the bar
    once it has taken one with logs left (counting those read), and never for one log."""
    import io

    from sessiontools._cli import messages

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    now = [0.0]
    for seconds, want in ((0.2, False), (1.5, True)):
        stream = Tty()
        monkeypatch.setattr(messages.sys, "stderr", stream)
        now[0] = 0.0
        with messages._progress(3, clock=lambda: now[0]) as step:
            assert step is not None
            step("a")
            now[0] = seconds
            step("b")
            step("c")
        assert ("reading logs" in stream.getvalue()) is want, (seconds, stream.getvalue())
    stream = Tty()
    monkeypatch.setattr(messages.sys, "stderr", stream)
    with messages._progress(1) as step:
        assert step is None


def test_the_budget_line_names_long_and_many_models_shortly(tmp_path: Path) -> None:
    """A model id of 100,000 characters and seven more unpriced models: the --max-cost line
    names five, the long one cut to 100 columns, and "and 3 more"."""
    logs = [
        write(
            tmp_path,
            f"{i}.jsonl",
            one_call(name, "acme", {"input_tokens": 1}).replace(
                b'"hi"}}', f'"hi{i}"}}}}'.encode(), 1
            ),
        )
        for i, name in enumerate(["a" * 100_000, *(f"acme-{k}" for k in range(7))])
    ]
    line = one_error_line(invoke(*logs, "--max-cost", "1"), 3)
    assert len(line) < 600
    assert "a" * 99 + "…, acme-0, acme-1, acme-2, acme-3 and 3 more" in line
