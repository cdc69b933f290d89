#ifdef __linux__
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <linux/if.h>
#include <linux/wireless.h>
#include "CNetlink.h"

int cnetlink_setns_net(int fd) {
    return setns(fd, CLONE_NEWNET);
}

int cnetlink_recv_batch(int fd, void *buffer, size_t size, unsigned count,
                        uint32_t *lengths, int32_t *flags, int block) {
    // On the stack of every read: the reader asks for 8 (NetlinkSocket.slotCount), and a
    // frame sized for 64 put 6 kB between its caller and recvmmsg (two pages more per turn).
    enum { maxBatch = 16 };
    if (count > maxBatch) count = maxBatch;
    struct mmsghdr msgs[maxBatch];
    struct iovec iovs[maxBatch];
    struct sockaddr_nl peers[maxBatch];
    memset(msgs, 0, sizeof(struct mmsghdr) * count);
    for (unsigned i = 0; i < count; i++) {
        iovs[i].iov_base = (char *)buffer + (size_t)i * size;
        iovs[i].iov_len = size;
        msgs[i].msg_hdr.msg_iov = &iovs[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_name = &peers[i];
        msgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_nl);
    }
    int n;
    do {
        n = recvmmsg(fd, msgs, count, block ? MSG_WAITFORONE : MSG_DONTWAIT, NULL);
    } while (n < 0 && errno == EINTR);
    for (int i = 0; i < n; i++) {
        lengths[i] = msgs[i].msg_len;
        int32_t f = (int32_t)msgs[i].msg_hdr.msg_flags;
        // A datagram that did not come from the kernel (port id 0) is marked so the
        // caller can drop it: another process may send to our socket.
        if (peers[i].nl_pid != 0) f |= (int32_t)CNETLINK_MSG_NOT_FROM_KERNEL;
        flags[i] = f;
    }
    return n;
}

int cnetlink_is_wireless(int fd, const char *name) {
    struct iwreq request;
    memset(&request, 0, sizeof request);
    strncpy(request.ifr_name, name, IFNAMSIZ - 1);
    return ioctl(fd, SIOCGIWNAME, &request) == 0;
}

long long cnetlink_file_system_type(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) return -1;
    return (long long)info.f_type;
}

int cnetlink_pidfd_open(int pid) {
    return (int)syscall(434 /* SYS_pidfd_open */, pid, 0);
}

int cnetlink_open_in_root(int root, const char *path, int flags) {
    // struct open_how (linux/openat2.h), spelled out: older headers lack it.
    struct { uint64_t flags, mode, resolve; } how = { (uint64_t)(unsigned)(flags | O_CLOEXEC), 0, 0x10 /* RESOLVE_IN_ROOT */ };
    return (int)syscall(437 /* SYS_openat2 */, root, path, &how, sizeof how);
}

int cnetlink_set_thread_name(pthread_t thread, const char *name) {
    return pthread_setname_np(thread, name);
}

int cnetlink_signalfd(const sigset_t *set) {
    return signalfd(-1, set, SFD_CLOEXEC);
}

int cnetlink_single_malloc_arena(void) {
    return mallopt(M_ARENA_MAX, 1);
}

int cnetlink_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

int cnetlink_timerfd(void) {
    return timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK);
}

int cnetlink_timerfd_at(int fd, uint64_t nanoseconds) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    spec.it_value.tv_sec = (time_t)(nanoseconds / 1000000000u);
    spec.it_value.tv_nsec = (long)(nanoseconds % 1000000000u);
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}
#endif // __linux__
