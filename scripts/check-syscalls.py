#!/usr/bin/env python3
"""Lists what crosses the system target's boundary (ARCHITECTURE.md, "Targets"): any import
of a C library or of a C shim in Sources/ outside NetPathSystem (Sources/NetPath/System),
which then gives every C constant a Swift name; any call to the C library or the shims
outside it (STYLE.md 9: every system call goes through `Syscall`, which reads errno at the
call, retries EINTR and stops on EBADF/EFAULT); and any import of Foundation or Dispatch in
the pure core (NetPathCore). Exit 1 when there is any. Run by .ci/run."""
import pathlib, re, sys

# The layer: NetPathSystem (the syscall wrappers, the clock, the event loop and its wake-up,
# inotify, threads and the lock, TLS as a client or a server, and the named values the
# calls take). The C shims, CNetlink and CTLS, are its dependencies alone.
SYSTEM = pathlib.Path("Sources/NetPath/System")
LAYER = {str(path) for path in SYSTEM.rglob("*.swift")}
CALLS = """socket bind connect listen accept accept4 recv recvfrom recvmsg recvmmsg send sendto sendmsg
read write close open openat poll epoll_create1 epoll_ctl epoll_wait ioctl fcntl setsockopt
getsockopt getsockname shutdown pipe pipe2 eventfd signalfd inotify_init1 inotify_add_watch
inotify_rm_watch readlink stat lstat fstat access unlink rename mkdir opendir readdir closedir
nanosleep usleep sleep clock_gettime geteuid getuid setns unshare isatty signal sigaction
pthread_sigmask sigwait kill dlopen dlsym lseek fsync ftruncate strerror getenv setenv unsetenv
getpid getppid exit _exit abort raise malloc free mmap munmap madvise mallopt prctl pidfd_open
syscall sched_yield""".split()
pattern = re.compile(r"(?<![\w.])(%s|pthread_\w+|cnetlink_\w+|ctls_\w+)\(" % "|".join(CALLS))

# Every C library Swift has a module for, and every C target of the package (a directory
# with an `include/`): not a list of the shims as they are today.
C_LIBRARIES = {"Glibc", "SwiftGlibc", "Musl", "Darwin", "Android", "Bionic", "WASILibc", "ucrt", "WinSDK", "CRT"}
C_TARGETS = {path.parent.name for root in ("Sources", "Tests") for path in pathlib.Path(root).glob("*/include")}
# An import statement, with its attributes (`@preconcurrency`), access level (`package
# import`) and kind (`import struct Glibc.stat`); the module is its first component.
IMPORT = re.compile(r"(?:^|;)\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
                    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)")


def code_lines(text):
    """The file's lines with comments removed and string literals emptied, numbered from 1."""
    text = re.sub(r'"""(?:[^\\]|\\.)*?"""', lambda m: '""' + "\n" * m.group(0).count("\n"), text, flags=re.S)
    # Block comments (Swift's nest; the package has none nested), keeping the line count.
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    for number, line in enumerate(text.splitlines(), 1):
        line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
        yield number, line.split("//", 1)[0]


found = 0
for path in sorted(pathlib.Path("Sources").rglob("*.swift")):
    if str(path) in LAYER:
        continue
    text = path.read_text()
    core = SYSTEM.parent / "Core" in path.parents
    # A file's own functions, enum cases and closure parameters of these names are not libc's.
    own = set(re.findall(r"(?:func|case)\s+(\w+)\s*\(", text)) | set(re.findall(r"[(,]\s*(\w+)\s*:\s*[(@]", text))
    for number, code in code_lines(text):
        for match in IMPORT.finditer(code):
            module = match.group(1)
            if module in C_LIBRARIES or module in C_TARGETS:
                print(f"{path}:{number}: imports {module} outside the system target ({SYSTEM})")
                found += 1
            elif core and module in ("Foundation", "FoundationEssentials", "Dispatch"):
                print(f"{path}:{number}: the pure core imports {module}")
                found += 1
        for match in pattern.finditer(code):
            if match.group(1) not in own:
                print(f"{path}:{number}: {match.group(1)}() outside the syscall layer")
                found += 1
print(f"check-syscalls: {found} import(s) of or call(s) to the C library or the shims outside the system target")
sys.exit(1 if found else 0)
