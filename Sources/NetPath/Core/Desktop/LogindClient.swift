/// systemd-logind's word that the machine went to sleep and woke up
/// (`org.freedesktop.login1.Manager.PrepareForSleep` on the system bus): the protocol of a
/// client, apart from its connection. Pure.
///
/// On ``DesktopBusEvent/ready`` it asks for the signal (a match rule; no call to logind
/// itself, so no logind at all costs nothing). `PrepareForSleep(true)` comes before a
/// suspend or hibernation, `PrepareForSleep(false)` after the resume: each resume is a new
/// ``LogindState/resumes`` count, which the path's source takes as "read the kernel and
/// check afresh". No inhibitor lock is taken: NetPath does not delay a sleep.
package struct LogindClient: DesktopBusClient {
    package typealias Answer = LogindState

    package static let busName = "org.freedesktop.login1"
    package static let path = "/org/freedesktop/login1"
    package static let interface = "org.freedesktop.login1.Manager"
    package static let matchRule =
        "type='signal',sender='\(busName)',path='\(path)',interface='\(interface)',member='PrepareForSleep'"

    private var matchToken: UInt64?
    /// The last answer given.
    package private(set) var state = LogindState()

    package init() {}

    package mutating func handle(_ event: DesktopBusEvent) -> [DesktopBusAction<LogindState>] {
        switch event {
        case .ready:
            matchToken = 1
            // Answered at once: a client that waits for nothing holds up no first answer.
            return [.call(.addMatch(LogindClient.matchRule), token: 1), .answer(state)]
        case .reply(let token, let result):
            guard token == matchToken else { return [] }
            matchToken = nil
            if case .failure(let error) = result { return [.failed("the bus refused a match rule: \(error)")] }
            return []
        case .timedOut(let token):
            guard token == matchToken else { return [] }
            matchToken = nil
            return [.failed("the bus did not answer in time")]
        case .signal(let message):
            // The bus names the sender by its unique name, not logind's well-known one: the
            // match rule already asked the bus for logind's signals only.
            guard message.type == .signal, message.path == LogindClient.path,
                  message.interface == LogindClient.interface, message.member == "PrepareForSleep",
                  let sleeping = message.body.first?.bool else { return [] }
            if sleeping {
                guard !state.sleeping else { return [] }
                state.sleeping = true
            } else {
                state.sleeping = false
                state.resumes += 1
            }
            return [.answer(state)]
        }
    }
}

/// What logind said about sleep (``LogindClient``).
package struct LogindState: Equatable, Sendable {
    /// Between `PrepareForSleep(true)` and `PrepareForSleep(false)`.
    package var sleeping = false
    /// How many resumes (`PrepareForSleep(false)`) were seen since the watch began.
    package var resumes: UInt64 = 0

    package init(sleeping: Bool = false, resumes: UInt64 = 0) {
        self.sleeping = sleeping
        self.resumes = resumes
    }
}
