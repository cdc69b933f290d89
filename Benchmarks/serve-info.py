#!/usr/bin/env python3
"""The cost of `netpath_namespace_info` (issue 39): a scrape of `serve --all-namespaces` with
N namespaces, each held by a process in a kubelet-style cgroup, by two builds in one run.

Needs root. Makes N namespaces (`ip netns add`), a `sleep` in each (`nsenter`) placed in
`kubepods/besteffort/pod<UID>/<ID>` under cgroup v2 (else v1's pids controller); then, for
each build in turn (twice, alternating), runs `serve --all-namespaces`, waits until every
namespace is up (and, for a build that has it, named by netpath_namespace_info), and
measures 100 scrapes: the server's CPU time (utime + stime) per scrape, the page's size,
and its RSS.

  python3 Benchmarks/serve-info.py BEFORE AFTER [--namespaces 1000] [--scrapes 100]
"""
import argparse
import os
import re
import subprocess
import time
import urllib.request


def cgroup_root():
    for line in open("/proc/self/mounts"):
        fields = line.split()
        if fields[2] == "cgroup2":
            return fields[1]
    for line in open("/proc/self/mounts"):
        fields = line.split()
        if fields[2] == "cgroup" and "pids" in fields[3].split(","):
            return fields[1]
    raise SystemExit("no cgroup file system")


def scrape(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=30) as answer:
        return answer.read().decode()


def cpu_ticks(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def rss_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])


def measure(binary, names, scrapes):
    server = subprocess.Popen([binary, "serve", "--all-namespaces", "--listen", "127.0.0.1:0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(re.search(r"127\.0\.0\.1:(\d+)", server.stdout.readline()).group(1))
        up = ['netpath_namespace_up{netns="%s"} 1' % name for name in names]
        deadline = time.time() + 600
        while time.time() < deadline:
            text = scrape(port)
            if all(line in text for line in up):
                break
            time.sleep(0.5)
        # A build with the info metric: until it names every namespace (the scan after start).
        while "netpath_namespace_info" in text and time.time() < deadline:
            named = sum(1 for name in names if 'netpath_namespace_info{netns="%s"' % name in text)
            if named == len(names):
                break
            time.sleep(0.5)
            text = scrape(port)
        for _ in range(5):
            scrape(port)
        ticks, start = cpu_ticks(server.pid), time.time()
        size = 0
        for _ in range(scrapes):
            size = len(scrape(port))
        wall = (time.time() - start) / scrapes
        cpu = (cpu_ticks(server.pid) - ticks) * 1000.0 / os.sysconf("SC_CLK_TCK") / scrapes
        info = sum(1 for name in names if 'netpath_namespace_info{netns="%s"' % name in text)
        return {"cpu_ms": cpu, "wall_ms": wall * 1000, "bytes": size, "rss_kb": rss_kb(server.pid), "named": info}
    finally:
        server.terminate()
        server.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--namespaces", type=int, default=1000)
    parser.add_argument("--scrapes", type=int, default=100)
    args = parser.parse_args()
    prefix = "np-si-%d-" % os.getpid()
    names = [prefix + str(i) for i in range(args.namespaces)]
    base = os.path.join(cgroup_root(), "np-si-%d" % os.getpid())
    holders, made = [], []
    subprocess.run(["ip", "-force", "-batch", "-"], input="".join("netns add %s\n" % n for n in names), text=True, check=True)
    try:
        for index, name in enumerate(names):
            uid = "%08x-0000-4000-8000-%012x" % (os.getpid(), index)
            directory = os.path.join(base, "kubepods", "besteffort", "pod" + uid, "%064x" % (index + 1))
            os.makedirs(directory, exist_ok=True)
            made.append(directory)
            holder = subprocess.Popen(["nsenter", "--net=/run/netns/" + name, "sleep", "3600"])
            with open(os.path.join(directory, "cgroup.procs"), "w") as f:
                f.write("%d\n" % holder.pid)
            holders.append(holder)
        results = {"before": [], "after": []}
        for _ in range(2):
            for which in ("before", "after"):
                results[which].append(measure(getattr(args, which), names, args.scrapes))
                print(which, results[which][-1], flush=True)
        for which in ("before", "after"):
            runs = results[which]
            print("%s: CPU per scrape %s ms, wall %s ms, %d bytes, RSS %s KB, %d named" % (
                which, " / ".join("%.2f" % r["cpu_ms"] for r in runs), " / ".join("%.2f" % r["wall_ms"] for r in runs),
                runs[-1]["bytes"], " / ".join(str(r["rss_kb"]) for r in runs), runs[-1]["named"]))
    finally:
        for holder in holders:
            holder.kill()
            holder.wait()
        for directory in made:
            path = directory
            while path != base and path.startswith(base):
                try:
                    os.rmdir(path)
                except OSError:
                    break
                path = os.path.dirname(path)
        try:
            os.rmdir(base)
        except OSError:
            pass
        subprocess.run(["ip", "-force", "-batch", "-"], input="".join("netns del %s\n" % n for n in names), text=True)


if __name__ == "__main__":
    main()
