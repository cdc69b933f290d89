// FanOut NAMESPACE [SUBSCRIBERS] [ROUNDS]
//
// Starts one PathMonitor on the named namespace, spawns SUBSCRIBERS tasks that each iterate
// `monitor.paths`, and waits until every one has its first path. Then, per round, it prints
// "READY k" and waits; the driver (Benchmarks/run) makes a kernel change that changes the
// path. When every subscriber has received its k-th new path it prints
// "DONE k FIRST_NS LAST_NS": CLOCK_MONOTONIC of the first and the last receipt.
import NetPath
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func say(_ line: String, to fd: Int32 = 1) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

/// Per round (0 = the first path): how many subscribers have it, the first and last receipt.
final class Tally: Sendable {
    struct Round { var count = 0; var first: UInt64 = 0; var last: UInt64 = 0 }
    let rounds: Mutex<[Round]>
    let completed: AsyncStream<Int>
    let continuation: AsyncStream<Int>.Continuation
    let expected: Int

    init(rounds: Int, expected: Int) {
        self.rounds = Mutex(Array(repeating: Round(), count: rounds + 1))
        (completed, continuation) = AsyncStream.makeStream(of: Int.self)
        self.expected = expected
    }

    func received(round: Int) {
        let time = monotonicNanoseconds()
        let done: Bool = rounds.withLock { rounds in
            guard round < rounds.count else { return false }
            if rounds[round].count == 0 { rounds[round].first = time }
            rounds[round].last = time
            rounds[round].count += 1
            return rounds[round].count == expected
        }
        if done { continuation.yield(round) }
    }

    func times(round: Int) -> (UInt64, UInt64) {
        rounds.withLock { ($0[round].first, $0[round].last) }
    }
}

@main
enum FanOut {
  static func main() async {
    let arguments = CommandLine.arguments
    guard arguments.count >= 2 else {
        say("usage: FanOut NAMESPACE [SUBSCRIBERS] [ROUNDS]", to: 2)
        exit(2)
    }
    let namespace = arguments[1]
    let subscribers = arguments.count > 2 ? Int(arguments[2]) ?? 1000 : 1000
    let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 10 : 10
    let monitor = PathMonitor(configuration: .init(namespace: .named(namespace)))
    do {
        try monitor.start()
    } catch {
        say("FanOut: \(error)", to: 2)
        exit(3)
    }
    let tally = Tally(rounds: rounds, expected: subscribers)
    var tasks: [Task<Void, Never>] = []
    for _ in 0..<subscribers {
        tasks.append(Task.detached {
            var round = 0
            for await _ in monitor.paths {
                tally.received(round: round)
                round += 1
                if round > rounds { break }
            }
        })
    }

    var completions = tally.completed.makeAsyncIterator()
    let start = monotonicNanoseconds()
    guard await completions.next() == 0 else { exit(1) }
    let (_, firstReady) = tally.times(round: 0)
    say("SUBSCRIBED \(subscribers) \(firstReady - start)")
    for round in 1...rounds {
        say("READY \(round)")
        guard let finished = await completions.next(), finished == round else {
            say("FanOut: round \(round) did not complete", to: 2)
            exit(1)
        }
        let (first, last) = tally.times(round: round)
        say("DONE \(round) \(first) \(last)")
    }
    monitor.cancel()
    for task in tasks { await task.value }
    say("END")

  }
}
