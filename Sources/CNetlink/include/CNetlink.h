// C shim for the Linux rtnetlink API. Everything is guarded by __linux__ so the
// module is empty (and harmless) on other systems.
#ifndef CNETLINK_H
#define CNETLINK_H

#ifdef __linux__
#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/if_arp.h>
#include <linux/fib_rules.h>
#include <linux/nexthop.h>
#include <linux/neighbour.h>
#include <linux/filter.h>

// Layout facts the Swift parser relies on (it reads fields at these offsets).
_Static_assert(sizeof(struct nlmsghdr) == 16, "nlmsghdr");
_Static_assert(sizeof(struct nlmsgerr) == 20, "nlmsgerr");
_Static_assert(sizeof(struct ifinfomsg) == 16, "ifinfomsg");
_Static_assert(offsetof(struct ifinfomsg, ifi_type) == 2, "ifi_type");
_Static_assert(offsetof(struct ifinfomsg, ifi_index) == 4, "ifi_index");
_Static_assert(offsetof(struct ifinfomsg, ifi_flags) == 8, "ifi_flags");
_Static_assert(sizeof(struct ifaddrmsg) == 8, "ifaddrmsg");
_Static_assert(offsetof(struct ifaddrmsg, ifa_index) == 4, "ifa_index");
_Static_assert(sizeof(struct rtmsg) == 12, "rtmsg");
_Static_assert(offsetof(struct rtmsg, rtm_flags) == 8, "rtm_flags");
_Static_assert(sizeof(struct rtattr) == 4, "rtattr");
_Static_assert(sizeof(struct rtnexthop) == 8, "rtnexthop");
_Static_assert(sizeof(struct rta_cacheinfo) == 32, "rta_cacheinfo");
_Static_assert(offsetof(struct rta_cacheinfo, rta_expires) == 8, "rta_expires");
_Static_assert(sizeof(struct fib_rule_hdr) == 12, "fib_rule_hdr");
_Static_assert(offsetof(struct fib_rule_hdr, action) == 7, "fib_rule_hdr.action");
_Static_assert(offsetof(struct fib_rule_hdr, flags) == 8, "fib_rule_hdr.flags");
_Static_assert(sizeof(struct ndmsg) == 12, "ndmsg");
_Static_assert(offsetof(struct ndmsg, ndm_ifindex) == 4, "ndm_ifindex");
_Static_assert(offsetof(struct ndmsg, ndm_state) == 8, "ndm_state");
_Static_assert(sizeof(struct sock_filter) == 8, "sock_filter");
_Static_assert(sizeof(struct nhmsg) == 8, "nhmsg");
_Static_assert(sizeof(struct nexthop_grp) == 8, "nexthop_grp");
// The constants NetlinkConstants.swift spells out (Swift cannot import them all).
_Static_assert(RTM_NEWRULE == 32 && RTM_GETRULE == 34, "rule message types");
_Static_assert(RTM_NEWNEXTHOP == 104 && RTM_GETNEXTHOP == 106, "nexthop message types");
_Static_assert(RTNLGRP_IPV6_RULE == 19 && RTNLGRP_NEXTHOP == 32, "rule and nexthop groups");
_Static_assert(RTA_PREFSRC == 7 && RTA_CACHEINFO == 12 && RTA_NH_ID == 30, "route attributes");
_Static_assert(RTM_F_CLONED == 0x200 && RTM_F_LOOKUP_TABLE == 0x1000 && RTM_F_FIB_MATCH == 0x2000, "route flags");
_Static_assert(FR_ACT_BLACKHOLE == 6 && FR_ACT_UNREACHABLE == 7 && FR_ACT_PROHIBIT == 8, "rule actions");
_Static_assert(NHA_ID == 1 && NHA_GROUP == 2 && NHA_BLACKHOLE == 4 && NHA_OIF == 5 && NHA_GATEWAY == 6, "nexthop attributes");
_Static_assert(IF_OPER_DORMANT == 5 && IF_OPER_UP == 6, "operational states");
_Static_assert(RTNLGRP_IPV4_NETCONF == 24 && RTNLGRP_IPV6_NETCONF == 25 && RTM_NEWNETCONF == 80, "netconf");
_Static_assert(IFLA_GROUP == 27 && IFA_F_OPTIMISTIC == 0x04 && RTA_SRC == 2, "group, optimistic, route source");
_Static_assert(RTA_IP_PROTO == 27 && RTA_DPORT == 29, "lookup flow attributes");
_Static_assert(FR_ACT_TO_TBL == 1 && FR_ACT_GOTO == 2 && FRA_UID_RANGE == 20 && FRA_DPORT_RANGE == 24, "rule selectors");
_Static_assert(sizeof(struct fib_rule_uid_range) == 8 && sizeof(struct fib_rule_port_range) == 4, "rule ranges");

