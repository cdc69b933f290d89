import Testing
@testable import NetPathCore

/// Messages a real `dbus-daemon` (1.14) sent to a client speaking over a raw socket, recorded
/// byte for byte by `Fuzz/tools/dbus-capture.py` (also the `dbus` fuzz target's seeds). The
/// nested GetAll reply and the big-endian signal were written by a second client and
/// forwarded by the daemon, which checks every message it forwards and adds `SENDER`.
enum DBusFixtures {
    /// Hex with any whitespace, as bytes.
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8.filter { $0 > 0x20 })
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...($0 + 1)], as: UTF8.self), radix: 16) }
    }

    static let authOK = bytes("""
        4f4b2064363563613536626635643837353237383030656466343036623132666231610d0a
        """)
    static let helloReply = bytes("""
        6c02010109000000010000003d00000006017300040000003a312e3000000000050175000100000008016700017300000701730014000000
        6f72672e667265656465736b746f702e4442757300000000040000003a312e3000
        """)
    static let nameAcquired = bytes("""
        6c04010109000000020000008d00000001016f00150000002f6f72672f667265656465736b746f702f444275730000000201730014000000
        6f72672e667265656465736b746f702e4442757300000000030173000c0000004e616d654163717569726564000000000601730004000000
        3a312e3000000000080167000173000007017300140000006f72672e667265656465736b746f702e4442757300000000040000003a312e30
        00
        """)
    static let getAllBusReply = bytes("""
        6c020101b9000000030000004500000006017300040000003a312e300000000005017500020000000801670005617b73767d000000000000
        07017300140000006f72672e667265656465736b746f702e4442757300000000b10000000000000008000000466561747572657300026173
        00000000340000001a0000004163746976617461626c6553657276696365734368616e67656400000f00000048656164657246696c746572
        696e6700000000000a000000496e7465726661636573000261730000490000001f0000006f72672e667265656465736b746f702e44427573
        2e4d6f6e69746f72696e6700200000006f72672e667265656465736b746f702e444275732e44656275672e537461747300
        """)
    static let errorReply = bytes("""
        6c03010142000000040000007500000006017300040000003a312e300000000004017300280000006f72672e667265656465736b746f702e
        444275732e4572726f722e556e6b6e6f776e4d6574686f640000000000000000050175000300000008016700017300000701730014000000
        6f72672e667265656465736b746f702e44427573000000003d0000006f72672e667265656465736b746f702e4442757320646f6573206e6f
        7420756e6465727374616e64206d657373616765204e6f537563684d6574686f6400
        """)
    static let getAllNestedReply = bytes("""
        6c0200011e0100000200000035000000050175000500000006017300040000003a312e30000000000801670005617b73767d000000000000
        07017300040000003a312e31000000001601000000000000040000004e616d650001730009000000776c616e3020e29c9300000000000000
        05000000436f756e74000175000000002a0000000000000004000000466c6167000162000100000005000000526174696f00016400000000
        000000000000e03f040000005061746800016f00150000002f6f72672f6578616d706c652f4465766963652f310000000500000042797465
        730002617900000003000000010203000400000044656570000176000176000169000000f9ffffff05000000496e6e65720005617b73767d
        0000000046000000030000004d74750001710000dc05000005000000456d7074790002617400000000000000000000000400000050616972
        0004287873290000ffffffffffffffff010000007800
        """)
    static let signalBigEndian = bytes("""
        4204000100000060000000030000007501016f00000000132f6f72672f6578616d706c652f44657669636500000000000201730000000012
        6f72672e6578616d706c652e44657669636500000000000003017300000000074368616e67656400080167000d73617b73767d6173287971
        782900000000000007017300000000043a312e310000000000000005776c616e300000000000003000000005537461746500017500000000
        000000640000000000000003496473000261690000000008ffffffff000000020000000c0000000743617272696572000700ffff00000000
        fffffffffffffffe
        """)

    /// The capture client's `Hello` (serial 1) and `GetAll` of the bus (serial 2), which the
    /// daemon answered with ``helloReply`` and ``getAllBusReply``.
    static let helloCall = bytes("""
        6c01000100000000010000006d00000001016f00150000002f6f72672f667265656465736b746f702f4442757300000002017300140000006f
        72672e667265656465736b746f702e4442757300000000030173000500000048656c6c6f00000006017300140000006f72672e6672656564
        65736b746f702e4442757300000000
        """)
    static let getAllCall = bytes("""
        6c01000119000000020000007f00000001016f00150000002f6f72672f667265656465736b746f702f44427573000000020173001f0000006f
        72672e667265656465736b746f702e444275732e50726f70657274696573000301730006000000476574416c6c000006017300140000006f
        72672e667265656465736b746f702e44427573000000000801670001730000140000006f72672e667265656465736b746f702e4442757300
        """)
}

