#!/usr/bin/env bash
# The counts issue 21 asks for, measured the same way before and after a change:
# public declarations, `@unchecked Sendable`, locks, the CLI's exit sites, and direct
# system calls outside the package's syscall layer (Sources/NetPath/Linux/Syscalls.swift).
set -euo pipefail
cd "$(dirname "$0")/.."
count() { grep -rhoE "$1" "${@:2}" 2>/dev/null | wc -l | tr -d ' '; }
for module in NetPath NetPathTestKit NetPathUI NetPathPrometheus; do
  [ -d "Sources/$module" ] || continue
  echo "public declarations in $module: $(grep -rhE '^\s*(@[A-Za-z]+(\([^)]*\))?\s+)*(public|open) ' "Sources/$module" | wc -l | tr -d ' ')"
done
echo "@unchecked Sendable:  $(count '@unchecked Sendable' Sources)"
echo "locks (Locked values): $(count '(Locked<[^>]+>|Locked)\(' Sources)"
echo "CLI exit sites:       $(count '\b(fail|finish|_exit|exit)\(' Sources/netpath)"
calls='\b(socket|bind|connect|setsockopt|getsockopt|recv|recvfrom|recvmsg|send|sendto|sendmsg|read|write|close|poll|epoll_create1|epoll_ctl|epoll_wait|eventfd|inotify_init1|inotify_add_watch|clock_gettime|setns|signalfd|accept|accept4|listen|getsockname|pipe|fcntl|open)\('
outside=$(grep -rlE "$calls" Sources --include=*.swift | grep -v 'Sources/NetPath/Linux/Syscalls.swift' || true)
echo "syscalls outside the layer: $(for f in $outside; do grep -oE "$calls" "$f"; done | wc -l | tr -d ' ') (in $(echo "$outside" | grep -c . ) files)"
# The same calls, counted as calls: unqualified or through Glibc./Darwin., outside comments
# and declarations (the line above also counts `Syscall.close(`, `case close(fd:)`, doc
# comments). What remains can still be a method of ours with a system call's name.
names='socket|bind|connect|setsockopt|getsockopt|recv|recvfrom|recvmsg|send|sendto|sendmsg|read|write|close|poll|epoll_create1|epoll_ctl|epoll_wait|eventfd|inotify_init1|inotify_add_watch|inotify_rm_watch|clock_gettime|setns|signalfd|accept|accept4|listen|getsockname|pipe|fcntl|open|lseek|readlink|shutdown'
direct=$(grep -rnE --include=*.swift "(^|[^.[:alnum:]_])($names)\(|(Glibc|Darwin)\.($names)\(" Sources \
  | grep -v 'Sources/NetPath/Linux/Syscalls.swift' | grep -vE '^[^:]+:[0-9]+:\s*//' | grep -vE "(func|case) ($names)\(" || true)
echo "direct calls outside the layer: $(echo "$direct" | grep -c .)"
