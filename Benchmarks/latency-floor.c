// The latency floor (issue 37): what a monitor that asks the kernel as NetPath does costs at
// the least, in C with no bookkeeping. On each batch of rtnetlink events (links, IPv4
// addresses and routes) it asks what a UDP socket to 1.1.1.1 gets, as NetPath's reader does
// for the family that changed: connect(AF_UNSPEC), connect(), getsockname(), then the route
// from that source (RTM_GETROUTE, answered before sendto returns). It prints
// {"status":"satisfied"} or {"status":"unsatisfied"} when the answer changes, one line, as
// `netpath watch --json` does. No JSON beyond that, no path model, no IPv6, no rules,
// neighbours or expiry: a floor, not a monitor. Run inside the namespace (Benchmarks/
// latency-floor.sh, through `ip netns exec`); never run by CI.
//
// `latency-floor CODE DATA` also touches, after each answer and before its line, CODE lines
// of code (a call to each of CODE one-instruction functions 64 bytes or more apart, about ten
// to a page, in a shuffled order) and DATA lines of data (a load from each, about six to a
// page, in a shuffled order): a monitor whose work per event touches that many lines, as
// Benchmarks/working-set.sh counts them, but does nothing with them. `latency-floor CODE DATA
// CODE_PER_PAGE DATA_PER_PAGE` puts that many of each to a page (64: side by side).
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

static int events, queries, udp;
static struct sockaddr_in target;

static void attribute(struct nlmsghdr *header, unsigned short type, const void *data, unsigned short length) {
    struct rtattr *rta = (struct rtattr *)((char *)header + NLMSG_ALIGN(header->nlmsg_len));
    rta->rta_type = type;
    rta->rta_len = RTA_LENGTH(length);
    memcpy(RTA_DATA(rta), data, length);
    header->nlmsg_len = NLMSG_ALIGN(header->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

// 1 when a socket to 1.1.1.1 gets out: a source from connect(), and a route from it.
static int ask(void) {
    static unsigned sequence;
    struct sockaddr unspecified = {.sa_family = AF_UNSPEC};
    connect(udp, &unspecified, sizeof unspecified);
    if (connect(udp, (struct sockaddr *)&target, sizeof target) != 0) return 0;
    struct sockaddr_in source;
    socklen_t length = sizeof source;
    if (getsockname(udp, (struct sockaddr *)&source, &length) != 0) return 0;
    union { struct nlmsghdr header; char bytes[256]; } request;
    memset(&request, 0, sizeof request);
    request.header.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
    request.header.nlmsg_type = RTM_GETROUTE;
    request.header.nlmsg_flags = NLM_F_REQUEST;
    request.header.nlmsg_seq = ++sequence;
    struct rtmsg *route = NLMSG_DATA(&request.header);
    route->rtm_family = AF_INET;
    route->rtm_dst_len = 32;
    route->rtm_src_len = 32;
    attribute(&request.header, RTA_DST, &target.sin_addr, 4);
    attribute(&request.header, RTA_SRC, &source.sin_addr, 4);
    uint32_t uid = (uint32_t)getuid();
    attribute(&request.header, RTA_UID, &uid, 4);
    if (send(queries, &request, request.header.nlmsg_len, 0) < 0) return 0;
    // The answer to this request (a late one to an earlier request is skipped).
    union { struct nlmsghdr header; char bytes[4096]; } reply;
    for (;;) {
        ssize_t count = recv(queries, &reply, sizeof reply, 0);
        if (count < 0 && errno == EINTR) continue;
        if (count < (ssize_t)sizeof reply.header) return 0;
        if (reply.header.nlmsg_seq == sequence) return reply.header.nlmsg_type == RTM_NEWROUTE;
    }
}

// The lines touched per event (see the head of the file).
static void (**functions)(void);
static volatile unsigned char **loads;
static int codeLines, dataLines;

static void shuffle(void **items, int count) {
    for (int i = count - 1; i > 0; i--) {
        int j = rand() % (i + 1);
        void *item = items[i];
        items[i] = items[j];
        items[j] = item;
    }
}

static int codePerPage = 10, dataPerPage = 6;

static int prepare(int code, int data) {
    codeLines = code;
    dataLines = data;
    size_t codePages = (size_t)code / codePerPage + 1, dataPages = (size_t)data / dataPerPage + 1;
    unsigned char *text = mmap(NULL, codePages * 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *heap = mmap(NULL, dataPages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    functions = calloc((size_t)code + 1, sizeof *functions);
    loads = calloc((size_t)data + 1, sizeof *loads);
    if (text == MAP_FAILED || heap == MAP_FAILED || !functions || !loads) return -1;
    for (int i = 0; i < code; i++) {
        unsigned char *at = text + (size_t)(i / codePerPage) * 4096 + (size_t)(i % codePerPage) * (4096 / codePerPage / 64 * 64);
        *at = 0xc3;  // ret
        functions[i] = (void (*)(void))(void *)at;
    }
    for (int i = 0; i < data; i++) {
        loads[i] = heap + (size_t)(i / dataPerPage) * 4096 + (size_t)(i % dataPerPage) * (4096 / dataPerPage / 64 * 64);
        *loads[i] = (unsigned char)i;
    }
    srand(1);
    shuffle((void **)functions, code);
    shuffle((void **)loads, data);
    return 0;
}

static void touch(void) {
    unsigned sum = 0;
    for (int i = 0; i < dataLines; i++) sum += *loads[i];
    for (int i = 0; i < codeLines; i++) functions[i]();
    if (sum == 0xffffffff) write(2, "", 0);
}

int main(int argc, char **argv) {
    if (argc > 4) {
        codePerPage = atoi(argv[3]);
        dataPerPage = atoi(argv[4]);
        if (codePerPage < 1 || codePerPage > 64 || dataPerPage < 1 || dataPerPage > 64) {
            fputs("latency-floor: lines per page are 1 to 64\n", stderr);
            return 2;
        }
    }
    if (argc > 2 && prepare(atoi(argv[1]), atoi(argv[2])) != 0) {
        perror("latency-floor");
        return 1;
    }
    events = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    queries = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int size = 4 << 20;
    setsockopt(events, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size);
    struct sockaddr_nl groups = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE};
    if (events < 0 || queries < 0 || udp < 0 || bind(events, (struct sockaddr *)&groups, sizeof groups) != 0) {
        perror("latency-floor");
        return 1;
    }
    target.sin_family = AF_INET;
    target.sin_port = htons(53);
    inet_pton(AF_INET, "1.1.1.1", &target.sin_addr);
    static const char satisfied[] = "{\"status\":\"satisfied\"}\n", unsatisfied[] = "{\"status\":\"unsatisfied\"}\n";
    int last = ask();
    write(1, last ? satisfied : unsatisfied, last ? sizeof satisfied - 1 : sizeof unsatisfied - 1);
    static char buffer[1 << 16];
    for (;;) {
        if (recv(events, buffer, sizeof buffer, 0) < 0 && errno != ENOBUFS) return 1;
        while (recv(events, buffer, sizeof buffer, MSG_DONTWAIT) > 0) {}
        int now = ask();
        touch();
        if (now != last) {
            last = now;
            write(1, now ? satisfied : unsatisfied, now ? sizeof satisfied - 1 : sizeof unsatisfied - 1);
        }
    }
}