/// A message's bytes with its body replaced (the body length patched; little-endian).
private func replacingBody(of message: [UInt8], with body: [UInt8]) -> [UInt8] {
    let oldLength = Int(message[4]) | Int(message[5]) << 8 | Int(message[6]) << 16 | Int(message[7]) << 24
    var bytes = Array(message.dropLast(oldLength)) + body
    for index in 0..<4 { bytes[4 + index] = UInt8(truncatingIfNeeded: body.count >> (8 * index)) }
    return bytes
}

/// A signal carrying `body` whose bytes can then be replaced by hand-made ones.
private func signal(_ body: [DBusValue]) throws -> [UInt8] {
    try DBusMessage(type: .signal, serial: 9, path: "/a", interface: "org.example.I", member: "M", body: body).encoded()
}

private func reason(_ bytes: [UInt8]) -> DBusWireError.Reason? {
    do {
        _ = try DBusMessage.decode(bytes)
        return nil
    } catch {
        return (error as? DBusWireError)?.reason
    }
}

@Suite struct DBusSignatureTests {
    @Test func validSignaturesParseToTheirTypesAndBack() {
        for signature in ["", "y", "a{sv}", "(ii)", "aai", "a(yv)", "a{oa{sa{sv}}}", "sa{sv}as(yqx)", "h"] {
            #expect(DBusSignature.parse(signature)?.map(\.signature).joined() == signature, "\(signature)")
        }
        #expect(DBusSignature.parse("a{sv}") == [.dictionary(key: .string, value: .variant)])
    }

    @Test func invalidSignaturesAreRefused() {
        for signature in ["a", "{sv}", "a{vs}", "a{(i)s}", "()", "a{s}", "a{sss}", "(", ")", "(i", "z", "a{sv", "v{", "aa{sv}}"] {
            #expect(DBusSignature.parse(signature) == nil, "\(signature)")
        }
    }

    @Test func limitsAreTheSpecs() {
        #expect(DBusSignature.parse(String(repeating: "a", count: 32) + "i") != nil)
        #expect(DBusSignature.parse(String(repeating: "a", count: 33) + "i") == nil)
        #expect(DBusSignature.parse(String(repeating: "(", count: 32) + "i" + String(repeating: ")", count: 32)) != nil)
        #expect(DBusSignature.parse(String(repeating: "(", count: 33) + "i" + String(repeating: ")", count: 33)) == nil)
        #expect(DBusSignature.parse(String(repeating: "y", count: 255)) != nil)
        #expect(DBusSignature.parse(String(repeating: "y", count: 256)) == nil)
    }

    @Test func objectPathsAndNames() {
        for path in ["/", "/org/freedesktop/NetworkManager", "/a_1/B"] { #expect(DBusSignature.isObjectPath(path), "\(path)") }
        for path in ["", "a", "//", "/a/", "/a//b", "/a-b", "/é"] { #expect(!DBusSignature.isObjectPath(path), "\(path)") }
        #expect(DBusSignature.isName("org.freedesktop.DBus", elements: 2) && DBusSignature.isName("GetAll", elements: 1))
        #expect(!DBusSignature.isName("org", elements: 2) && !DBusSignature.isName("a.1b", elements: 2)
            && !DBusSignature.isName("a..b", elements: 2) && !DBusSignature.isName("Get.All", elements: 1))
    }
}

@Suite struct DBusMessageTests {
    /// A body with every type, empty and nested containers, and strings that need care.
    static let everyType: [DBusValue] = [
        .byte(0xFF), .boolean(true), .int16(-2), .uint16(65_535), .int32(.min), .uint32(.max), .int64(.min),
        .uint64(.max), .double(-0.25), .string(""), .string("wlan0 ✓"), .objectPath("/"), .signature("a{sv}"),
        .unixFD(3),
        .array(elementSignature: "t", []),
        .array(elementSignature: "ay", [.array(elementSignature: "y", [.byte(1)]), .array(elementSignature: "y", [])]),
        .dictionary(keySignature: "s", valueSignature: "v", [
            DBusValue.Entry(.string("Mtu"), .variant(.uint32(1500))),
            DBusValue.Entry(.string("Deep"), .variant(.variant(.structure([.byte(1), .double(2), .string("x")])))),
            DBusValue.Entry(.string("Empty"), .variant(.dictionary(keySignature: "y", valueSignature: "(xd)", []))),
        ]),
        .structure([.byte(7), .structure([.int64(-1)]), .array(elementSignature: "(yy)", [.structure([.byte(1), .byte(2)])])]),
        .variant(.array(elementSignature: "o", [.objectPath("/org/a"), .objectPath("/b")])),
    ]

