/// Who holds a network namespace, as the container platform names it: read from the cgroup
/// of a process inside it (`/proc/PID/cgroup`), the way kubelet, containerd, CRI-O, Docker,
/// Podman, systemd-nspawn and LXC name the cgroups they make.
///
/// Nothing is guessed: a field is set only when a cgroup path component has the exact form a
/// runtime gives it, and a holder with no field set is no holder (``parse(cgroup:)`` returns
/// `nil`).
public struct NamespaceHolder: Hashable, Sendable {
    /// The Kubernetes pod's UID in its canonical form (`0b4b…-…`; the systemd driver's `_`
    /// read as `-`): what kube-state-metrics' `kube_pod_info{uid}` carries.
    public var podUID: String?
    /// The container's ID (64 hexadecimal digits), for container runtimes.
    public var containerID: String?
    /// The container's or machine's name: systemd-nspawn's and LXC's from the cgroup, Docker's
    /// from its own configuration when readable.
    public var containerName: String?
    /// The runtime that made the cgroup: `containerd`, `cri-o`, `docker`, `podman`,
    /// `systemd-nspawn` or `lxc`; `nil` when the path does not say (kubelet's cgroupfs driver).
    public var runtime: String?

    public init(podUID: String? = nil, containerID: String? = nil, containerName: String? = nil, runtime: String? = nil) {
        self.podUID = podUID
        self.containerID = containerID
        self.containerName = containerName
        self.runtime = runtime
    }

    /// The holder named by the contents of a `/proc/PID/cgroup` file, if any of its lines
    /// has a path of a known form: cgroup v2's line (`0::/path`) first, then v1's
    /// (`N:controllers:/path`) in order.
    ///
    /// - Parameters:
    ///   - cgroup: The file's bytes (any bytes: lines that are not UTF-8 or not of the
    ///     form `ID:CONTROLLERS:PATH` are skipped).
    /// - Returns: The holder, or `nil` when no line names one.
    public static func parse(cgroup: [UInt8]) -> NamespaceHolder? {
        var paths: [Substring] = []
        var unified: [Substring] = []
        for line in String(decoding: cgroup, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[2].hasPrefix("/") else { continue }
            if fields[0] == "0" && fields[1].isEmpty { unified.append(fields[2]) } else { paths.append(fields[2]) }
        }
        for path in unified + paths {
            if let holder = parse(path: path) { return holder }
        }
        return nil
    }

    /// The holder a cgroup path names (`/kubepods.slice/…/cri-containerd-ID.scope`), if it
    /// names one. Components before the known ones (`/../..` when read from inside a cgroup
    /// namespace, a slice of the host's) do not matter.
    ///
    /// - Parameters:
    ///   - path: A cgroup path as `/proc/PID/cgroup` writes it.
    /// - Returns: The holder, or `nil`.
    public static func parse(path: Substring) -> NamespaceHolder? {
        var holder = NamespaceHolder()
        let components = path.split(separator: "/")
        for (index, component) in components.enumerated() {
            if let uid = podUID(in: component) {
                holder.podUID = uid
                continue
            }
            if let (id, runtime) = container(in: component) {
                holder.containerID = id
                holder.runtime = runtime
                continue
            }
            let parent = index > 0 ? components[index - 1] : ""
            if holder.podUID != nil, holder.containerID == nil, isContainerID(component) {
                holder.containerID = String(component)  // kubelet's cgroupfs driver: pod<UID>/<ID>
            } else if parent == "docker", isContainerID(component) {
                (holder.containerID, holder.runtime) = (String(component), "docker")
            } else if let name = machine(in: component, parent: parent) {
                (holder.containerName, holder.runtime) = name
            }
        }
        return holder == NamespaceHolder() ? nil : holder
    }

    /// `kubepods-burstable-pod<UID>.slice`, `kubepods-pod<UID>.slice` (systemd driver, `_`
    /// in the UID) or `pod<UID>` (cgroupfs driver): the UID with `-`.
    static func podUID(in component: Substring) -> String? {
        var rest = component
        if rest.hasPrefix("kubepods-") {
            // The last part: `kubepods-burstable-pod<UID>.slice`, whose UID has `_` for `-`.
            guard rest.hasSuffix(".slice"), let dash = rest.lastIndex(of: "-") else { return nil }
            rest = rest[rest.index(after: dash)...].dropLast(".slice".count)
            guard rest.hasPrefix("pod") else { return nil }
            rest = rest.dropFirst(3)
        } else if rest.hasPrefix("pod") {
            rest = rest.dropFirst(3)
        } else {
            return nil
        }
        let uid = String(rest.map { $0 == "_" ? "-" : $0 })
        return isUID(uid) ? uid : nil
    }

