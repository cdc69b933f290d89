/// Whether the Internet really answers over a satisfied path: the verdict of a
/// ``ConnectivityCheck``. A satisfied path only says a route exists; behind a captive portal
/// or with broken DNS it is still satisfied, and this says what actually answers.
public enum Connectivity: String, Hashable, Sendable, Codable, CaseIterable {
    /// Not checked (yet), or the check is off.
    case unknown
    /// The path is not satisfied: nothing was sent. (Named `offline`, not `none`, so
    /// that it never reads as `Optional.none`.)
    case offline
    /// Satisfied, but no endpoint's name could be resolved: DNS does not work.
    case local
    /// A name resolved (or the URL holds an address), but no endpoint answered HTTP in time.
    case limited
    /// An endpoint answered with something other than the expected answer: a redirect or
    /// a login page. ``ConnectivityResult/portalURL`` holds the redirect target, if any.
    case portal
    /// An endpoint gave the expected answer.
    case full
}

/// The outcome of one connectivity check.
public struct ConnectivityResult: Hashable, Sendable, Codable {
    /// The verdict.
    public var connectivity: Connectivity
    /// Where a captive portal redirected to, when it did.
    public var portalURL: String?
    /// The endpoint the verdict rests on (the one that passed, or answered, or was tried).
    public var url: String?
    /// That endpoint's HTTP status, when it answered.
    public var httpStatus: Int?
    /// Time from the start of the check to the verdict, in milliseconds.
    public var latencyMilliseconds: Double?
    /// What went wrong, in words, when the verdict is not `full`.
    public var error: String?

    /// Creates a result.
    public init(connectivity: Connectivity, portalURL: String? = nil, url: String? = nil, httpStatus: Int? = nil,
                latencyMilliseconds: Double? = nil, error: String? = nil) {
        self.connectivity = connectivity
        self.portalURL = portalURL
        self.url = url
        self.httpStatus = httpStatus
        self.latencyMilliseconds = latencyMilliseconds
        self.error = error
    }
}
