#!/usr/bin/env python3
"""Container-node scale of `netpath serve --all-namespaces` (issue 30).

Needs root (it makes namespaces); the server runs as `nobody` with CAP_SYS_ADMIN and a
soft descriptor limit of 1,024, as the shipped unit would, under the kernel's default of
128 inotify instances per user.

  python3 Benchmarks/scale.py NETPATH [--namespaces 1000] [--cycles 45] [--batch 100]

1. `--namespaces` namespaces made at once: the time until every one is
   `netpath_namespace_up 1`, and the process's RSS, descriptors, inotify instances and
   threads.
2. Churn: `--cycles` times, `--batch` namespaces made and deleted (CNI-style), each cycle
   waiting until serve shows them and then forgets them: RSS after the first cycle and
   after the last.
"""
import argparse
import os
import re
import subprocess
import sys
import time
import urllib.request


def ip_batch(commands):
    subprocess.run(["ip", "-force", "-batch", "-"], input="\n".join(commands) + "\n", text=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def status(pid):
    fields = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def descriptors(pid):
    names = os.listdir("/proc/%d/fd" % pid)
    inotify = 0
    for name in names:
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, name)) == "anon_inode:inotify":
                inotify += 1
        except OSError:
            pass
    return len(names), inotify


def snapshot(pid):
    s = status(pid)
    fds, inotify = descriptors(pid)
    return {"rss_kb": int(s["VmRSS"].split()[0]), "hwm_kb": int(s["VmHWM"].split()[0]),
            "threads": int(s["Threads"]), "fds": fds, "inotify": inotify}


def scrape(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as answer:
        return answer.read().decode()


def up_count(text, prefix):
    return len(re.findall(r'netpath_namespace_up\{netns="%s[^"]*"\} 1' % re.escape(prefix), text))


def present(text, prefix):
    return len(re.findall(r'netpath_namespace_up\{netns="%s[^"]*"\}' % re.escape(prefix), text))


def wait_until(condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("netpath")
    parser.add_argument("--namespaces", type=int, default=1000)
    parser.add_argument("--cycles", type=int, default=45)
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("scale.py needs root")
    prefix = "npscale-%d-" % os.getpid()
    hard = __import__("resource").getrlimit(__import__("resource").RLIMIT_NOFILE)[1]
    server = subprocess.Popen(
        ["prlimit", "--nofile=1024:%d" % hard, "--", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
         "--inh-caps=+sys_admin", "--ambient-caps=+sys_admin",
         args.netpath, "serve", "--listen", "127.0.0.1:0", "--all-namespaces"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    made = []
    try:
        line = server.stdout.readline()
        port = int(re.search(r":(\d+)", line.split("http://")[1]).group(1))
        base = snapshot(server.pid)
        print("idle: %s" % base)

        names = [prefix + "big-%d" % i for i in range(args.namespaces)]
        made += names
        t0 = time.monotonic()
        ip_batch(["netns add " + n for n in names])
        made_s = time.monotonic() - t0
        ok = wait_until(lambda: up_count(scrape(port), prefix + "big-") == args.namespaces, 300)
        seen_s = time.monotonic() - t0
        big = snapshot(server.pid)
        print("%d namespaces: made in %.1f s, all up=%s after %.1f s; %s"
              % (args.namespaces, made_s, ok, seen_s, big))
        ip_batch(["netns del " + n for n in names])
        wait_until(lambda: present(scrape(port), prefix + "big-") == 0, 300)
        made = []
        after_big = snapshot(server.pid)
        print("after deleting them: %s" % after_big)

        first = None
        t0 = time.monotonic()
        for cycle in range(args.cycles):
            batch = [prefix + "c%d-%d" % (cycle, i) for i in range(args.batch)]
            made += batch
            ip_batch(["netns add " + n for n in batch])
            wait_until(lambda: up_count(scrape(port), prefix + "c%d-" % cycle) == args.batch, 120)
            ip_batch(["netns del " + n for n in batch])
            wait_until(lambda: present(scrape(port), prefix + "c%d-" % cycle) == 0, 120)
            made = []
            if cycle == 0:
                first = snapshot(server.pid)
                print("churn after cycle 1: %s" % first)
        # Monitors of deleted namespaces close as their deletion is seen: let the last go.
        wait_until(lambda: snapshot(server.pid)["fds"] <= first["fds"], 10)
        last = snapshot(server.pid)
        print("churn after cycle %d: %s (%.0f s)" % (args.cycles, last, time.monotonic() - t0))
        print("RSS growth over the churn: %+d KB" % (last["rss_kb"] - first["rss_kb"]))
    finally:
        if made:
            ip_batch(["netns del " + n for n in made])
        server.terminate()
        _, errors = server.communicate(timeout=30)
        lines = [l for l in errors.splitlines() if l]
        print("stderr: %d lines%s" % (len(lines), (": " + lines[0]) if lines else ""))


if __name__ == "__main__":
    main()
