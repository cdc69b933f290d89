#if os(Linux) || os(Android)
/// The DNS queries of a connectivity check that are out, by the socket each went from:
/// their ids handed out in turn, asked over UDP, or over TCP after an answer came
/// truncated (glibc's rule), and what each socket gives read into the query's end. A part
/// of ``ProbeStateMachine``, which tells whose question each query is.
struct DNSQueries {
    typealias Action = ProbeStateMachine.Action
    typealias Query = ProbeStateMachine.Query

    /// A query out.
    struct Asked {
        var query: Query
        /// Over TCP: whether the query went out, and the bytes of the answer read so far.
        var sent = false
        var stream: [UInt8] = []
    }

    /// How a query ended: with an answer, definitive or not, or (`.invalid`) with `failure`.
    struct Ended {
        var query: Query
        var answer: DNSMessage.Answer
        var failure: String?
    }

    /// The resolver's DNS servers, in order.
    let servers: [IPAddress]
    private var nextID: UInt16
    private var out: [FileDescriptor: Asked] = [:]

    /// - Parameters:
    ///   - servers: The resolver's DNS servers, in order.
    ///   - firstID: The first query's id (random in use); each query takes the next.
    init(servers: [IPAddress], firstID: UInt16) {
        self.servers = servers
        nextID = firstID
    }

    var isEmpty: Bool { out.isEmpty }

    func contains(_ fd: FileDescriptor) -> Bool { out[fd] != nil }

    /// What each query's socket is waited on for: a query over TCP is sent once connected.
    var watches: [ProbeStateMachine.Watch] {
        out.map { fd, asked in .init(fd: fd, interest: asked.query.overTCP && !asked.sent ? .writable : .readable) }
    }

    /// A query of each of `types` for `name` to each server asked
    /// (``ProbeStateMachine/serversAsked``), for `endpoint`; none for a name no query can
    /// carry.
    mutating func ask(_ name: String, types: [UInt16], endpoint: Int) -> [Query] {
        var queries: [Query] = []
        for server in servers.prefix(ProbeStateMachine.serversAsked) {
            for type in types {
                let id = nextID
                nextID &+= 1
                guard let bytes = DNSMessage.query(id: id, name: name, type: type) else { continue }
                queries.append(Query(endpoint: endpoint, server: server, id: id, type: type, bytes: bytes))
            }
        }
        return queries
    }

    /// `query` went out from `fd`, whose answer is now waited for.
    mutating func sent(_ query: Query, fd: FileDescriptor) {
        out[fd] = Asked(query: query)
    }

    /// Gives up the queries out for `endpoint` (of `type` only, when given): their
    /// sockets, to be closed, in order.
    mutating func drop(endpoint: Int, type: UInt16? = nil) -> [FileDescriptor] {
        let dropped = out.filter { $0.value.query.endpoint == endpoint && (type == nil || $0.value.query.type == type) }.keys.sorted()
        for fd in dropped { out[fd] = nil }
        return dropped
    }

    /// Gives up every query out: their sockets, to be closed, in order.
    mutating func dropAll() -> [FileDescriptor] {
        defer { out.removeAll() }
        return out.keys.sorted()
    }

    /// What an event on a query's socket calls for, and the query's end when it came.
    mutating func handle(_ event: ProbeStateMachine.Event) -> (actions: [Action], ended: Ended?) {
        switch event {
        case .connectFinished(let fd, let error):
            guard let asked = out[fd] else { return ([], nil) }
            // A query over TCP: sent once connected.
            guard let error else { return ([.send(fd: fd, request: DNSMessage.framed(asked.query.bytes))], nil) }
            return close(fd, Ended(query: asked.query, answer: .invalid, failure: "cannot connect to the DNS server over TCP: \(error)"))
        case .requestSent(let fd, let complete):
            guard let asked = out[fd] else { return ([], nil) }
            guard complete else { return close(fd, Ended(query: asked.query, answer: .invalid, failure: "cannot send the query to the DNS server over TCP")) }
            out[fd]?.sent = true
            return ([], nil)
        case .received(let fd, let received):
            guard let asked = out[fd] else { return ([], nil) }
            return self.received(fd, asked, received)
        case .started, .querySent, .connectStarted, .tlsStepped, .cancelled:
            return ([], nil)
        }
    }

    private mutating func close(_ fd: FileDescriptor, _ ended: Ended?) -> (actions: [Action], ended: Ended?) {
        out[fd] = nil
        return ([.close(fd: fd)], ended)
    }

    /// What a query's socket gave: over UDP a datagram (one that is not the answer is
    /// ignored), over TCP the next bytes of the framed answer.
    private mutating func received(_ fd: FileDescriptor, _ asked: Asked, _ received: Result<[UInt8], Errno>) -> (actions: [Action], ended: Ended?) {
        let query = asked.query
        func failed(_ failure: String) -> Ended { Ended(query: query, answer: .invalid, failure: failure) }
        let answer: DNSMessage.Answer
        switch received {
        case .failure(let error):
            return close(fd, failed("the DNS server did not answer: \(error)"))
        case .success(let bytes) where bytes.isEmpty:
            return close(fd, failed("the DNS server closed the connection"))
        case .success(let bytes) where query.overTCP:
            let stream = asked.stream + bytes
            guard let message = DNSMessage.unframed(stream) else {
                // A message is at most 64 KiB and its 2-byte length: more without one is not DNS.
                guard stream.count > 0x1_0001 else {
                    out[fd]?.stream = stream
                    return ([], nil)
                }
                return close(fd, failed("the DNS server's answer is malformed"))
            }
            answer = DNSMessage.parse(message, id: query.id, type: query.type)
        case .success(let bytes):
            answer = DNSMessage.parse(bytes, id: query.id, type: query.type)
            if answer == .invalid { return ([], nil) }
        }
        var actions = close(fd, nil).actions
        if answer == .truncated && !query.overTCP {
            // The answer did not fit: the same query over TCP, to the same server (glibc).
            var again = query
            again.overTCP = true
            actions.append(.openQuery(again))
            return (actions, nil)
        }
        if answer == .noAddress(rcode: DNSMessage.rcodeFormatError) && DNSMessage.hasEDNS(query.bytes) {
            // A server that does not know EDNS0: the same query without it (glibc's fallback).
            var again = query
            again.bytes = DNSMessage.withoutEDNS(query.bytes)
            actions.append(.openQuery(again))
            return (actions, nil)
        }
        let failure: String? = switch answer {
        case .noAddress(let rcode) where !answer.isDefinitive: "the DNS server failed (\(DNSMessage.rcodeName(rcode)))"
        case .truncated, .invalid: "the DNS server's answer is malformed"
        default: nil
        }
        return (actions, Ended(query: query, answer: answer, failure: failure))
    }
}
#endif
