import NetPath

/// Unbuffered, whole-line writes: each line reaches a pipe as soon as it is produced.
enum Terminal {
    /// Writes `text` to standard output; `false` when its reader has gone (`EPIPE`), which
    /// `watch` takes as its end.
    @discardableResult
    static func write(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { writeAll(.standardOutput, UnsafeRawBufferPointer($0)) }
    }

    @discardableResult
    static func write(bytes: [UInt8]) -> Bool {
        (try? output(bytes)) ?? false
    }

    /// Writes `bytes` to standard output: `true` when written, `false` when its reader has
    /// gone (`EPIPE`, as `head -1` leaves); any other failure (a full disk, `/dev/full`, a
    /// closed descriptor) is an error the command ends with (exit 3): a `watch >> file`
    /// service must not "succeed" with nothing written.
    @discardableResult
    static func output(_ bytes: [UInt8]) throws -> Bool {
        let written = bytes.withUnsafeBufferPointer { Syscall.writeAll(.standardOutput, UnsafeRawBufferPointer($0), standardStream: true) }
        switch written {
        case .success: return true
        case .failure(let error) where error == .brokenPipe: return false
        case .failure(let error): throw NetPathCommand.CommandError("cannot write to standard output: \(error)", .runtime)
        }
    }

    static func writeError(_ text: String) {
        var text = text
        _ = text.withUTF8 { writeAll(.standardError, UnsafeRawBufferPointer($0)) }
    }

    /// `netpath: MESSAGE` on standard error, on one line whatever the message holds, and at
    /// most ``longestReport`` characters of it (a 100 kB argument quoted whole helps nobody).
    static func report(_ message: String) {
        let line = oneLine(message)
        writeError("netpath: \(line.count > longestReport ? line.prefix(longestReport) + "…" : line)\n")
    }

    /// The longest error message written whole.
    static let longestReport = 1_000

    /// The message with control characters shown as escapes: a word the user typed with a
    /// newline or a terminal escape in it must not break the one-line rule or the terminal.
    static func oneLine(_ message: String) -> String {
        NetworkPath.visible(message)
    }

    private static func writeAll(_ descriptor: FileDescriptor, _ bytes: UnsafeRawBufferPointer) -> Bool {
        // A failure is EPIPE: the reader went away; nothing more can be shown.
        (try? Syscall.writeAll(descriptor, bytes, standardStream: true).get()) != nil
    }
}