    /// 8-4-4-4-12 hexadecimal digits (lower case, as the API server writes UIDs).
    static func isUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
        return groups.allSatisfy { $0.allSatisfy(isLowerHex) }
    }

    /// A container runtime's scope (`cri-containerd-ID.scope`, `crio-ID.scope`,
    /// `docker-ID.scope`, `libpod-ID.scope` or Podman's cgroupfs `libpod-ID`).
    static func container(in component: Substring) -> (String, String)? {
        let forms: [(prefix: String, runtime: String)] = [
            ("cri-containerd-", "containerd"), ("crio-", "cri-o"), ("docker-", "docker"), ("libpod-", "podman"),
        ]
        for form in forms where component.hasPrefix(form.prefix) {
            var id = component.dropFirst(form.prefix.count)
            if id.hasSuffix(".scope") { id = id.dropLast(".scope".count) }
            // `crio-conmon-ID.scope`, `libpod-conmon-ID.scope`: the monitor, not the container.
            if isContainerID(id) { return (String(id), form.runtime) }
        }
        return nil
    }

    /// 64 lower-case hexadecimal digits: a container ID as the runtimes write it.
    static func isContainerID(_ text: Substring) -> Bool {
        text.utf8.count == 64 && text.allSatisfy(isLowerHex)
    }

    private static func isLowerHex(_ character: Character) -> Bool {
        ("0"..."9").contains(character) || ("a"..."f").contains(character)
    }

    /// systemd-nspawn's `machine-NAME.scope` (under `machine.slice`, the name as systemd
    /// escapes unit names) and LXC's `lxc.payload.NAME` or `/lxc/NAME`.
    static func machine(in component: Substring, parent: Substring) -> ((String, String))? {
        if parent == "machine.slice", component.hasPrefix("machine-"), component.hasSuffix(".scope") {
            let name = unescapeUnitName(component.dropFirst("machine-".count).dropLast(".scope".count))
            return name.isEmpty ? nil : (name, "systemd-nspawn")
        }
        if component.hasPrefix("lxc.payload."), component.count > "lxc.payload.".count {
            return (String(component.dropFirst("lxc.payload.".count)), "lxc")
        }
        if parent == "lxc", !component.hasPrefix("lxc.") {
            return (String(component), "lxc")
        }
        return nil
    }

    /// A unit name's `\xNN` escapes (systemd writes `-` in a machine name as `\x2d`) undone;
    /// an escape that is not one stays as written.
    static func unescapeUnitName(_ name: Substring) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(name.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count, utf8[index + 1] == UInt8(ascii: "x"),
               let value = UInt8(String(decoding: utf8[(index + 2)...(index + 3)], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Docker's name for a container, from its `config.v2.json` (`"Name": "/web"`): without
    /// the leading slash; `nil` when the file says none.
    ///
    /// - Parameters:
    ///   - configuration: The file's bytes.
    /// - Returns: The name, or `nil`.
    public static func dockerName(configuration: [UInt8]) -> String? {
        guard let value = try? JSONValue.parse(String(decoding: configuration, as: UTF8.self)),
              case .string(let name)? = value["Name"] else { return nil }
        let trimmed = name.hasPrefix("/") ? String(name.dropFirst()) : name
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Podman's names for its containers, from the container store's `containers.json` (an
    /// array of `{"id": …, "names": ["web", …]}`, as containers/storage writes it): each ID's
    /// first name. Entries without an ID or a name are left out; a file that is not such an
    /// array gives none.
    ///
    /// - Parameters:
    ///   - containers: The file's bytes.
    /// - Returns: The names, by container ID.
    public static func podmanNames(containers: [UInt8]) -> [String: String] {
        guard case .array(let entries)? = try? JSONValue.parse(String(decoding: containers, as: UTF8.self)) else { return [:] }
        var names: [String: String] = [:]
        for entry in entries {
            guard case .string(let id)? = entry["id"], case .array(let list)? = entry["names"],
                  case .string(let name)? = list.first, !name.isEmpty else { continue }
            names[id] = name
        }
        return names
    }

    /// The interfaces `/proc/PID/net/dev` lists (the namespace of that process): the names
    /// before the colon on each line after the two header lines.
    ///
    /// - Parameters:
    ///   - netDev: The file's bytes.
    /// - Returns: The names, in order.
    public static func interfaces(netDev: [UInt8]) -> [String] {
        String(decoding: netDev, as: UTF8.self).split(separator: "\n").dropFirst(2).compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingSpaces()
            return name.isEmpty ? nil : String(name)
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
