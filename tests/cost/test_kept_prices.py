"""genai-prices' answers kept between runs (``sessiontools._cost.kept``) and the cache
directory (``sessiontools._cachedir``): a book that answers from what an earlier book kept
prices exactly as one that asks genai-prices, without asking it; a damaged, foreign or
unwritable file costs only speed; concurrent writers lose nothing.
"""

from __future__ import annotations

import json
import math
import os
import stat
import subprocess
import sys
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontools import PriceBook, SessionToolsWarning, Usage
from sessiontools._cachedir import cache_dir
from sessiontools._cost import kept as kept_module
from sessiontools._cost import price_book
from sessiontools._cost.kept import KeptLookups, genai_prices_identity
from tests.cost.test_prices import MODELS, usages

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
IDENTITY = genai_prices_identity()
assert IDENTITY is not None  # genai-prices is a dependency


def ns(when: datetime) -> int:
    return (when - EPOCH) // timedelta(microseconds=1) * 1000


#: (provider, model, time): every kind of answer genai-prices gives the book.
QUESTIONS = [
    *(
        (provider, model, ns(datetime(year, month, 15, hour, 10, tzinfo=UTC)))
        for provider, model in MODELS
        for year, month in ((2025, 3), (2025, 7), (2026, 4), (2026, 9), (2026, 10))
        for hour in (0, 3, 7, 12, 20)
    ),
    ("github-copilot", "gpt-4o", ns(datetime(2026, 1, 1, tzinfo=UTC))),  # known, no price
    ("", "no-such-model-at-all", ns(datetime(2026, 1, 1, tzinfo=UTC))),  # unknown id
    ("no-such-provider", "gpt-5", ns(datetime(2026, 1, 1, tzinfo=UTC))),  # unknown provider
    ("openai", "no-such-model", ns(datetime(2026, 1, 1, tzinfo=UTC))),
    ("openai", "text-embedding-3-small", ns(datetime(2026, 1, 1, tzinfo=UTC))),  # no output price
]


#: When the tests that need one time ask for prices.
MAY_2026 = ns(datetime(2026, 5, 1, tzinfo=UTC))


def kept_at(path: Path) -> KeptLookups:
    assert IDENTITY is not None
    return KeptLookups(str(path), IDENTITY)


def priced_and_kept(file: Path) -> PriceBook:
    """A book kept in ``file`` that priced gpt-5 and kept what genai-prices answered."""
    book = PriceBook(kept=kept_at(file))
    book.table("openai", "gpt-5", MAY_2026)
    book.keep()
    return book


def answers(book: PriceBook) -> list[Any]:
    got: list[Any] = []
    for provider, model, t in QUESTIONS:
        got.append(book.table(provider, model, t))
        got.append(book.whole_day(provider, model, t))
        got.append(book.provider(model, t))
    return got


