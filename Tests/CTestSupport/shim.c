#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>
#include "CTestSupport.h"
#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <errno.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#endif

#ifdef __linux__
int ctest_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int ctest_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

struct tun_request { const char *namespace_path; const char *name; int fd; };

static void *tun_attach_thread(void *context) {
    struct tun_request *request = context;
    int ns = open(request->namespace_path, O_RDONLY | O_CLOEXEC);
    if (ns < 0) return NULL;
    int entered = setns(ns, CLONE_NEWNET);
    close(ns);
    if (entered != 0) return NULL;
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    strncpy(ifr.ifr_name, request->name, IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) { close(fd); return NULL; }
    request->fd = fd;
    return NULL;
}

struct connect_request { const char *namespace_path; int family; char source[64]; int error; };

static void *connect_thread(void *context) {
    struct connect_request *request = context;
    request->error = -1;
    int ns = open(request->namespace_path, O_RDONLY | O_CLOEXEC);
    if (ns < 0) return NULL;
    int entered = setns(ns, CLONE_NEWNET);
    close(ns);
    if (entered != 0) return NULL;
    int fd = socket(request->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { request->error = errno; return NULL; }
    struct sockaddr_storage address;
    memset(&address, 0, sizeof address);
    socklen_t length;
    if (request->family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)&address;
        in->sin_family = AF_INET; in->sin_port = htons(53);
        inet_pton(AF_INET, "1.1.1.1", &in->sin_addr);
        length = sizeof *in;
    } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&address;
        in6->sin6_family = AF_INET6; in6->sin6_port = htons(53);
        inet_pton(AF_INET6, "2606:4700:4700::1111", &in6->sin6_addr);
        length = sizeof *in6;
    }
    if (connect(fd, (struct sockaddr *)&address, length) != 0) { request->error = errno; close(fd); return NULL; }
    length = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &length) != 0) { request->error = errno; close(fd); return NULL; }
    const void *bytes = request->family == AF_INET ? (const void *)&((struct sockaddr_in *)&address)->sin_addr
                                                   : (const void *)&((struct sockaddr_in6 *)&address)->sin6_addr;
    inet_ntop(request->family, bytes, request->source, sizeof request->source);
    request->error = 0;
    close(fd);
    return NULL;
}

int ctest_connect_in(const char *namespace_path, int family, char *source, int source_size) {
    struct connect_request request;
    memset(&request, 0, sizeof request);
    request.namespace_path = namespace_path;
    request.family = family;
    pthread_t thread;
    if (pthread_create(&thread, NULL, connect_thread, &request) != 0) return -1;
    pthread_join(thread, NULL);
    if (request.error == 0) { strncpy(source, request.source, source_size - 1); source[source_size - 1] = 0; }
    return request.error;
}

int ctest_tun_attach_in(const char *namespace_path, const char *name) {
    struct tun_request request = { namespace_path, name, -1 };
    pthread_t thread;
    if (pthread_create(&thread, NULL, tun_attach_thread, &request) != 0) return -1;
    pthread_join(thread, NULL);
    return request.fd;
}
#else
// Elsewhere (the tests run on Linux; this keeps `swift build` of the package working):
// a pipe made close-on-exec afterwards, and no closefrom action.
int ctest_pipe_cloexec(int fds[2]) {
    if (pipe(fds) != 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

int ctest_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
    (void)actions;
    (void)from;
    return 0;
}

int ctest_tun_attach_in(const char *namespace_path, const char *name) {
    (void)namespace_path;
    (void)name;
    return -1;
}

int ctest_connect_in(const char *namespace_path, int family, char *source, int source_size) {
    (void)namespace_path; (void)family; (void)source; (void)source_size;
    return -1;
}
#endif
