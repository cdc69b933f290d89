// GNU extensions the test support needs; Swift's Glibc module does not import them.
#pragma once
#include <spawn.h>

/// `pipe2(fds, O_CLOEXEC)`.
int ctest_pipe_cloexec(int fds[2]);

/// `posix_spawn_file_actions_addclosefrom_np(actions, from)`: the child closes every
/// descriptor from `from` up before it runs.
int ctest_spawn_closefrom(posix_spawn_file_actions_t *actions, int from);