def test_a_kept_book_answers_as_genai_prices_without_asking_it(tmp_path: Path) -> None:
    file = tmp_path / "kept.json"
    want = answers(PriceBook())
    writer = PriceBook(kept=kept_at(file))
    assert answers(writer) == want
    assert writer.lookups > 0
    assert not file.exists()  # written once, when the command's prices are known
    writer.keep()
    assert file.exists()
    reader = PriceBook(kept=kept_at(file))
    assert reader._kept is not None and reader._kept.loaded
    assert answers(reader) == want
    assert reader.lookups == 0  # genai-prices was not asked once
    # a price of every kind the tables hold, with its exact rates
    tables = [t for t in want if t is not None and not isinstance(t, bool | str)]
    assert any(len(t.tiers) > 1 for t in tables)  # long-context tiers
    assert any(t.tiers[0].request for t in tables)  # perplexity's per-request fee
    assert any(math.isnan(t.tiers[0].output) for t in tables)  # a price not known
    assert any(t.priced_as != t.model for t in tables)  # dated ids


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    model=st.sampled_from(MODELS),
    usage=usages(),
    times=st.lists(
        st.datetimes(
            min_value=datetime(2025, 1, 1),
            max_value=datetime(2027, 1, 1),
            timezones=st.just(UTC),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_kept_costs_are_genai_prices_costs(
    tmp_path: Path, model: tuple[str, str], usage: Usage, times: list[datetime]
) -> None:
    """Whatever was kept before (other times of the same model, of other periods and other
    segments of the day), a kept book's cost is the one genai-prices' answers make."""
    provider, model_id = model
    file = tmp_path / f"kept-{os.getpid()}-{abs(hash((model, tuple(times))))}.json"
    fresh = PriceBook()
    first = PriceBook(kept=kept_at(file))
    for when in times[:-1]:
        first.cost_usd(provider, model_id, ns(when), usage)
    first.keep()
    again = PriceBook(kept=kept_at(file))
    for when in times:
        want = fresh.cost_usd(provider, model_id, ns(when), usage)
        got = again.cost_usd(provider, model_id, ns(when), usage)
        assert got == want or (math.isnan(got) and math.isnan(want)), (when, got, want)
        assert again.table(provider, model_id, ns(when)) == fresh.table(
            provider, model_id, ns(when)
        )
    file.unlink(missing_ok=True)


def test_the_file_holds_exact_rates(tmp_path: Path) -> None:
    file = tmp_path / "kept.json"
    book = PriceBook(kept=kept_at(file))
    t = MAY_2026
    table = book.table("anthropic", "claude-sonnet-4-5", t)
    assert table is not None
    book.keep()
    data = json.loads(file.read_text())
    assert data["format"] == kept_module.FORMAT and data["genai_prices"] == IDENTITY
    kept = data["models"]["anthropic\0claude-sonnet-4-5"]
    tiers = kept["tables"]["0"]["tiers"]
    assert [tier[0] for tier in tiers] == [0, 200_000]
    exact = table.tiers[1].exact
    assert exact is not None
    assert tiers[1][1:] == [
        str(exact.input),
        str(exact.output),
        str(exact.cache_read),
        str(exact.cache_write),
        str(exact.request),
    ]
    # the long-context input price, by hand: $6 per million tokens
    assert float(tiers[1][1]) == pytest.approx(6 / 1e6, rel=1e-12)
    assert stat.S_IMODE(file.stat().st_mode) == 0o600


DAMAGED = [
    b"",
    b"not json",
    b'{"format": 1',
    b"[]",
    b"{}",
    b'{"format": 999, "genai_prices": "%s", "models": {}, "providers": {}}',
    b'{"format": 1, "genai_prices": "someone-else", "models": {}, "providers": {}}',
    b'{"format": 1, "genai_prices": "%s", "models": {"no-nul": {"changes": [], "cuts": [], '
    b'"tables": {}}}, "providers": {}}',
    b'{"format": 1, "genai_prices": "%s", "models": {"openai\\u0000gpt-5": {"changes": [], '
    b'"cuts": [], "tables": {"0": {"priced_as": "gpt-5", "tiers": [[true, "1", "1", "1", "1", '
    b'"0"]]}}}}, "providers": {}}',
    b'{"format": 1, "genai_prices": "%s", "models": {"openai\\u0000gpt-5": {"changes": [], '
    b'"cuts": [], "tables": {"0": {"priced_as": "gpt-5", "tiers": [[0, "NaN", "1", "1", "1", '
    b'"0"]]}}}}, "providers": {}}',
    b'{"format": 1, "genai_prices": "%s", "models": {"openai\\u0000gpt-5": {"changes": [], '
    b'"cuts": [], "tables": {"0": {"priced_as": "gpt-5", "tiers": [[5, "1", "1", "1", "1", '
    b'"0"]]}}}}, "providers": {}}',
    b'{"format": 1, "genai_prices": "%s", "models": {"openai\\u0000gpt-5": {"changes": [3, 1], '
    b'"cuts": [], "tables": {}}}, "providers": {}}',
    b'{"format": 1, "genai_prices": "%s", "models": {"openai\\u0000gpt-5": {"changes": [], '
    b'"cuts": [], "tables": {"0": {"priced_as": "gpt-5", "tiers": [[0, "x", "1", "1", "1", '
    b'"0"]]}}}}, "providers": {}}',
    b'{"format": 1, "genai_prices": "%s", "models": {}, "providers": {"gpt-5": 7}}',
    b"\xff\xfe\x00garbage",
]


@pytest.mark.parametrize("content", DAMAGED)
def test_a_damaged_or_foreign_file_is_ignored_and_replaced(tmp_path: Path, content: bytes) -> None:
    assert IDENTITY is not None
    file = tmp_path / "kept.json"
    file.write_bytes(content.replace(b"%s", IDENTITY.encode()))
    kept = kept_at(file)
    assert not kept.loaded
    book = PriceBook(kept=kept)
    t = MAY_2026
    assert book.table("openai", "gpt-5", t) == PriceBook().table("openai", "gpt-5", t)
    assert book.lookups == 1
    book.keep()
    again = kept_at(file)  # a sound file in its place
    assert again.loaded
    assert PriceBook(kept=again).table("openai", "gpt-5", t) == PriceBook().table(
        "openai", "gpt-5", t
    )


def test_an_unwritable_place_costs_only_speed(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    book = PriceBook(kept=kept_at(blocker / "kept.json"))  # its directory is a file
    t = MAY_2026
    assert book.table("openai", "gpt-5", t) == PriceBook().table("openai", "gpt-5", t)
    assert book.provider("claude-haiku-4-5", t) == "anthropic"
    book.keep()
    assert list(tmp_path.iterdir()) == [blocker]


def test_a_lookup_that_warned_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = tmp_path / "kept.json"
    t = MAY_2026
    monkeypatch.setattr(price_book, "_probe", lambda *args: None)  # "not a price per token"
    for _ in range(2):
        book = PriceBook(kept=kept_at(file))
        with pytest.warns(SessionToolsWarning, match="not a price per token"):
            assert book.table("openai", "gpt-5", t) is None
        book.keep()
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert PriceBook(kept=kept_at(file)).table("openai", "gpt-5", t) is not None


def test_a_price_file_still_wins_over_kept_answers(tmp_path: Path) -> None:
    from sessiontools import Prices

    file = tmp_path / "kept.json"
    t = MAY_2026
    priced_and_kept(file)
    mine = Prices(input=1.0, output=2.0, cache_read=None, cache_write=None)
    book = PriceBook({"gpt-5": mine}, kept=kept_at(file))
    table = book.table("openai", "gpt-5", t)
    assert table is not None and table.source == "prices file"
    # and genai-prices off means off, kept or not
    assert PriceBook(genai_prices=False, kept=kept_at(file)).table("openai", "gpt-5", t) is None


WRITER = """
import sys
from datetime import UTC, datetime, timedelta
from sessiontools import PriceBook
from sessiontools._cost.kept import KeptLookups
path, digest, models = sys.argv[1], sys.argv[2], sys.argv[3:]
epoch = datetime(1970, 1, 1, tzinfo=UTC)
t = (datetime(2026, 5, 1, tzinfo=UTC) - epoch) // timedelta(microseconds=1) * 1000
book = PriceBook(kept=KeptLookups(path, digest))
for model in models:
    book.table("", model, t)
book.keep()
"""


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    assert IDENTITY is not None
    file = tmp_path / "kept.json"
    groups = [
        ["gpt-5", "o3", "gpt-4o"],
        ["claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-6"],
        ["deepseek-chat", "deepseek-reasoner", "sonar-pro"],
        ["gpt-5-mini", "gpt-5-nano", "gpt-4.1"],
    ]
    children = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(file), IDENTITY, *models])
        for models in groups
    ]
    assert [child.wait(timeout=120) for child in children] == [0] * len(groups)
    data = json.loads(file.read_text())
    assert sorted(data["models"]) == sorted(f"\0{m}" for models in groups for m in models)
    assert sorted(data["providers"]) == sorted(m for models in groups for m in models)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_the_digest_follows_the_installed_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "genai_prices"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "data.py").write_text("providers = []\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "genai_prices")  # find_spec would give the loaded one's
    first = genai_prices_identity()
    assert first is not None and first != IDENTITY
    assert genai_prices_identity() == first
    os.utime(package / "data.py", ns=(1, 1))  # another install, or an edit
    assert genai_prices_identity() not in (first, None)
    (package / "data.py").write_text("providers = [] \n")
    assert genai_prices_identity() not in (first, None)
    now = genai_prices_identity()
    monkeypatch.setattr(kept_module, "FORMAT", kept_module.FORMAT + 1)  # another file shape
    assert genai_prices_identity() not in (now, None)


def test_no_genai_prices_no_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert genai_prices_identity() is None


# -- the cache directory -----------------------------------------------------------------------


def test_cache_dir_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_dir("prices") == str(tmp_path / "mine" / "prices")
    assert stat.S_IMODE((tmp_path / "mine" / "prices").stat().st_mode) == 0o700
    monkeypatch.setenv("SESSIONTOOLS_NO_CACHE", "1")
    assert cache_dir("prices") is None
    monkeypatch.setenv("SESSIONTOOLS_NO_CACHE", "")
    assert cache_dir("prices") is not None
    monkeypatch.delenv("SESSIONTOOLS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir("prices") == str(tmp_path / "xdg" / "sessiontools" / "prices")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored (XDG)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir("prices") == str(tmp_path / "home" / ".cache" / "sessiontools" / "prices")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir("prices") == str(tmp_path / "home" / ".cache" / "sessiontools" / "prices")


def test_cache_dir_refuses_what_it_cannot_trust(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # others may write there: templates kept as code would not be safe
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(shared))
    assert cache_dir("prices") is None
    file = tmp_path / "file"
    file.write_text("")
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(file))
    assert cache_dir("prices") is None
    monkeypatch.setattr(os, "getuid", lambda: os.stat(tmp_path).st_uid + 1)
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(tmp_path / "someone-elses"))
    assert cache_dir("prices") is None