// The kernel's error numbers LinuxErrno.swift writes in the pure core (netlink answers carry
// them): the C library's constants agree (the host's errno is named from those, in Swift).
_Static_assert(EPERM == 1 && EACCES == 13 && EINVAL == 22 && EOPNOTSUPP == 95 && EAFNOSUPPORT == 97
               && EADDRNOTAVAIL == 99 && ENETUNREACH == 101 && EHOSTUNREACH == 113, "Linux error numbers");

/// Switches the calling thread into the namespace behind `fd` (`setns(fd, CLONE_NEWNET)`).
/// Returns 0 or -1 with errno set.
int cnetlink_setns_net(int fd);

/// The flag `cnetlink_recv_batch` sets on a datagram that did not come from the kernel
/// (sender port id not 0); one name for C and Swift.
enum { CNETLINK_MSG_NOT_FROM_KERNEL = 0x40000000 };

/// `recvmmsg`: fills up to `count` buffers of `size` bytes each from `buffer`, storing each
/// datagram's length and flags. With `block`, waits for the first datagram
/// (`MSG_WAITFORONE`), otherwise never waits (`MSG_DONTWAIT`). Returns the number received
/// or -1 with errno set (EINTR is retried).
int cnetlink_recv_batch(int fd, void *buffer, size_t size, unsigned count,
                        uint32_t *lengths, int32_t *flags, int block);

/// Whether `name` answers the wireless-extensions ioctl (SIOCGIWNAME) on socket `fd`,
/// which is evaluated in the socket's own network namespace.
int cnetlink_is_wireless(int fd, const char *name);

/// The file system type of `path` (`statfs(2)`'s `f_type`: `NSFS_MAGIC` for a namespace
/// file), or -1 with errno set.
long long cnetlink_file_system_type(const char *path);

/// `pidfd_open(pid, 0)` (Linux 5.3): a descriptor that becomes readable when the process
/// exits, or -1 with errno set.
int cnetlink_pidfd_open(int pid);

/// `openat2(root, path, {flags | O_CLOEXEC, 0, RESOLVE_IN_ROOT})` (Linux 5.6): `path`
/// opened as if `root` (a directory) were `/`, absolute symlinks and `..` included, or -1
/// with errno set (`ENOSYS` on an older kernel).
int cnetlink_open_in_root(int root, const char *path, int flags);

/// Names a thread (at most 15 bytes show), for `top -H` and debuggers.
int cnetlink_set_thread_name(pthread_t thread, const char *name);

/// `signalfd(-1, set, SFD_CLOEXEC)`: the signals in `set` (blocked) become readable.
int cnetlink_signalfd(const sigset_t *set);

/// `mallopt(M_ARENA_MAX, 1)`: one malloc arena for the whole process.
int cnetlink_single_malloc_arena(void);

/// `eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)`.
int cnetlink_eventfd(void);

/// `timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK)`: a timer on the clock that
/// counts a suspend.
int cnetlink_timerfd(void);

/// Arms the timer `fd` to expire once at `nanoseconds` on its clock (absolute); 0 disarms it.
int cnetlink_timerfd_at(int fd, uint64_t nanoseconds);

#endif // __linux__
#endif // CNETLINK_H
