// libFuzzer target: a whole connectivity check on Linux, ProbeStateMachine, driven by the
// network's bytes and the order things happen in: DNS answers (well-formed for the query or
// not), connection outcomes, TLS steps, HTTP responses, a proxy's CONNECT or SOCKS5
// answers, cut anywhere, and the clock.
//
// Input: byte 0 chooses the check (the default endpoints; literals over HTTP and HTTPS;
// through an HTTP proxy, a CONNECT tunnel or a SOCKS5 proxy; IPv6-only with NAT64), the
// rest is a script the harness reads as the world's answers: for each action the machine
// asks for (a query sent or not, a connection made or refused, a TLS step) and for each
// wait (which ready descriptor, what it gives, or the time moving on), the next bytes
// decide. Rules checked for any input: every descriptor the machine is given is closed
// exactly once and all are closed by `finish`; `finish` is the last action and comes once;
// a wait never ends before now and watches only open descriptors; the check ends within
// a bounded number of steps (cancellation at the end of the script ends it at once).

@testable import NetPathCore

let proxyRules = ["http_proxy": "http://10.0.0.3:3128", "https_proxy": "http://u:p@10.0.0.3:3129", "all_proxy": "socks5h://10.0.0.4:1080"]
let checks: [(ConnectivityCheck, ipv4: Bool, ipv6: Bool)] = [
    (ConnectivityCheck.default, true, true),
    (try! ConnectivityCheck(endpoints: [.init("http://10.77.0.1/204"), .init("https://10.77.0.1/204"), .init("http://check.test/")],
                            proxy: .none), true, true),
    (try! ConnectivityCheck(endpoints: [.init("http://check.test/204"), .init("https://secure.test/204")],
                            proxy: .init(environment: proxyRules)), true, true),
    (try! ConnectivityCheck(endpoints: [.init("http://check.test/204"), .init("https://secure.test/")],
                            proxy: .init(environment: ["all_proxy": "socks5://u:secret@proxy.test:1080"])), true, true),
    (try! ConnectivityCheck(endpoints: [.init("http://192.0.2.1/204"), .init("http://check.test/204")], proxy: .none), false, true),
]
let servers = [IPAddress("10.0.0.53")!, IPAddress("fd00::53")!]

/// The world's answers, read from the input; zeros once it runs out.
struct Script {
    let bytes: [UInt8]
    var at = 0
    var exhausted: Bool { at >= bytes.count }
    mutating func byte() -> UInt8 {
        defer { at += 1 }
        return at < bytes.count ? bytes[at] : 0
    }
    mutating func chunk() -> [UInt8] {
        let count = Int(byte()) % 64
        defer { at += count }
        return Array(bytes[min(at, bytes.count)..<min(at + count, bytes.count)])
    }
}

/// A DNS answer to `query`: well-formed with addresses, an error code or truncated, as
/// the script says; or the script's own bytes.
func answer(_ query: ProbeStateMachine.Query, _ script: inout Script) -> [UInt8] {
    let kind = script.byte()
    guard kind & 0x80 == 0 else { return script.chunk() }
    let pool = query.type == DNSMessage.typeA ? ["10.77.0.1", "127.0.0.1", "0.0.0.0", "10.0.0.3"] : ["fd77::1", "::1", "64:ff9b::c000:aa", "64:ff9b::c000:ab"]
    let count = Int(kind & 0x03)
    let rcode = kind & 0x0C == 0x0C ? (kind >> 4) & 0x07 : 0
    var bytes = [UInt8(query.id >> 8), UInt8(query.id & 0xFF), kind & 0x40 != 0 ? 0x83 : 0x81, 0x80 | rcode, 0, 1, 0, UInt8(count), 0, 0, 0, 0]
    let questionEnd = DNSMessage.hasEDNS(query.bytes) ? query.bytes.count - 11 : query.bytes.count
    bytes += query.bytes[12..<questionEnd]
    for index in 0..<count {
        let data = IPAddress(pool[(index + Int(kind >> 4)) % pool.count])!.bytes
        bytes += [0xC0, 12, UInt8(query.type >> 8), UInt8(query.type & 0xFF), 0, 1, 0, 0, 0, 60, 0, UInt8(data.count)] + data
    }
    return query.overTCP ? DNSMessage.framed(bytes) : bytes
}

