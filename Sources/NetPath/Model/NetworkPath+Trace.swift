extension NetworkPath {
    /// Reads one line of `netpath watch --json` (or `status --json`) back into a path.
    ///
    /// - Parameters:
    ///   - line: One JSON object with SPEC §4's keys, and `connectivity` and `portalURL`
    ///     when present (`--probe`); `time` and unknown keys are ignored.
    /// - Throws: ``NetPathError`` with code ``NetPathError/Code/invalidInput`` naming the
    ///   key at fault.
    public init(jsonLine line: String) throws {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch let error as JSONValue.SyntaxError {
            throw NetPathError(.invalidInput, "not JSON at byte \(error.offset): \(error.reason)")
        }
        guard case .object = value else { throw NetPathError(.invalidInput, "a path line must be a JSON object") }
        func text(_ jsonKey: JSONKey) throws -> String? {
            let key = jsonKey.rawValue
            switch value[key] {
            case .string(let text)?: return text
            case .null?, nil: return nil
            default: throw NetPathError(.invalidInput, "'\(key)' must be a string or null")
            }
        }
        func flag(_ jsonKey: JSONKey) throws -> Bool {
            let key = jsonKey.rawValue
            switch value[key] {
            case .bool(let flag)?: return flag
            case nil: return false
            default: throw NetPathError(.invalidInput, "'\(key)' must be true or false")
            }
        }
        func decode<T: RawRepresentable>(_ key: JSONKey, as type: T.Type) throws -> T? where T.RawValue == String {
            guard let raw = try text(key) else { return nil }
            guard let decoded = T(rawValue: raw) else { throw NetPathError(.invalidInput, "unknown \(key.rawValue) '\(raw)'") }
            return decoded
        }
        guard let status = try decode(.status, as: Status.self) else {
            throw NetPathError(.invalidInput, "a path line needs a 'status'")
        }
        var interfaces: [NetworkInterface] = []
        if case .array(let list)? = value[JSONKey.interfaces.rawValue] {
            for entry in list {
                guard case .string(let name)? = entry["name"], case .number(let index)? = entry["index"],
                      index >= 0, index < 1e9, index == index.rounded(),
                      case .string(let typeName)? = entry["type"], let type = NetworkInterface.InterfaceType(rawValue: typeName) else {
                    throw NetPathError(.invalidInput, "each interface needs a 'name', an 'index' and a known 'type'")
                }
                interfaces.append(NetworkInterface(name: name, index: Int(index), type: type))
            }
        } else if value[JSONKey.interfaces.rawValue] != nil {
            throw NetPathError(.invalidInput, "'interfaces' must be an array")
        }
        var gateways: [String] = []
        if case .array(let list)? = value[JSONKey.gateways.rawValue] {
            for entry in list {
                guard case .string(let gateway) = entry else { throw NetPathError(.invalidInput, "'gateways' must hold strings") }
                gateways.append(gateway)
            }
        }
        self.init(
            status: status,
            unsatisfiedReason: try decode(.unsatisfiedReason, as: UnsatisfiedReason.self),
            diagnosis: try decode(.diagnosis, as: Diagnosis.self),
            availableInterfaces: interfaces,
            isExpensive: try flag(.isExpensive),
            isConstrained: try flag(.isConstrained),
            supportsIPv4: try flag(.supportsIPv4),
            supportsIPv6: try flag(.supportsIPv6),
            supportsDNS: try flag(.supportsDNS),
            gateways: gateways,
            connectivity: try decode(.connectivity, as: Connectivity.self) ?? .unknown,
            portalURL: try text(.portalURL)
        )
    }
}