    @Test func everyTypeAndNestingRoundTrips() throws {
        let message = DBusMessage(type: .methodCall, flags: .noAutoStart, serial: 42, path: "/org/example", interface: "org.example.I",
                                  member: "Call", destination: ":1.7", sender: "org.example.Name", body: Self.everyType)
        let bytes = try message.encoded()
        #expect(try DBusMessage.frameLength(in: bytes) == bytes.count)
        #expect(try DBusMessage.decode(bytes) == message)
        #expect(message.bodySignature == "ybnqiuxtdssoghataaya{sv}(y(x)a(yy))v")
    }

    @Test func theCallsTheDaemonAnsweredAreWrittenByteForByte() throws {
        var hello = DBusMessage.hello
        hello.serial = 1
        var getAll = DBusMessage.getAllProperties(destination: DBusMessage.busName, path: DBusMessage.busPath, interface: DBusMessage.busName)
        getAll.serial = 2
        #expect(try hello.encoded() == DBusFixtures.helloCall)
        #expect(try getAll.encoded() == DBusFixtures.getAllCall)
    }

    @Test func valuesAreAlignedFromTheStartOfTheMessage() throws {
        // y, then an empty array of t: the length on 4, then padding to 8 even with no element.
        let bytes = try signal([.byte(1), .array(elementSignature: "t", []), .int16(-1), .structure([.byte(2)])])
        let body = Array(bytes.suffix(17))
        #expect(body == [1, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 2])
        #expect(bytes[0...3] == [UInt8(ascii: "l"), 4, 0, 1] && bytes[4] == 17)
    }

