"""A writer process for tests/write/test_store.py: appends entries to a session file with FileStore.

    python tests/write/store_writer.py PATH COUNT [--start SEQ] [--size BYTES] [--hold]

Appends ``make_entry(seq, size)`` for COUNT seqs from SEQ, printing each seq on its own line
(flushed) once ``append`` has returned, i.e. once the entry is durable. With ``--hold`` it then
prints ``holding`` and keeps the writer lock (taking it with ``open()`` if COUNT is 0) until
its stdin closes, then closes the store and prints ``closed``. If another writer holds the
lock it prints ``locked: <message>`` and exits with status 3.
"""

from __future__ import annotations

import argparse
import sys

from sessiontools import Entry, FileStore, StoreLockedError, ToolResult, ToolResultEntry

#: 2026-10-18T09:30:00+02:00, in Unix nanoseconds.
BASE_UNIX_NANO = 1_792_308_600 * 10**9


def make_entry(seq: int, size: int = 100) -> Entry:
    """A tool_result entry of about ``size`` bytes, its content tied to ``seq``."""
    content = f"result {seq}: " + "é" * max(0, size // 2)
    return Entry(
        seq=seq,
        time_unix_nano=BASE_UNIX_NANO + seq * 1_000_000_007,
        type="tool_result",
        payload=ToolResultEntry(result=ToolResult(call_id=f"c{seq}", content=content)),
        utc_offset_seconds=7200,
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("count", type=int)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--hold", action="store_true")
    args = parser.parse_args(argv)
    store = FileStore(args.path)
    try:
        for seq in range(args.start, args.start + args.count):
            store.append(make_entry(seq, args.size))
            print(seq, flush=True)
        if args.hold:
            store.open()
            print("holding", flush=True)
            sys.stdin.read()
            store.close()
            print("closed", flush=True)
    except StoreLockedError as e:
        print(f"locked: {e}", flush=True)
        return 3
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
