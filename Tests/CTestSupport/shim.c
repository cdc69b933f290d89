#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>
#include "CTestSupport.h"

#ifdef __linux__
int ctest_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int ctest_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
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
#endif
