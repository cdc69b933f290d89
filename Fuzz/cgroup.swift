// libFuzzer target: a /proc/PID/cgroup file → NamespaceHolder.parse; the same bytes as
// /proc/PID/net/dev → NamespaceHolder.interfaces, as Docker's config.v2.json →
// NamespaceHolder.dockerName and as Podman's containers.json → NamespaceHolder.podmanNames.
//
// Rules checked for any input: a holder has at least one field; a pod UID is 8-4-4-4-12 lower
// hexadecimal digits with `-`; a container ID is 64 of them; a runtime is one of the seven
// names; a holder found in a line is found again in that line alone (v2's first); no
// interface name is empty or holds a colon.

@testable import NetPathCore

let runtimes: Set<String> = ["containerd", "cri-o", "docker", "podman", "systemd-nspawn", "lxc"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let holder = NamespaceHolder.parse(cgroup: bytes) {
        guard holder != NamespaceHolder() else { fatalError("an empty holder") }
        if let uid = holder.podUID, !NamespaceHolder.isUID(uid) { fatalError("pod UID '\(uid)'") }
        if let id = holder.containerID, !NamespaceHolder.isContainerID(Substring(id)) { fatalError("container ID '\(id)'") }
        if let runtime = holder.runtime, !runtimes.contains(runtime) { fatalError("runtime '\(runtime)'") }
        if holder.runtime == nil, holder.podUID == nil { fatalError("a holder without pod or runtime: \(holder)") }
    }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
        let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0] == "0", fields[1].isEmpty else { continue }
        // The first v2 line decides when it names someone.
        if let alone = NamespaceHolder.parse(path: fields[2]), fields[2].hasPrefix("/") {
            guard NamespaceHolder.parse(cgroup: bytes) == alone else { fatalError("the v2 line's holder was not the file's") }
        }
        break
    }
    for name in NamespaceHolder.interfaces(netDev: bytes) where name.isEmpty || name.contains(":") {
        fatalError("interface name '\(name)'")
    }
    if let name = NamespaceHolder.dockerName(configuration: bytes), name.isEmpty { fatalError("an empty name") }
    for (id, name) in NamespaceHolder.podmanNames(containers: bytes) where name.isEmpty { fatalError("an empty name for '\(id)'") }
    return 0
}
