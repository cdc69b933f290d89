import Foundation
import KernelTestSupport

/// The `netpath` binary that `swift build` made beside the test bundle.
let netpathBinary: String = {
    let here = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    for candidate in [here.appendingPathComponent("netpath").path, here.deletingLastPathComponent().appendingPathComponent("netpath").path,
                      FileManager.default.currentDirectoryPath + "/.build/debug/netpath"]
    where FileManager.default.isExecutableFile(atPath: candidate) {
        return candidate
    }
    return "netpath"
}()

/// What a finished run printed and returned.
struct Outcome {
    var status: Int32
    var standardOutput: String
    var standardError: String
    var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }
}

/// A running `netpath`, read line by line as it writes (proving output is flushed).
final class RunningTool: @unchecked Sendable {
    // Touched only by the test that owns it.
    private let child: Child
    private var buffer: [UInt8] = []
    private var errorBuffer: [UInt8] = []

    init(_ arguments: [String], executable: String = netpathBinary, environment: [String: String] = [:]) throws {
        child = try Child(executable, arguments, environment: environment)
    }

    var processIdentifier: pid_t { child.pid }

    /// The next line of standard output, or `nil` at end of output or after `seconds`.
    func nextLine(seconds: Double = 10) -> String? {
        RunningTool.nextLine(from: child.output, buffer: &buffer, seconds: seconds)
    }

    /// The next line of standard error, as ``nextLine(seconds:)`` reads standard output.
    func nextErrorLine(seconds: Double = 10) -> String? {
        RunningTool.nextLine(from: child.errors, buffer: &errorBuffer, seconds: seconds)
    }

    private static func nextLine(from descriptor: Int32, buffer: inout [UInt8], seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0, descriptor >= 0 else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &chunk, chunk.count)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    func signal(_ number: Int32) { child.signal(number) }

    /// Whether the process has blocked `number` to take it with sigwait (it does so first
    /// thing in main), read from /proc; `false` after `seconds`.
    func isHandling(_ number: Int32, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let status = (try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8)) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
               let mask = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16),
               mask & (1 << UInt64(number - 1)) != 0 {
                return true
            }
            sched_yield()
        }
        return false
    }

    /// Whether a thread of it named `thread` waits inside the kernel in a function whose name
    /// contains `call` (`/proc/PID/task/*/wchan`, e.g. `pipe_write`).
    func isWaiting(in call: String, thread: String) -> Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.pid)/task")) ?? []
        return tasks.contains { task in
            let base = "/proc/\(child.pid)/task/\(task)/"
            return (try? String(contentsOfFile: base + "comm", encoding: .utf8))?.hasPrefix(thread) == true
                && (try? String(contentsOfFile: base + "wchan", encoding: .utf8))?.contains(call) == true
        }
    }

    /// Waits for the exit without reading its output, at most `seconds`; kills it and
    /// returns `nil` when it hangs.
    func exitStatusUnread(seconds: Double = 10) -> Int32? {
        guard let status = child.wait(seconds: seconds) else {
            child.kill()
            return nil
        }
        return status
    }

    /// Closes our end of its standard output, as `head -1` does after one line.
    func closeOutput() { child.closeOutput() }

    /// Waits for the exit, at most `seconds`; kills it and returns `nil` when it hangs.
    func finish(seconds: Double = 10) -> Outcome? {
        let deadline = Date().addingTimeInterval(seconds)
        let (rest, errors) = child.readToEnd(until: deadline)
        guard let status = child.wait(seconds: max(0, deadline.timeIntervalSinceNow)) else {
            child.kill()
            return nil
        }
        return Outcome(status: status,
                       standardOutput: String(decoding: buffer + rest, as: UTF8.self),
                       standardError: String(decoding: errorBuffer + errors, as: UTF8.self))
    }
}

/// Runs `netpath` to its end (at most `seconds`).
func netpath(_ arguments: String..., environment: [String: String] = [:], seconds: Double = 15) throws -> Outcome? {
    try RunningTool(arguments, environment: environment).finish(seconds: seconds)
}

/// Parses one JSON line into a dictionary, keeping key order.
func jsonKeys(_ line: String) -> [String] {
    // Key order matters (SPEC §4 lists it); JSONSerialization forgets it, so read the keys.
    var keys: [String] = []
    var depth = 0
    var index = line.startIndex
    var inString = false
    var stringStart = line.startIndex
    while index < line.endIndex {
        let character = line[index]
        if inString {
            if character == "\\" { index = line.index(after: index) } else if character == "\"" {
                inString = false
                let next = line[line.index(after: index)...].first
                if depth == 1 && next == ":" { keys.append(String(line[line.index(after: stringStart)..<index])) }
            }
        } else if character == "\"" {
            inString = true
            stringStart = index
        } else if character == "{" || character == "[" {
            depth += 1
        } else if character == "}" || character == "]" {
            depth -= 1
        }
        index = line.index(after: index)
    }
    return keys
}

func jsonObject(_ line: String) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
}
