extension NetworkPath {
    /// Reads one line of `netpath watch --json` (or `status --json`) back into a path.
    ///
    /// - Parameters:
    ///   - line: One JSON object with the keys `netpath watch --json` writes; `connectivity`,
    ///     `portalURL`, `connectivitySource` and `connectivityProxy` when present (`--probe`);
    ///     `time` and unknown keys are ignored.
    /// - Throws: ``NetPathError`` with code ``NetPathError/Code/invalidInput`` naming the
    ///   key at fault.
    public init(jsonLine line: String) throws {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch let error as JSONValue.SyntaxError {
            let hint = error.offset <= 2 ? " (a trace is recorded with `netpath watch --json`)" : ""
            throw NetPathError(.invalidInput, "not JSON at byte \(error.offset): \(error.reason)\(hint)")
        }
        guard case .object = value else { throw NetPathError(.invalidInput, "a path line must be a JSON object") }
        let reader = PathLineReader(value: value)
        guard let status = try reader.decode(.status, as: Status.self) else {
            throw NetPathError(.invalidInput, "a path line needs a 'status'")
        }
        self.init(
            status: status,
            unsatisfiedReason: try reader.decode(.unsatisfiedReason, as: UnsatisfiedReason.self),
            diagnosis: try reader.decode(.diagnosis, as: Diagnosis.self),
            availableInterfaces: try reader.interfaces(),
            tunnelInterface: try reader.interface(.tunnelInterface),
            underlyingInterface: try reader.interface(.underlyingInterface),
            isExpensive: try reader.flag(.isExpensive),
            isConstrained: try reader.flag(.isConstrained),
            isUltraConstrained: try reader.flag(.isUltraConstrained),
            linkQuality: try reader.decode(.linkQuality, as: LinkQuality.self) ?? .unknown,
            supportsIPv4: try reader.flag(.supportsIPv4),
            supportsIPv6: try reader.flag(.supportsIPv6),
            supportsDNS: try reader.flag(.supportsDNS),
            gateways: try reader.gateways(.gateways),
            unresponsiveGateways: try reader.gateways(.unresponsiveGateways),
            network: try reader.text(.network),
            connectivity: try reader.decode(.connectivity, as: Connectivity.self) ?? .unknown,
            portalURL: try reader.text(.portalURL),
            expensiveSource: try reader.decode(.expensiveSource, as: Source.self),
            connectivitySource: try reader.decode(.connectivitySource, as: Source.self),
            connectivityProxy: try reader.text(.connectivityProxy)
        )
        for family in IPFamily.allCases {
            let keys = NetworkPath.familyKeys(family)
            let verdict = try reader.decode(keys.verdict, as: Connectivity.self) ?? .unknown
            guard verdict != .unknown else { continue }
            let failure = try reader.failure(keys.failure)
            familyConnectivity[family] = FamilyConnectivity(connectivity: verdict, failedStep: failure?.step, failure: failure)
        }
    }
}

/// Reads the values of one path object, each with the error that names its key.
private struct PathLineReader {
    package let value: JSONValue

    package func text(_ key: NetworkPath.JSONKey) throws -> String? {
        switch value[key.rawValue] {
        case .string(let text)?: return text
        case .null?, nil: return nil
        default: throw NetPathError(.invalidInput, "'\(key.rawValue)' must be a string or null")
        }
    }

    package func flag(_ key: NetworkPath.JSONKey) throws -> Bool {
        switch value[key.rawValue] {
        case .bool(let flag)?: return flag
        case nil: return false
        default: throw NetPathError(.invalidInput, "'\(key.rawValue)' must be true or false")
        }
    }

    package func decode<T: RawRepresentable>(_ key: NetworkPath.JSONKey, as type: T.Type) throws -> T? where T.RawValue == String {
        guard let raw = try text(key) else { return nil }
        guard let decoded = T(rawValue: raw) else { throw NetPathError(.invalidInput, "unknown \(key.rawValue) '\(raw)'") }
        return decoded
    }

    package func interfaces() throws -> [NetworkInterface] {
        switch value[NetworkPath.JSONKey.interfaces.rawValue] {
        case nil: return []
        case .array(let list)?:
            return try list.map { entry in
                guard let interface = Self.interface(entry) else {
                    throw NetPathError(.invalidInput, "each interface needs a 'name', an 'index' and a known 'type'")
                }
                return interface
            }
        default: throw NetPathError(.invalidInput, "'interfaces' must be an array")
        }
    }

    /// An interface object under `key`, or `nil` when the key is absent or `null`.
    package func interface(_ key: NetworkPath.JSONKey) throws -> NetworkInterface? {
        guard let entry = value[key.rawValue], entry != .null else { return nil }
        guard let interface = Self.interface(entry) else {
            throw NetPathError(.invalidInput, "'\(key.rawValue)' must be null or an interface with a 'name', an 'index' and a known 'type'")
        }
        return interface
    }

    private static func interface(_ entry: JSONValue) -> NetworkInterface? {
        guard case .string(let name)? = entry["name"], case .number(let index)? = entry["index"],
              index >= 0, index < 1e9, index == index.rounded(),
              case .string(let typeName)? = entry["type"], let type = NetworkInterface.InterfaceType(rawValue: typeName)
        else { return nil }
        return NetworkInterface(name: name, index: Int(index), type: type)
    }

    /// A family's failure object under `key` (`kind`, `step`, `message`), or `nil`.
    package func failure(_ key: NetworkPath.JSONKey) throws -> ConnectivityFailure? {
        guard let entry = value[key.rawValue], entry != .null else { return nil }
        guard case .string(let kindName)? = entry["kind"], let kind = ConnectivityFailure.Kind(rawValue: kindName),
              case .string(let message)? = entry["message"] else {
            throw NetPathError(.invalidInput, "'\(key.rawValue)' must be null or an object with a known 'kind' and a 'message'")
        }
        let step: ConnectivityStep? = if case .string(let name)? = entry["step"] { ConnectivityStep(rawValue: name) } else { nil }
        return ConnectivityFailure(kind, message, step: step)
    }

    package func gateways(_ key: NetworkPath.JSONKey) throws -> [String] {
        guard case .array(let list)? = value[key.rawValue] else { return [] }
        return try list.map { entry in
            guard case .string(let gateway) = entry else { throw NetPathError(.invalidInput, "'\(key.rawValue)' must hold strings") }
            return gateway
        }
    }
}
