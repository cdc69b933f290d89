// Nothing to import: this target only replaces two functions of the Swift runtime in the
// `netpath` executable (arguments.c says why).
