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
#endif
