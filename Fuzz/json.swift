// libFuzzer target: trace text (`netpath watch --json` lines) → JSONValue.parse and
// NetworkPath(jsonLine:), and the whole text through SimulatedNetwork's line splitting.
//
// A path read back must survive a round trip through its fields (the reader is what app
// tests feed recorded traces to).

@testable import NetPathCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? JSONValue.parse(text)
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        guard let path = try? NetworkPath(jsonLine: String(line)) else { continue }
        _ = path.primaryInterface
        _ = path.usesInterfaceType(.wifi)
        _ = path.physicalInterface
        // What the writer makes of it reads back to the same path.
        precondition((try? NetworkPath(jsonLine: path.jsonLine(at: "t", includingConnectivity: true))) == path, "a path did not survive its own line")
        _ = path.hashValue
    }
    return 0
}
