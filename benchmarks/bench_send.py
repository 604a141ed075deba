"""Sending many sessions to a local OTLP/HTTP endpoint, against exporting them to files.

    python benchmarks/make_many_logs.py --count 1000 --out /tmp/bench/many
    python benchmarks/bench_send.py /tmp/bench/many [--repeat 3]

Measured in one run, alternating, each a fresh ``sessiontools`` process:

- export: ``sessiontools otel DIR --out OUT/`` (every session to its own file);
- send: ``sessiontools otel DIR --endpoint URL`` (protobuf, to a receiver in another process
  that reads each request and answers 200, as a collector does);
- state, first pass: the same with ``--state FILE`` (a new file each time), then a second pass
  over the unchanged logs with that file.

Printed: each one's median wall time, send / export (goal 1.3 or less), spans a second, peak
RSS of sending the first tenth, the first half and all of the logs (flat in the number of
sessions once a request is full: memory holds one request), and second pass / first pass (goal
0.10 or less).
"""

from __future__ import annotations

import argparse
import http.server
import multiprocessing
import shutil
import socket
import statistics
import sys
import tempfile
from pathlib import Path

from _children import run_child, sessiontools_command


class _Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()


def _serve(port_out: multiprocessing.connection.Connection) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    port_out.send(server.server_address[1])
    server.serve_forever()


def _spans(stderr: str) -> int:
    # the summary: "... N runs, M spans, ..."
    for part in stderr.strip().splitlines()[-1].split(","):
        if part.strip().endswith(" spans"):
            return int(part.split()[0])
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", type=Path, help="a directory of logs (make_many_logs.py)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    logs = sorted(args.logs.glob("*.jsonl"))
    if not logs:
        parser.error(f"no *.jsonl in {args.logs}")
    size = sum(p.stat().st_size for p in logs)
    parts = {}
    for label, share in (("tenth", 10), ("half", 2)):
        part = parts[label] = Path(tempfile.mkdtemp(prefix=f"{label}-"))
        for p in logs[: max(1, len(logs) // share)]:
            (part / p.name).symlink_to(p.resolve())

    receive, send = multiprocessing.Pipe(duplex=False)
    server = multiprocessing.Process(target=_serve, args=(send,), daemon=True)
    server.start()
    port = receive.recv()
    endpoint = f"http://127.0.0.1:{port}/v1/traces"
    with socket.create_connection(("127.0.0.1", port)):
        pass
    command = sessiontools_command()
    times: dict[str, list[float]] = {"export": [], "send": [], "first": [], "second": []}
    rss: dict[str, list[int]] = {"tenth": [], "half": [], "all": []}
    spans = 0
    work = Path(tempfile.mkdtemp(prefix="bench-send-"))
    try:
        for i in range(args.repeat + 1):  # the first round warms the caches, untimed
            out = work / f"out-{i}"
            export = run_child([*command, "otel", str(args.logs), "--out", f"{out}/"])
            shutil.rmtree(out, ignore_errors=True)
            sent = run_child([*command, "otel", str(args.logs), "--endpoint", endpoint])
            small = {
                label: run_child([*command, "otel", str(part), "--endpoint", endpoint])
                for label, part in parts.items()
            }
            state = work / f"state-{i}.db"
            first = run_child(
                [*command, "otel", str(args.logs), "--endpoint", endpoint, "--state", str(state)]
            )
            second = run_child(
                [*command, "otel", str(args.logs), "--endpoint", endpoint, "--state", str(state)]
            )
            if i == 0:
                spans = _spans(sent.stderr)
                continue
            times["export"].append(export.seconds)
            times["send"].append(sent.seconds)
            times["first"].append(first.seconds)
            times["second"].append(second.seconds)
            for label, child in small.items():
                rss[label].append(child.max_rss_kib)
            rss["all"].append(sent.max_rss_kib)
    finally:
        server.terminate()
        shutil.rmtree(work, ignore_errors=True)
        for part in parts.values():
            shutil.rmtree(part, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{len(logs):,} logs, {size / 1e6:.1f} MB, {spans:,} spans; median of {args.repeat}")
    print(f"export to files   {med['export']:.2f} s")
    print(
        f"send (protobuf)   {med['send']:.2f} s   send / export = {med['send'] / med['export']:.2f}"
    )
    print(f"spans a second    {spans / med['send']:,.0f}")
    shown = ", ".join(f"{statistics.median(rss[label]) / 1024:.1f} MiB ({label})" for label in rss)
    print(f"peak RSS          {shown}")
    print(
        f"--state           first {med['first']:.2f} s, second over unchanged logs "
        f"{med['second']:.2f} s: {med['second'] / med['first']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
