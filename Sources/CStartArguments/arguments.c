// The command line of the `netpath` executable, for the Swift runtime's `CommandLine`.
//
// On Linux the runtime finds `argv` in a C++ static initializer that cannot be given it:
// it walks back from `environ` and checks each pointer against the stack's bounds, which
// it reads from /proc/self/maps with `fgets` and `sscanf`. That is one file opened and
// read, and about 110,000 instructions, about a tenth of a one-shot `netpath status`
// (BENCHMARKS.md, "Start-up without the runtime's argv scan").
//
// glibc hands `argc` and `argv` to every function in the executable's `.init_array`. One
// of ours keeps them, and the two functions the runtime's `CommandLine` calls are defined
// here. The static linker then finds them in this object and never pulls the runtime's
// CommandLine.cpp.o, its initializer included, out of libswiftCore.a. Where the standard
// library is a shared library (debug builds, tests), ours answer the same.
//
// Only the executable depends on this target: a library must not replace the runtime's
// functions in someone else's app. Only glibc: musl calls `.init_array` functions with no
// arguments, and there the runtime's own functions stay.
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

__attribute__((section(".init_array"), used))
static void (*const keepArgumentsAtStart)(int, char **, char **) = keepArguments;

// The runtime's declarations (stdlib/public/CommandLineSupport/CommandLine.cpp).
char **_swift_stdlib_getUnsafeArgvArgc(int *count);
void _swift_stdlib_overrideUnsafeArgvArgc(char **arguments, int count);

char **_swift_stdlib_getUnsafeArgvArgc(int *count) {
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

void _swift_stdlib_overrideUnsafeArgvArgc(char **arguments, int count) {
    overriddenArguments = arguments;
    overriddenCount = count;
}
#endif
