#!/usr/bin/env python3
"""Lists calls to the C library or the C shims made outside the syscall layer (STYLE.md 9):
every system call goes through `Syscall` (NetPathSystem), which reads errno at the call,
retries EINTR and stops on EBADF/EFAULT; and any import of a C library, a shim or Foundation
in the pure core (NetPathCore). Exit 1 when there is any. Run by .ci/run."""
import pathlib, re, sys

# The layer: NetPathSystem (the syscall wrappers, the clock, the event loop and its wake-up,
# inotify, threads and the lock, TLS as a client or a server). The C adapter for TLS, CTLS,
# is called only from there.
LAYER = {str(path) for path in pathlib.Path("Sources/NetPath/System").glob("*.swift")}
CALLS = """socket bind connect listen accept accept4 recv recvfrom recvmsg recvmmsg send sendto sendmsg
read write close open openat poll epoll_create1 epoll_ctl epoll_wait ioctl fcntl setsockopt
getsockopt getsockname shutdown pipe pipe2 eventfd signalfd inotify_init1 inotify_add_watch
inotify_rm_watch readlink stat lstat fstat access unlink rename mkdir opendir readdir closedir
nanosleep usleep sleep clock_gettime geteuid getuid setns unshare isatty signal sigaction
pthread_sigmask sigwait kill dlopen dlsym lseek fsync ftruncate strerror getenv setenv unsetenv
getpid getppid exit _exit abort raise malloc free mmap munmap madvise mallopt prctl pidfd_open
syscall sched_yield""".split()
pattern = re.compile(r"(?<![\w.])(%s|pthread_\w+|cnetlink_\w+|ctls_\w+)\(" % "|".join(CALLS))

found = 0
for path in sorted(path for path in pathlib.Path("Sources").rglob("*.swift") if str(path) not in LAYER):
    text = path.read_text()
    # A file's own functions, enum cases and closure parameters of these names are not libc's.
    own = set(re.findall(r"(?:func|case)\s+(\w+)\s*\(", text)) | set(re.findall(r"[(,]\s*(\w+)\s*:\s*[(@]", text))
    for number, line in enumerate(text.splitlines(), 1):
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line.split("//", 1)[0])  # no comment, empty strings
        for match in pattern.finditer(code):
            if match.group(1) not in own:
                print(f"{path}:{number}: {match.group(1)}() outside the syscall layer")
                found += 1
for path in sorted(pathlib.Path("Sources/NetPath/Core").rglob("*.swift")):
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if re.match(r"\s*(@\w+\s+)*import\s+(Glibc|Musl|Darwin|Foundation|Dispatch|CNetlink|CTLS)\b", line):
            print(f"{path}:{number}: the pure core imports {line.split()[-1]}")
            found += 1
print(f"check-syscalls: {found} call(s) to the C library or the shims outside the layer")
sys.exit(1 if found else 0)