def test_installed_is_none_when_the_cache_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSIONTOOLS_NO_CACHE", "1")
    assert KeptLookups.installed() is None


def test_the_file_is_read_when_first_needed(tmp_path: Path) -> None:
    """Made before the logs are read (``sessiontools report`` decides its cut with
    ``exists``), read only when a price is asked: nothing of it costs before then."""
    file = tmp_path / "kept.json"
    t = MAY_2026
    early = kept_at(file)
    assert not early.exists()
    priced_and_kept(file)  # another command keeps it
    assert early.exists()
    book = PriceBook(kept=early)
    assert book.table("openai", "gpt-5", t) == PriceBook().table("openai", "gpt-5", t)
    assert book.lookups == 0 and early.loaded


# -- what a new user's trial found (session 9) -------------------------------------------------


def test_a_umask_that_lets_the_group_write_still_makes_a_private_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(tmp_path / "new" / "cache"))
    old = os.umask(0o002)
    try:
        got = cache_dir("prices")
    finally:
        os.umask(old)
    assert got == str(tmp_path / "new" / "cache" / "prices")
    for made in (tmp_path / "new" / "cache", tmp_path / "new" / "cache" / "prices"):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700


def test_an_untrusted_cache_directory_is_left_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(shared))
    assert cache_dir("prices") is None
    assert list(shared.iterdir()) == []  # nothing made inside it
    # writable by its group: another group than this user's own is not trusted
    group = tmp_path / "group"
    group.mkdir()
    group.chmod(0o775)
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(group))
    monkeypatch.setattr(os, "getgid", lambda: group.stat().st_gid + 1)
    assert cache_dir("prices") is None
    monkeypatch.undo()
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(group))
    import grp
    import pwd

    gid, me = group.stat().st_gid, pwd.getpwuid(os.getuid()).pw_name
    private = gid == os.getgid() and not grp.getgrgid(gid).gr_mem
    if private and not [u for u in pwd.getpwall() if u.pw_gid == gid and u.pw_name != me]:
        assert cache_dir("prices") == str(group / "prices")  # this user's own group
        # ... unless another user has it as their primary group (not named as a member)
        other = pwd.struct_passwd(("someone", "x", 4242, gid, "", "/", "/bin/sh"))
        everyone = pwd.getpwall()
        monkeypatch.setattr(pwd, "getpwall", lambda: [*everyone, other])
        assert cache_dir("prices") is None
    else:
        assert cache_dir("prices") is None
    # a directory of this user below one that others may write to (and not sticky): another
    # user could rename it away and put their own in its place
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(open_dir / "cache"))
    assert cache_dir("prices") is None
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(open_dir / "a" / "b" / "cache"))
    assert cache_dir("prices") is None
    assert list(open_dir.iterdir()) == []  # nothing made where another user could swap it
    # below a sticky one (as /tmp) it is safe: only its owner may rename it
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(sticky / "cache"))
    assert cache_dir("prices") == str(sticky / "cache" / "prices")


