// The command line of the `netpath` executable, for the Swift runtime's `CommandLine`.
//
// On Linux the runtime finds `argv` in a C++ static initializer that cannot be given it:
// it walks back from `environ` and checks each pointer against the stack's bounds, which
// it reads from /proc/self/maps with `fgets` and `sscanf`. That is one file opened and
// read, and about 95,000 instructions, a tenth of a one-shot `netpath status`
// (BENCHMARKS.md, "Start-up without the runtime's argv scan").
//
// glibc hands `argc` and `argv` to every function in the executable's `.init_array`. One
// of ours keeps them, and the two functions the runtime's `CommandLine` calls are defined
// here. The static linker then finds them in this object and never pulls the runtime's
// CommandLine.cpp.o, its initializer included, out of libswiftCore.a (`.ci/run` checks). Where
// the standard library is a shared library (debug builds, tests), it calls its own copies,
// which it does not export, and these are unused.
//
// Only the executable depends on this target (and the CLI tests, which link the executable's
// module): a library must not replace the runtime's functions in someone else's app. Only
// glibc: musl calls `.init_array` functions with no arguments, and there the runtime's own
// functions stay.
#ifdef __linux__
#include <features.h>  // defines __GLIBC__ on glibc
#endif
#if defined(__linux__) && defined(__GLIBC__)
#include <stddef.h>
#include "CStartArguments.h"

static int startCount;
static char **startArguments;
static int overriddenCount;
static char **overriddenArguments;

static void keepArguments(int count, char **arguments, char **environment) {
    (void)environment;
    startCount = count;
    startArguments = arguments;
}

// Priority 101, the first an application may use: lld puts it ahead of the unnumbered
// entries (the runtime's static initializers among them), so nothing can ask for the command
// line before it is kept.
__attribute__((section(".init_array.00101"), used))
static void (*const keepArgumentsAtStart)(int, char **, char **) = keepArguments;

// The runtime's declarations (stdlib/public/CommandLineSupport/CommandLine.cpp): Swift's
// calling convention, as the standard library calls them.
__attribute__((swiftcall)) char **_swift_stdlib_getUnsafeArgvArgc(int *count);
__attribute__((swiftcall)) void _swift_stdlib_overrideUnsafeArgvArgc(char **arguments, int count);

__attribute__((swiftcall)) char **_swift_stdlib_getUnsafeArgvArgc(int *count) {
    static char *none[] = {NULL};
    if (overriddenArguments) {
        *count = overriddenCount;
        return overriddenArguments;
    }
    if (startArguments) {
        *count = startCount;
        return startArguments;
    }
    *count = 0;
    return none;
}

__attribute__((swiftcall)) void _swift_stdlib_overrideUnsafeArgvArgc(char **arguments, int count) {
    overriddenArguments = arguments;
    overriddenCount = count;
}
#endif