let answers: [[UInt8]] = [
    Array("HTTP/1.1 204 No Content\r\n\r\n".utf8),
    Array("HTTP/1.1 302 Found\r\nLocation: http://portal.test/login\r\n\r\n".utf8),
    Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8),
    Array("HTTP/1.1 200 OK\r\nX-NetworkManager-Status: online\r\nContent-Length: 7\r\n\r\nsuccess".utf8),
    [5, 0], [5, 2], [1, 0], [5, 0, 0, 1, 0, 0, 0, 0, 0, 0], [5, 5, 0, 1, 0, 0, 0, 0, 0, 0],
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let (check, ipv4, ipv6) = checks[Int(data[0]) % checks.count]
    var script = Script(bytes: Array(UnsafeBufferPointer(start: data + 1, count: size - 1)))
    var machine = ProbeStateMachine(check: check, servers: servers, start: .zero, firstQueryID: 7, ipv4: ipv4, ipv6: ipv6)
    var now = Instant.zero
    var nextDescriptor: Int32 = 10
    var open: Set<FileDescriptor> = []
    var queries: [FileDescriptor: ProbeStateMachine.Query] = [:]
    var finished = false

    func newDescriptor() -> FileDescriptor {
        defer { nextDescriptor += 1 }
        let fd = FileDescriptor(rawValue: nextDescriptor)
        open.insert(fd)
        return fd
    }

    func step(_ script: inout Script) -> ProbeStateMachine.TLSStep {
        switch script.byte() % 8 {
        case 0, 1: .done
        case 2: .wantRead
        case 3: .wantWrite
        case 4: .closed("reset")
        case 5: .failed("certificate verify failed")
        case 6: .unavailable("no OpenSSL")
        default: .wantRead
        }
    }

    /// Carries out actions as the script says, feeding each outcome back at once.
    func perform(_ actions: [ProbeStateMachine.Action]) {
        for (position, action) in actions.enumerated() {
            if finished { fatalError("an action after finish: \(action)") }
            let outcome: ProbeStateMachine.Event
            switch action {
            case .openQuery(let query):
                if script.byte() % 8 == 7 {
                    outcome = .querySent(query, fd: nil)
                } else {
                    let fd = newDescriptor()
                    queries[fd] = query
                    outcome = .querySent(query, fd: fd)
                }
            case .connect(let endpoint, let address, _):
                switch script.byte() % 8 {
                case 6: outcome = .connectStarted(endpoint: endpoint, address: address, .connectFailed(Errno(101), noRoute: true))
                case 7: outcome = .connectStarted(endpoint: endpoint, address: address, .socketFailed(Errno(24)))
                default: outcome = .connectStarted(endpoint: endpoint, address: address, .started(fd: newDescriptor()))
                }
            case .startTLS(let fd, _, _):
                guard open.contains(fd) else { fatalError("TLS on a descriptor that is not open") }
                outcome = .tlsStepped(fd: fd, step(&script))
            case .send(let fd, _):
                guard open.contains(fd) else { fatalError("a send on a descriptor that is not open") }
                outcome = .requestSent(fd: fd, complete: script.byte() % 16 != 15)
            case .close(let fd):
                guard open.remove(fd) != nil else { fatalError("\(fd) closed twice, or never given") }
                queries[fd] = nil
                continue
            case .wait:
                fatalError("handle(_:at:) returned wait")
            case .finish:
                guard position == actions.count - 1 else { fatalError("finish before other actions") }
                guard open.isEmpty else { fatalError("finished with descriptors open: \(open)") }
                finished = true
                continue
            }
            perform(machine.handle(outcome, at: now))
        }
    }

    perform(machine.handle(.started, at: now))
    var turns = 0
    while !finished {
        turns += 1
        if turns > 400 { fatalError("no end after 400 turns") }
        let actions = machine.next(at: now)
        guard case .wait(let until, let watching)? = actions.last else {
            perform(actions)
            if !finished { fatalError("next(at:) ended in neither wait nor finish: \(actions)") }
            break
        }
        perform(Array(actions.dropLast()))
        if finished { fatalError("wait after finish") }
        guard until >= now else { fatalError("a wait that ends before now") }
        for watch in watching where !open.contains(watch.fd) { fatalError("a wait on \(watch.fd), which is not open") }
        if script.exhausted {
            // The caller gives up: cancellation ends the check at once.
            perform(machine.handle(.cancelled, at: now))
            if !finished { fatalError("cancelled, and not finished") }
            break
        }
        let choice = script.byte()
        if watching.isEmpty || choice % 8 == 0 {
            now = until
            continue
        }
        now += .milliseconds(Int(choice >> 3))
        let watch = watching[Int(choice) % watching.count]
        let event: ProbeStateMachine.Event
        if watch.interest == .writable {
            event = script.byte() % 4 == 3 ? .connectFinished(fd: watch.fd, error: Errno(113)) : .connectFinished(fd: watch.fd, error: nil)
        } else if let query = queries[watch.fd], script.byte() % 4 != 3 {
            event = .received(fd: watch.fd, .success(answer(query, &script)))
        } else {
            switch script.byte() % 8 {
            case 0: event = .received(fd: watch.fd, .success([]))
            case 1: event = .received(fd: watch.fd, .failure(Errno(104)))
            case 2: event = .tlsStepped(fd: watch.fd, step(&script))
            case 3, 4: event = .received(fd: watch.fd, .success(answers[Int(script.byte()) % answers.count]))
            default: event = .received(fd: watch.fd, .success(script.chunk()))
            }
        }
        perform(machine.handle(event, at: now))
    }
    return 0
}
