#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A signal number (swift-system's style: the C library's number, named): what the tool
/// blocks, waits for and ignores (``Syscall/blockSignals(_:)``, ``Syscall/ignoreSignal(_:)``).
package struct Signal: RawRepresentable, Hashable, Sendable {
    package var rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The terminal's interrupt (Ctrl-C).
    ///
    /// The corresponding C constant is `SIGINT`.
    package static var interrupt: Signal { Signal(rawValue: SIGINT) }

    /// A request to end (systemd's stop, `kill`).
    ///
    /// The corresponding C constant is `SIGTERM`.
    package static var terminate: Signal { Signal(rawValue: SIGTERM) }

    /// The controlling terminal hung up; for a service, a request to re-read its
    /// configuration.
    ///
    /// The corresponding C constant is `SIGHUP`.
    package static var hangUp: Signal { Signal(rawValue: SIGHUP) }

    /// A write to a pipe or socket whose reader left.
    ///
    /// The corresponding C constant is `SIGPIPE`.
    package static var brokenPipe: Signal { Signal(rawValue: SIGPIPE) }
}
