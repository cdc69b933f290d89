// GNU extensions the test support needs; Swift's Glibc module does not import them.
#pragma once
#include <spawn.h>

/// `pipe2(fds, O_CLOEXEC)`.
int ctest_pipe_cloexec(int fds[2]);

/// `posix_spawn_file_actions_addclosefrom_np(actions, from)`: the child closes every
/// descriptor from `from` up before it runs.
int ctest_spawn_closefrom(posix_spawn_file_actions_t *actions, int from);

/// On a thread of its own (setns switches only the calling thread), enters the network
/// namespace at `namespace_path` and attaches a descriptor to the tun device `name` there
/// (TUNSETIFF, IFF_TUN | IFF_NO_PI), as a VPN daemon holds it. Returns the descriptor, or -1.
int ctest_tun_attach_in(const char *namespace_path, const char *name);

/// On a thread of its own, enters the network namespace at `namespace_path` and connects a
/// UDP socket of `family` to 1.1.1.1 or 2606:4700:4700::1111 port 53, as an app's socket
/// does (no packet is sent). Returns 0 and writes the source the kernel picked to `source`,
/// or the socket's errno (-1 when the namespace cannot be entered).
int ctest_connect_in(const char *namespace_path, int family, char *source, int source_size);
