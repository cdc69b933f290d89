// The floor for the storm (Benchmarks/storm-floor.sh): a netlink reader that does only what
// any monitor must, the way netpath's reader waits: epoll_wait, then recvmmsg (8 datagrams)
// until the queue is empty, walking each message's header; no parsing beyond, no output.
// Built by storm-floor.sh with `cc -O2`. Ends on SIGTERM, printing how many messages it read.
#define _GNU_SOURCE
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
static volatile sig_atomic_t done;
static void stop(int s) { (void)s; done = 1; }
int main(void) {
  signal(SIGTERM, stop);
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
  int size = 4 << 20; setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size);
  struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE | RTMGRP_IPV4_RULE };
  bind(fd, (struct sockaddr *)&a, sizeof a);
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd }; epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  static char bufs[8][32768]; struct mmsghdr m[8]; struct iovec io[8];
  long messages = 0;
  printf("ready\n"); fflush(stdout);
  while (!done) {
    struct epoll_event got;
    if (epoll_wait(ep, &got, 1, 200) <= 0) continue;
    for (;;) {
      for (int i = 0; i < 8; i++) { io[i].iov_base = bufs[i]; io[i].iov_len = sizeof bufs[i]; memset(&m[i], 0, sizeof m[i]); m[i].msg_hdr.msg_iov = &io[i]; m[i].msg_hdr.msg_iovlen = 1; }
      int n = recvmmsg(fd, m, 8, MSG_DONTWAIT, NULL);
      if (n <= 0) break;
      for (int i = 0; i < n; i++) {
        int len = m[i].msg_len;
        for (struct nlmsghdr *h = (struct nlmsghdr *)bufs[i]; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) messages++;
      }
      if (n < 8) break;
    }
  }
  fprintf(stderr, "%ld messages\n", messages);
  return 0;
}
