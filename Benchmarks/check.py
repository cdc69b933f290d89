#!/usr/bin/env python3
"""Issue 29's measure: what the default connectivity check costs on a good network, before
and after a change, beside curl fetching the same URLs.

A lab of two namespaces joined by a veth (no added delay: this kernel has no netem): the
server namespace runs dnsmasq answering every name with its own address, Tests/Support's
probe_server.py answering each default endpoint as its operator does (port 80), and
https_server.py with a certificate for www.google.com signed by a test CA (port 443, the
client trusting that CA through SSL_CERT_FILE). nftables counters in the server namespace
count connections (SYNs) per port, DNS queries, and the bytes on the wire both ways.

For every round, each binary runs `netpath probe --json --netns CLIENT` (the default check)
once, interleaved; then curl fetches Google's HTTP and HTTPS URLs as a reference. Prints a
Markdown table of medians.

With --dual-stack (issue 38: one check's cost per family) the link carries IPv6 too
(fd77::1 and fd77::2, every name answered with both addresses), the servers listen on both
families, the counters count SYNs and bytes per family, and curl -4 and curl -6 are the
reference.

Usage: sudo Benchmarks/check.py --netpath NAME=BIN [--netpath NAME=BIN ...] [--rounds N] [--dual-stack]
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
SUPPORT = os.path.join(HERE, "..", "Tests", "Support")
TAG = "npc%d" % (os.getpid() % 100000)
CLIENT, SERVER = TAG + "-cli", TAG + "-srv"
ADDRESS = "10.77.0.1"
ADDRESS6 = "fd77::1"
NFT = shutil.which("nft") or "/usr/sbin/nft"
COUNTERS = {
    "syn80": "tcp dport 80 tcp flags & (syn|ack) == syn",
    "syn443": "tcp dport 443 tcp flags & (syn|ack) == syn",
    "dns": "udp dport 53",
    "syn6": "meta nfproto ipv6 tcp flags & (syn|ack) == syn",
    "in": "ip saddr 10.77.0.2",
    "in6": "ip6 saddr fd77::2",
}
OUT_COUNTERS = [("out", "ip daddr 10.77.0.2"), ("out6", "ip6 daddr fd77::2")]


def run(*command, **options):
    return subprocess.run(list(command), check=True, capture_output=True, text=True, **options).stdout


def in_ns(ns, *command):
    return ["ip", "netns", "exec", ns] + list(command)


def setup(directory, dual):
    run("ip", "netns", "add", CLIENT)
    run("ip", "netns", "add", SERVER)
    run("ip", "-n", CLIENT, "link", "add", "v0", "type", "veth", "peer", "name", "v1", "netns", SERVER)
    run("ip", "-n", SERVER, "addr", "add", ADDRESS + "/24", "dev", "v1")
    run("ip", "-n", SERVER, "link", "set", "v1", "up")
    run("ip", "-n", SERVER, "link", "set", "lo", "up")
    run("ip", "-n", CLIENT, "addr", "add", "10.77.0.2/24", "dev", "v0")
    run("ip", "-n", CLIENT, "link", "set", "v0", "up")
    run("ip", "-n", CLIENT, "route", "add", "default", "via", ADDRESS)
    if dual:
        run("ip", "-n", SERVER, "addr", "add", ADDRESS6 + "/64", "dev", "v1", "nodad")
        run("ip", "-n", CLIENT, "addr", "add", "fd77::2/64", "dev", "v0", "nodad")
        run("ip", "-n", CLIENT, "-6", "route", "add", "default", "via", ADDRESS6)
    os.makedirs("/etc/netns/" + CLIENT, exist_ok=True)
    with open("/etc/netns/%s/resolv.conf" % CLIENT, "w") as f:
        f.write("nameserver %s\n" % ADDRESS)
    rules = "table inet %s {\n" % TAG
    for name in list(COUNTERS) + [name for name, _ in OUT_COUNTERS]:
        rules += "  counter %s {}\n" % name
    rules += "  chain input { type filter hook input priority 0;\n"
    for name, match in COUNTERS.items():
        rules += "    %s counter name %s\n" % (match, name)
    rules += "  }\n  chain output { type filter hook output priority 0;\n"
    for name, match in OUT_COUNTERS:
        rules += "    %s counter name %s\n" % (match, name)
    rules += "  }\n}\n"
    subprocess.run(in_ns(SERVER, NFT, "-f", "-"), input=rules, text=True, check=True)
    key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
    script = f"""set -e; cd '{directory}'
        openssl req -x509 {key} -keyout ca.key -out ca.pem -days 2 -subj '/CN=NetPath bench CA'
        openssl req {key} -keyout server.key -out server.csr -subj /CN=www.google.com
        printf 'subjectAltName=DNS:www.google.com\\n' > san.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san.ext"""
    subprocess.run(["/bin/sh", "-c", script], check=True, capture_output=True)
    mode = os.path.join(directory, "mode")
    with open(mode, "w") as f:
        f.write("online\n")
    programs = []
    addresses = [ADDRESS] + ([ADDRESS6] if dual else [])
    commands = [(["python3", os.path.join(SUPPORT, "probe_server.py"), "--port", "80", "--mode-file", mode]
                 + [item for address in addresses for item in ("--bind", address)], "ready")]
    commands += [(["python3", os.path.join(SUPPORT, "https_server.py"), "--bind", address, "--port", "443",
                   "--cert", os.path.join(directory, "server.pem"), "--key", os.path.join(directory, "server.key")], "ready")
                 for address in addresses]
    commands.append(([shutil.which("dnsmasq") or "/usr/sbin/dnsmasq", "--no-daemon", "--no-resolv", "--no-hosts", "--bind-interfaces",
                      "--listen-address=" + ADDRESS, "--user=root", "--pid-file", "--log-facility=-"]
                     + ["--address=/#/" + address for address in addresses], "started"))
    for command, marker in commands:
        process = subprocess.Popen(in_ns(SERVER, *command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        programs.append(process)
        while True:
            line = process.stdout.readline()
            if not line:
                raise SystemExit("could not start %s" % command[0])
            if marker in line:
                break
    return programs


def counters():
    listed = json.loads(run(*in_ns(SERVER, NFT, "-j", "reset", "counters", "table", "inet", TAG)))
    values = {}
    for item in listed["nftables"]:
        if "counter" in item:
            values[item["counter"]["name"]] = (item["counter"]["packets"], item["counter"]["bytes"])
    return values


def measure(command, env):
    counters()
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    out, err = process.communicate()
    wall = (time.perf_counter() - start) * 1000
    seen = counters()
    return {
        "wall": wall, "out": out, "err": err, "status": process.returncode,
        "connections": seen["syn80"][0] + seen["syn443"][0], "https": seen["syn443"][0], "dns": seen["dns"][0],
        "bytes": seen["in"][1] + seen["out"][1] + seen["in6"][1] + seen["out6"][1],
        "ipv6": seen["syn6"][0], "bytes6": seen["in6"][1] + seen["out6"][1],
    }


def rss_of(command, env):
    """The peak RSS (KiB) of `command`, from wait4's rusage."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(process.pid, 0)
    return usage.ru_maxrss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--netpath", action="append", required=True, help="NAME=BINARY")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--dual-stack", action="store_true")
    args = parser.parse_args()
    binaries = [tuple(item.split("=", 1)) for item in args.netpath]
    directory = tempfile.mkdtemp(prefix="netpath-check-bench-")
    programs = []
    try:
        programs = setup(directory, args.dual_stack)
        env = dict(os.environ, SSL_CERT_FILE=os.path.join(directory, "ca.pem"))
        for variable in ("http_proxy", "https_proxy", "all_proxy", "HTTPS_PROXY", "ALL_PROXY"):
            env.pop(variable, None)
        # The veth's carrier comes a moment after the link is up: measure from a satisfied path.
        subprocess.run([binaries[0][1], "wait", "--netns", CLIENT, "--timeout", "10"], check=True, capture_output=True)
        rows = {name: [] for name, _ in binaries}
        families = ["-4", "-6"] if args.dual_stack else [""]
        urls = ("http://connectivitycheck.gstatic.com/generate_204", "https://www.google.com/generate_204")
        for family in families:
            for url in urls:
                rows[("curl %s %s" % (family, url)).replace("  ", " ")] = []
        rss = {name: [] for name, _ in binaries}
        for _ in range(args.rounds):
            for name, binary in binaries:
                result = measure([binary, "probe", "--json", "--netns", CLIENT], env)
                line = json.loads(result["out"].splitlines()[0])
                result["verdict"] = line["connectivity"]
                result["latency"] = line["latencyMs"]
                if os.environ.get("NPC_DEBUG"):
                    print(name, result["connections"], result["https"], result["dns"], result["bytes"], result["out"].strip(), file=sys.stderr)
                rows[name].append(result)
                rss[name].append(rss_of([binary, "probe", "--json", "--netns", CLIENT], env))
            for family in families:
                for url in urls:
                    result = measure(in_ns(CLIENT, "curl", *([family] if family else []), "-s", "-o", "/dev/null", "--noproxy", "*",
                                           "--cacert", env["SSL_CERT_FILE"], "-w", "%{http_code}", url), env)
                    result["verdict"] = result["out"]
                    result["latency"] = None
                    rows[("curl %s %s" % (family, url)).replace("  ", " ")].append(result)
        print("| run | verdict | connections (of which 443; over IPv6) | DNS queries | bytes on the wire (over IPv6) | check's latencyMs | wall ms | peak RSS KiB |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for name, results in rows.items():
            def median(key):
                values = [r[key] for r in results if r[key] is not None]
                return statistics.median(values) if values else None
            verdicts = sorted(set(str(r["verdict"]) for r in results))
            latency = median("latency")
            print("| %s | %s | %d (%d; %d) | %d | %d (%d) | %s | %.1f | %s |" % (
                name, "/".join(verdicts), median("connections"), median("https"), median("ipv6"), median("dns"), median("bytes"),
                median("bytes6"),
                "-" if latency is None else "%d" % latency, median("wall"),
                "%d" % statistics.median(rss[name]) if name in rss else "-"))
        print("\n%d rounds, medians; lab link without added delay." % args.rounds)
    finally:
        for process in programs:
            process.kill()
        subprocess.run(["ip", "netns", "delete", CLIENT], capture_output=True)
        subprocess.run(["ip", "netns", "delete", SERVER], capture_output=True)
        shutil.rmtree("/etc/netns/" + CLIENT, ignore_errors=True)
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