@pytest.mark.skipif(os.getuid() != 0, reason="making a file of another user needs root")
def test_another_users_link_or_directory_on_the_way_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trial's attack: another user's symbolic link in a sticky directory, pointed at one
    of this user's directories when checked, and at theirs later. Refused when checked."""
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    link = sticky / "evil"
    link.symlink_to(mine)
    os.lchown(link, 65534, 65534)
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(link))
    assert cache_dir("prices") is None
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(link / "sub" / "cache"))
    assert cache_dir("prices") is None
    assert list(mine.iterdir()) == []  # nothing made through their link
    # ... nor through this user's link to their link (the re-trial's: only the links of the
    # path as given were checked, not those of a link's target)
    own = tmp_path / "own"
    own.symlink_to(link)
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(own / "sub"))
    assert cache_dir("prices") is None
    assert list(mine.iterdir()) == []
    theirs = sticky / "theirs"
    theirs.mkdir(mode=0o777)
    os.chown(theirs, 65534, 65534)
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(theirs / "cache"))
    assert cache_dir("prices") is None


def test_a_command_writes_its_answers_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first command of many new models wrote the whole file once per look-up (1,500
    models: 9.8 s against 1.0 s without the cache): now once, at ``keep``."""
    file = tmp_path / "kept.json"
    t = MAY_2026
    writes: list[str] = []
    replace = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (writes.append(os.fspath(b)), replace(a, b))[1])
    book = PriceBook(kept=kept_at(file))
    for index in range(300):
        book.table("", f"ft:my-model-{index}", t)
        book.provider(f"ft:other-{index}", t)
    assert writes == []
    book.keep()
    assert writes == [str(file)]
    book.keep()  # nothing new: nothing written
    assert writes == [str(file)]
    data = json.loads(file.read_text())
    assert len(data["models"]) == 300 and len(data["providers"]) == 600


def test_the_file_starts_afresh_past_its_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kept_module, "MAX_MODELS", 10)
    file = tmp_path / "kept.json"
    t = MAY_2026
    for group in range(3):
        book = PriceBook(kept=kept_at(file))
        for index in range(4):
            book.table("openai", f"ft:{group}-{index}", t)
        book.keep()
    data = json.loads(file.read_text())
    assert sorted(data["models"]) == [f"openai\0ft:2-{index}" for index in range(4)]


def test_a_lock_held_elsewhere_is_waited_on_briefly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl
    import time

    monkeypatch.setattr(kept_module, "LOCK_SECONDS", 0.2)
    file = tmp_path / "kept.json"
    t = MAY_2026
    with open(f"{file}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        book = PriceBook(kept=kept_at(file))
        book.table("openai", "gpt-5", t)
        start = time.monotonic()
        book.keep()
        assert time.monotonic() - start < 2
        assert not file.exists()  # given up: the next command keeps it
    priced_and_kept(file)
    assert file.exists()


def test_a_fifo_in_the_cache_is_never_waited_on(tmp_path: Path) -> None:
    file = tmp_path / "kept.json"
    t = MAY_2026
    os.mkfifo(file)
    os.mkfifo(f"{file}.lock")
    kept = kept_at(file)
    assert not kept.loaded
    book = PriceBook(kept=kept)
    assert book.table("openai", "gpt-5", t) == PriceBook().table("openai", "gpt-5", t)
    book.keep()  # the FIFOs are replaced by a lock and the file
    assert kept_at(file).loaded
    assert stat.S_ISREG(os.stat(f"{file}.lock").st_mode)


def test_a_directory_in_place_of_the_file_is_replaced_when_empty(tmp_path: Path) -> None:
    file = tmp_path / "kept.json"
    t = MAY_2026
    file.mkdir()
    priced_and_kept(file)
    assert kept_at(file).loaded
    file.unlink()
    (file / "something").mkdir(parents=True)  # not empty: left alone, nothing kept
    book = PriceBook(kept=kept_at(file))
    assert book.table("openai", "gpt-5", t) == PriceBook().table("openai", "gpt-5", t)
    book.keep()
    assert (file / "something").is_dir()


def test_what_a_killed_command_left_is_removed_later(tmp_path: Path) -> None:
    file = tmp_path / "kept.json"
    stale, fresh = tmp_path / "kept.json.99999.tmp", tmp_path / "kept.json.99998.tmp"
    stale.write_text("{")
    fresh.write_text("{")
    os.utime(stale, (1, 1))
    priced_and_kept(file)
    assert not stale.exists() and fresh.exists()


def test_a_directory_is_made_private_through_no_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache's way is walked through descriptors that follow no link (the trial's race:
    a link put in place between a check and a mkdir/chmod by name made root chmod the link's
    target, or make directories in it): a link to a file ends the walk, the file untouched;
    and a directory is made with mode 0700 inside the directory that was checked."""
    victim = tmp_path / "victim"
    victim.write_text("")
    victim.chmod(0o644)
    link = tmp_path / "made"
    link.symlink_to(victim)
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(link))
    assert cache_dir("prices") is None
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(link / "below"))
    assert cache_dir("prices") is None
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644
    # this user's own link is followed, by reading it: the real path comes back
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "mine").symlink_to("real")  # relative
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(tmp_path / "mine" / "c"))
    assert cache_dir("prices") == str(real / "c" / "prices")


def test_a_directory_with_an_acl_for_another_user_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A POSIX ACL (the trial's: mode drwxrwxr-x+ of group root, with u:nobody:rwx) lets a
    named user write: its group bits are the ACL's mask, not the group's."""
    import struct

    shared = tmp_path / "acl"
    shared.mkdir(mode=0o755)
    # user::rwx, user:65534:rwx, group::r-x, mask::rwx, other::r-x (the kernel's xattr form)
    entries = [(0x01, 7, 0xFFFFFFFF), (0x02, 7, 65534), (0x04, 5, 0xFFFFFFFF)]
    entries += [(0x10, 7, 0xFFFFFFFF), (0x20, 5, 0xFFFFFFFF)]
    value = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)
    try:
        os.setxattr(shared, "system.posix_acl_access", value)
    except OSError as e:  # a file system without ACLs: nothing to check there
        pytest.skip(f"no POSIX ACLs here: {e}")
    assert shared.stat().st_mode & stat.S_IWGRP  # the mask shows as the group's bits
    monkeypatch.setenv("SESSIONTOOLS_CACHE_DIR", str(shared / "st"))
    assert cache_dir("prices") is None
    assert list(shared.iterdir()) == []
