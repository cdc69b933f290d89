@testable import NetPathCore
import Testing

/// logind's `PrepareForSleep`, as a client on the system bus hears it.
struct LogindClientTests {
    static func prepareForSleep(_ sleeping: Bool, path: String = LogindClient.path) -> DBusMessage {
        DBusMessage(type: .signal, path: path, interface: LogindClient.interface, member: "PrepareForSleep",
                    sender: ":1.4", body: [.boolean(sleeping)])
    }

    @Test func asksForTheSignalAndAnswersAtOnce() {
        var client = LogindClient()
        let actions = client.handle(.ready)
        #expect(actions == [
            .call(.addMatch("type='signal',sender='org.freedesktop.login1',path='/org/freedesktop/login1',interface='org.freedesktop.login1.Manager',member='PrepareForSleep'"), token: 1),
            .answer(LogindState()),
        ])
        #expect(client.handle(.reply(token: 1, .success([]))) == [])
    }

    @Test func eachResumeIsCounted() {
        var client = LogindClient()
        _ = client.handle(.ready)
        #expect(client.handle(.signal(Self.prepareForSleep(true))) == [.answer(LogindState(sleeping: true, resumes: 0))])
        #expect(client.handle(.signal(Self.prepareForSleep(true))) == [])
        #expect(client.handle(.signal(Self.prepareForSleep(false))) == [.answer(LogindState(sleeping: false, resumes: 1))])
        // A resume without the sleep before it (the watch began asleep) counts too.
        #expect(client.handle(.signal(Self.prepareForSleep(false))) == [.answer(LogindState(sleeping: false, resumes: 2))])
    }

    @Test func otherMessagesAreNotASleep() {
        var client = LogindClient()
        _ = client.handle(.ready)
        #expect(client.handle(.signal(Self.prepareForSleep(false, path: "/elsewhere"))) == [])
        let noBody = DBusMessage(type: .signal, path: LogindClient.path, interface: LogindClient.interface,
                                 member: "PrepareForSleep", sender: ":1.4", body: [])
        #expect(client.handle(.signal(noBody)) == [])
        let wrongType = DBusMessage(type: .signal, path: LogindClient.path, interface: LogindClient.interface,
                                    member: "PrepareForSleep", sender: ":1.4", body: [.string("no")])
        #expect(client.handle(.signal(wrongType)) == [])
        #expect(client.state == LogindState())
    }

    @Test func aRefusedMatchRuleFailsTheConnection() {
        var client = LogindClient()
        _ = client.handle(.ready)
        let refused = client.handle(.reply(token: 1, .failure(DBusError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "no"))))
        #expect(refused.count == 1)
        if case .failed = refused.first {} else { Issue.record("not a failure: \(refused)") }
        #expect(client.handle(.timedOut(token: 1)) == [])
    }
}