    @Test func theDaemonsHelloReplyAndNameAcquiredSignal() throws {
        let reply = try DBusMessage.decode(DBusFixtures.helloReply)
        #expect(reply == DBusMessage(type: .methodReturn, flags: .noReplyExpected, serial: 1, replySerial: 1, destination: ":1.0",
                                     sender: "org.freedesktop.DBus", body: [.string(":1.0")]))
        let signal = try DBusMessage.decode(DBusFixtures.nameAcquired)
        #expect(signal.type == .signal && signal.path == "/org/freedesktop/DBus" && signal.interface == "org.freedesktop.DBus")
        #expect(signal.member == "NameAcquired" && signal.destination == ":1.0" && signal.body == [.string(":1.0")])
    }

    @Test func aGetAllReplyOfTheBusItself() throws {
        let reply = try DBusMessage.decode(DBusFixtures.getAllBusReply)
        #expect(reply.replySerial == 2 && reply.bodySignature == "a{sv}")
        let properties = try #require(reply.body.first?.dictionary)
        #expect(properties["Features"]?.array?.compactMap(\.string) == ["ActivatableServicesChanged", "HeaderFiltering"])
        #expect(properties["Interfaces"]?.array?.compactMap(\.string) == ["org.freedesktop.DBus.Monitoring", "org.freedesktop.DBus.Debug.Stats"])
    }

    @Test func aGetAllReplyWithNestedVariants() throws {
        let reply = try DBusMessage.decode(DBusFixtures.getAllNestedReply)
        #expect(reply.sender == ":1.1" && reply.destination == ":1.0" && reply.replySerial == 5)
        let properties = try #require(reply.body.first?.dictionary)
        #expect(properties["Name"]?.string == "wlan0 ✓" && properties["Count"]?.uint32 == 42 && properties["Flag"]?.bool == true)
        #expect(properties["Ratio"] == .double(0.5) && properties["Path"] == .objectPath("/org/example/Device/1"))
        #expect(properties["Bytes"] == .array(elementSignature: "y", [.byte(1), .byte(2), .byte(3)]))
        #expect(properties["Deep"]?.int32 == -7 && properties["Deep"] == .int32(-7))
        let inner = try #require(properties["Inner"]?.dictionary)
        #expect(inner["Mtu"] == .uint16(1500) && inner["Empty"] == .array(elementSignature: "t", []))
        #expect(inner["Pair"] == .structure([.int64(-1), .string("x")]))
        #expect(try DBusMessage.decode(reply.encoded()) == reply)
    }

    @Test func anErrorReply() throws {
        let reply = try DBusMessage.decode(DBusFixtures.errorReply)
        #expect(reply.type == .error && reply.replySerial == 3)
        #expect(reply.errorName == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(reply.body.first?.string == "org.freedesktop.DBus does not understand message NoSuchMethod")
    }

    @Test func aBigEndianSignal() throws {
        let signal = try DBusMessage.decode(DBusFixtures.signalBigEndian)
        #expect(signal.type == .signal && signal.member == "Changed" && signal.sender == ":1.1")
        #expect(signal.body.count == 4 && signal.body[0] == .string("wlan0") && signal.body[2].array == [.string("Carrier")])
        #expect(signal.body[1].dictionary == ["State": .uint32(100), "Ids": .array(elementSignature: "i", [.int32(-1), .int32(2)])])
        #expect(signal.body[3] == .structure([.byte(7), .uint16(65_535), .int64(-2)]))
        // Written again little-endian, it reads the same.
        #expect(try DBusMessage.decode(signal.encoded()) == signal)
    }

    @Test func theFrameSplitterWaitsForWholeMessages() throws {
        let stream = DBusFixtures.helloReply + DBusFixtures.signalBigEndian
        for cut in 0..<stream.count {
            let prefix = Array(stream[..<cut])
            let first = try DBusMessage.frameLength(in: prefix)
            #expect(first == (cut >= DBusFixtures.helloReply.count ? DBusFixtures.helloReply.count : nil))
            let second = try DBusMessage.frameLength(in: prefix, at: DBusFixtures.helloReply.count)
            #expect(second == (cut == stream.count ? DBusFixtures.signalBigEndian.count : nil))
        }
        #expect(try DBusMessage.frameLength(in: stream, at: DBusFixtures.helloReply.count) == DBusFixtures.signalBigEndian.count)
        #expect(throws: DBusWireError(.badHeader, at: 0)) { try DBusMessage.frameLength(in: [UInt8(ascii: "x")]) }
    }

    @Test func lengthsOverTheLimitsAreRefusedFromTheFixedHeader() throws {
        var header = Array(DBusFixtures.helloReply.prefix(16))
        header[6] = 0x10  // a body of 1 MiB + 9 bytes
        #expect(throws: DBusWireError(.tooLong, at: 4)) { try DBusMessage.frameLength(in: header) }
        #expect(try DBusMessage.frameLength(in: header, maximumLength: 2 << 20) == nil)
        header[6] = 0
        header[15] = 0x04  // a header field array of 64 MiB + 61 bytes
        #expect(throws: DBusWireError(.tooLong, at: 4)) { try DBusMessage.frameLength(in: header, maximumLength: .max) }
        header[15] = 0
        header[3] = 2
        #expect(throws: DBusWireError(.badHeader, at: 3)) { try DBusMessage.frameLength(in: header) }
    }

    @Test func malformedBodiesAreTypedErrors() throws {
        let cases: [([DBusValue], [UInt8], DBusWireError.Reason)] = [
            ([.boolean(true)], [2, 0, 0, 0], .badBoolean),
            ([.string("a")], [2, 0, 0, 0, 0xC3, 0x28, 0], .badString),  // invalid UTF-8
            ([.string("a")], [3, 0, 0, 0, 0xFF, 0xFE, 0xFD, 0], .badString),
            ([.string("a")], [3, 0, 0, 0, 0x61, 0, 0x62, 0], .badString),  // an interior NUL
            ([.string("a")], [1, 0, 0, 0, 0x61, 0x62], .badString),  // no NUL terminator
            ([.objectPath("/")], [2, 0, 0, 0, 0x2F, 0x2F, 0], .badObjectPath),
            ([.signature("")], [2, 0x61, 0x7B, 0], .badSignature),
            ([.byte(1), .uint32(5)], [1, 0xFF, 0, 0, 5, 0, 0, 0], .badPadding),
            ([.array(elementSignature: "y", [])], [0x01, 0, 0, 0x04, 1], .tooLong),  // 64 MiB + 1
            ([.array(elementSignature: "y", [])], [10, 0, 0, 0, 1, 2], .truncated),
            ([.array(elementSignature: "u", [])], [2, 0, 0, 0, 1, 0, 0, 0], .truncated),  // a length mid-element
            ([.byte(1)], [1, 2], .trailingBytes),
            ([.variant(.byte(1))], [1, 0x28, 0, 0], .badSignature),  // a variant of "("
            ([.variant(.byte(1))], [2, 0x79, 0x79, 0, 1, 1], .badSignature),  // a variant of two types
        ]
        for (values, body, expected) in cases {
            #expect(reason(replacingBody(of: try signal(values), with: body)) == expected, "\(body)")
        }
    }

    @Test func variantsNestedPastSixtyFourAreRefused() throws {
        func nested(_ depth: Int) -> [UInt8] { Array(repeating: [1, UInt8(ascii: "v"), 0], count: depth - 1).flatMap { $0 } + [1, 0x79, 0, 5] }
        let template = try signal([.variant(.byte(0))])
        #expect(reason(replacingBody(of: template, with: nested(64))) == nil)
        #expect(reason(replacingBody(of: template, with: nested(65))) == .tooDeep)
        var deep = DBusValue.byte(5)
        for _ in 0..<65 { deep = .variant(deep) }
        #expect(throws: DBusWireError(.tooDeep)) { try signal([deep]) }
    }

    @Test func headersMustHaveTheirFieldsOfTheirTypes() throws {
        #expect(throws: DBusWireError(.badField)) { try DBusMessage(type: .methodCall, serial: 1, path: "/").encoded() }
        #expect(throws: DBusWireError(.badField)) { try DBusMessage(type: .error, serial: 1, replySerial: 1).encoded() }
        var call = DBusMessage.methodCall(destination: "a b", path: "/", interface: "a.b", member: "M")
        call.serial = 1
        #expect(throws: DBusWireError(.badName)) { try call.encoded() }
        #expect(throws: DBusWireError(.badHeader)) { try DBusMessage.hello.encoded() }  // serial 0
        // REPLY_SERIAL (5) carried as an int32: the daemon's Hello reply with one byte changed.
        var bytes = DBusFixtures.helloReply
        bytes[34] = UInt8(ascii: "i")
        #expect(reason(bytes) == .badField)
        bytes = DBusFixtures.helloReply
        bytes[8] = 0  // serial 0
        #expect(reason(bytes) == .badHeader)
        bytes[8] = 1
        bytes[1] = 9
        #expect(reason(bytes) == .unknownType)
    }

    @Test func valuesThatDoNotMatchTheirSignaturesAreNotWritten() {
        #expect(throws: DBusWireError(.typeMismatch)) { try signal([.array(elementSignature: "s", [.int32(1)])]) }
        #expect(throws: DBusWireError(.typeMismatch)) {
            try signal([.dictionary(keySignature: "s", valueSignature: "v", [DBusValue.Entry(.string("a"), .string("b"))])])
        }
        #expect(throws: DBusWireError(.badSignature)) { try signal([.dictionary(keySignature: "v", valueSignature: "s", [])]) }
        #expect(throws: DBusWireError(.badSignature)) { try signal([.structure([])]) }
        #expect(throws: DBusWireError(.badString)) { try signal([.string("a\u{0}b")]) }
        #expect(throws: DBusWireError(.badObjectPath)) { try signal([.objectPath("/a/")]) }
    }

    @Test func everyTruncationAndEveryChangedByteOfTheFixturesIsAnErrorOrAMessage() throws {
        // Each must be a typed error or a message that writes and reads back the same: no trap.
        for fixture in [DBusFixtures.helloReply, DBusFixtures.getAllNestedReply, DBusFixtures.signalBigEndian, DBusFixtures.errorReply] {
            for cut in 0..<fixture.count { #expect(reason(Array(fixture[..<cut])) != nil) }
            for index in fixture.indices {
                for byte: UInt8 in [0, 0x7F, 0xFF] {
                    var bytes = fixture
                    bytes[index] = byte
                    if let message = try? DBusMessage.decode(bytes) {
                        let written = try message.encoded()
                        #expect(try DBusMessage.decode(written).encoded() == written)
                    }
                }
            }
        }
    }
}
