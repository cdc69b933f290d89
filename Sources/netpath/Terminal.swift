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
        bytes.withUnsafeBufferPointer { writeAll(.standardOutput, UnsafeRawBufferPointer($0)) }
    }

    static func writeError(_ text: String) {
        var text = text
        _ = text.withUTF8 { writeAll(.standardError, UnsafeRawBufferPointer($0)) }
    }

    /// `netpath: MESSAGE` on standard error, on one line whatever the message holds.
    static func report(_ message: String) {
        writeError("netpath: \(oneLine(message))\n")
    }

    /// The message with control characters shown as escapes: a word the user typed with a
    /// newline or a terminal escape in it must not break the one-line rule or the terminal.
    static func oneLine(_ message: String) -> String {
        var result = ""
        for scalar in message.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func writeAll(_ descriptor: FileDescriptor, _ bytes: UnsafeRawBufferPointer) -> Bool {
        // A failure is EPIPE: the reader went away; nothing more can be shown.
        (try? Syscall.writeAll(descriptor, bytes, standardStream: true).get()) != nil
    }
}
