"""Send SIGINT/SIGTERM to `sessiontools cost --scheduler local` at several moments; tally."""
import os, signal, subprocess, sys, tempfile, time, collections, random
args = sys.argv[1:]
loops = int(os.environ.get("LOOPS", "10"))
sig = getattr(signal, os.environ.get("SIG", "SIGINT"))
delays = [float(x) for x in os.environ.get("DELAYS", "0.5,1,1.5,2,2.5,3,4").split(",")]
tally = collections.Counter(); waits = []
for i in range(loops):
    for d in delays:
        tmp = tempfile.mkdtemp(prefix="ctrlc-", dir=os.environ["TMPDIR"])
        mark = f"CTRLC_MARK={os.getpid()}-{i}-{d}"
        env = dict(os.environ, TMPDIR=tmp, CTRLC_MARK=mark)
        p = subprocess.Popen([sys.executable, "-m", "sessiontools", *args], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        time.sleep(d)
        if p.poll() is not None:
            p.communicate(); tally["finished-before-signal"] += 1; continue
        (os.killpg(p.pid, sig) if os.environ.get("GROUP") else p.send_signal(sig))
        t0 = time.monotonic()
        try:
            out, err = p.communicate(timeout=60)
            waits.append(time.monotonic() - t0); print(f"delay {d}: exit after {waits[-1]:.2f} s", flush=True) if waits[-1] > 3 else None
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL); out, err = p.communicate()
            tally["HUNG"] += 1; print(d, "HUNG"); continue
        time.sleep(0.5)
        left = []
        for root, dirs, files in os.walk(tmp):
            left += [os.path.join(root, x) for x in dirs + files]
        lines = err.decode(errors="replace").splitlines()
        ok = p.returncode in (130, 143) and (len(lines) == 1 or os.environ.get("OTEL") and len(lines) == 2 and lines[0].startswith("sessiontools otel: ") and " sessions read " in lines[0]) and lines[-1] in ("sessiontools: interrupted", "sessiontools: terminated") and not left
        # survivors in the session?
        ps = subprocess.run(["ps", "-o", "pid,stat,args", "--sid", str(p.pid), "--no-headers"], capture_output=True, text=True).stdout.strip()
        ps = "\n".join(l for l in ps.splitlines() if " Z " not in l)
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    if mark.encode() in open(f"/proc/{pid}/environ", "rb").read():
                        st = open(f"/proc/{pid}/stat").read().split()[2]
                        if st != "Z": ps += f"\nmarked {pid} " + open(f"/proc/{pid}/cmdline","rb").read()[:100].decode(errors="replace")
                except OSError: pass
        alive = bool(ps.strip())
        if alive: print("ALIVE:", ps[:500])
        key = "ok" if ok and not alive else f"rc={p.returncode} lines={len(lines)} left={len(left)} alive={alive}"
        tally[key] += 1
        if key != "ok":
            print(f"delay {d}: {key}; out={len(out)}B err[:3]={lines[:3]} left={left[:3]}", flush=True)
            if os.environ.get("FULL"): print(err.decode(errors="replace"))
            if alive: os.killpg(p.pid, signal.SIGKILL)
        import shutil; shutil.rmtree(tmp, ignore_errors=True)
print(dict(tally), 'exit after signal: max %.2f s' % max(waits or [0]))
