import Contracts
import FoundationEssentials
import Testing

@testable import Messaging

/// Foundation's bytes, as `Reply.json` wrote them before `WireJSON`.
private func foundation<T: Encodable>(_ value: T) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    return Array(try encoder.encode(value))
}

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// The streaming encoder (no fallback) writes what Foundation writes, up to key order.
private func expectSameAsFoundation<T: Encodable>(
    _ value: T, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let ours = try StreamingJSONEncoder.encode(value)
    let theirs = try foundation(value)
    let canonical = CanonicalJSON.of(ours)
    #expect(canonical != nil, "not compact JSON: \(text(ours))", sourceLocation: sourceLocation)
    #expect(
        canonical == CanonicalJSON.of(theirs), "ours \(text(ours)) Foundation \(text(theirs))",
        sourceLocation: sourceLocation)
}

private func expectBytes<T: Encodable>(
    _ value: T, _ json: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(text(try StreamingJSONEncoder.encode(value)) == json, sourceLocation: sourceLocation)
}

private struct Ordered: Codable, Equatable {
    var z = 1
    var a = "x"
    var missing: Int? = nil
    var b = true
}

private struct Empty: Codable, Equatable {}

private struct Optionals: Codable, Equatable {
    var some: Int?? = .some(5)
    var someNil: Int?? = .some(nil)
    var none: Int?? = nil
    var list: [Int?] = [1, nil, 3]
    var strings: [String?]? = [nil, "a"]
}

private struct ExplicitNil: Encodable {
    enum CodingKeys: String, CodingKey { case a, b, c }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeNil(forKey: .a)
        try c.encodeIfPresent(Int?.none, forKey: .b)
        try c.encode(String?.none, forKey: .c)
    }
}

private enum Shape: Codable, Equatable {
    case point
    case circle(radius: Double)
    case labelled(String, size: Int)
}

private struct Nothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

private struct HoldsNothing: Encodable {
    var before = 1
    var nothing = Nothing()
    var list = [Nothing(), Nothing()]
    var after = 2
}

/// Every container kind, each written in order.
private struct Containers: Encodable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(Int8.min, forKey: Key("i8"))
        var nested = c.nestedContainer(keyedBy: Key.self, forKey: Key("nested"))
        try nested.encode(Float(0.1), forKey: Key("f"))
        var list = nested.nestedUnkeyedContainer(forKey: Key("list"))
        try list.encodeNil()
        try list.encode(UInt16.max)
        var inner = list.nestedContainer(keyedBy: Key.self)
        #expect(inner.codingPath.map(\.stringValue) == ["nested", "list", "Index 2"])
        try inner.encode("in", forKey: Key("s"))
        var innerList = list.nestedUnkeyedContainer()
        try innerList.encode(false)
        try list.encode("after")
        #expect(list.count == 5)
        var again = encoder.container(keyedBy: Key.self)
        try again.encode(true, forKey: Key("again"))
        try c.encode([[1, 2], []], forKey: Key("arrays"))
        let sup = c.superEncoder(forKey: Key("sup"))
        var single = sup.singleValueContainer()
        try single.encode(Int64.max)
        let empty = c.superEncoder()
        #expect(empty.codingPath.map(\.stringValue) == ["super"])
        _ = empty
        var tail = c.nestedUnkeyedContainer(forKey: Key("tail"))
        let elementSuper = tail.superEncoder()
        var elementList = elementSuper.unkeyedContainer()
        try elementList.encode(UInt8(7))
    }
}

/// The class pattern: own keys, then `super` through `superEncoder()`.
private class Base: Encodable {
    var base = "b"
}

private final class Derived: Base {
    var own = 2
    enum CodingKeys: String, CodingKey { case own }
    override func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(own, forKey: .own)
        try super.encode(to: c.superEncoder())
    }
}

/// Written to after its parent moved on: Foundation accepts it, the streaming encoder hands it over.
private struct Interleaved: Encodable {
    enum CodingKeys: String, CodingKey { case a, b, c }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        var nested = c.nestedContainer(keyedBy: CodingKeys.self, forKey: .a)
        try c.encode(1, forKey: .b)
        try nested.encode(2, forKey: .c)
    }
}

private struct DuplicateKey: Encodable {
    enum CodingKeys: String, CodingKey { case a, b }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(1, forKey: .a)
        try c.encode(2, forKey: .b)
        try c.encode(3, forKey: .a)
    }
}

private struct TwoValues: Encodable {
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(1)
        try c.encode(2)
    }
}

private struct LateSuper: Encodable {
    func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(1)
        let sup = c.superEncoder()
        try c.encode(2)
        var single = sup.singleValueContainer()
        try single.encode("S")
    }
}

@Suite("Streaming JSON encoder: Foundation's bytes (no broker)")
struct StreamingJSONEncoderTests {
    @Test func everyControlCharacterAndTheOtherEscapes() throws {
        for byte in UInt8(0)...0x7F {
            try expectSameAsFoundation(String(decoding: [byte], as: UTF8.self))
            try expectSameAsFoundation("a\(String(decoding: [byte], as: UTF8.self))b")
        }
        try expectBytes("\u{0}\u{8}\t\n\u{B}\u{C}\r\u{1F}\u{7F}", #""\u0000\b\t\n\u000b\f\r\u001f\#u{7F}""#)
        for s in [
            "", "\"", "\\", "/", "https://a.b/c?d=e&f", "é", "Nestlé", "日本語", "😀", "👩‍👩‍👧", "\u{2028}\u{2029}",
            "\u{FEFF}", "e\u{301}", "a\"b\\c/d\n\u{1}end", String(repeating: "long ", count: 100),
        ] {
            try expectSameAsFoundation(s)
            try expectSameAsFoundation([s: s])
        }
        // Past the initial 1 KB buffer, more than once.
        try expectSameAsFoundation([String](repeating: "x\n" + String(repeating: "é\"", count: 300), count: 20))
    }

    @Test func integersAtTheirLimits() throws {
        try expectSameAsFoundation([Int8.min, 0, Int8.max])
        try expectSameAsFoundation([Int16.min, Int16.max])
        try expectSameAsFoundation([Int32.min, Int32.max])
        try expectSameAsFoundation([Int64.min, -1, Int64.max])
        try expectSameAsFoundation([Int.min, -10, -9, 9, 10, 99, 100, Int.max])
        try expectSameAsFoundation([UInt8.max])
        try expectSameAsFoundation([UInt16.max])
        try expectSameAsFoundation([UInt32.max])
        try expectSameAsFoundation([UInt64.min, UInt64.max])
        try expectSameAsFoundation([UInt.max])
        try expectBytes([Int64.min], "[-9223372036854775808]")
        try expectBytes(UInt64.max, "18446744073709551615")
    }

    @Test func doublesAndFloatsAsFoundationFormatsThem() throws {
        let doubles: [Double] = [
            0, -0.0, 0.1, 1e-7, 1e21, 1e20, 1e16, 1e15, .leastNonzeroMagnitude, .leastNormalMagnitude,
            1.7976931348623157e308,
            100, 3, -1.5, 1 / 3, 4.35, 1e-5, 2.5e-5, 0.000001, 9007199254740992, 123456789012345680, 0.87, 149.99,
        ]
        for d in doubles { try expectSameAsFoundation(d) }
        try expectSameAsFoundation(doubles)
        let floats: [Float] = [0.1, 3, -0.0, 1e-7, 1e21, 16777216, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        for f in floats { try expectSameAsFoundation(f) }
        try expectBytes([3.0, -0.0, 100.0, 1e-7, 1e21, .leastNonzeroMagnitude], "[3,-0,100,1e-07,1e+21,5e-324]")
        try expectBytes(Float(0.1), "0.1")
    }

    @Test func nonFiniteNumbersThrowAndBecomeA500() throws {
        for value in [Double.nan, .infinity, -.infinity] {
            #expect(throws: EncodingError.self) { try StreamingJSONEncoder.encode(value) }
            #expect(throws: EncodingError.self) { try StreamingJSONEncoder.encode(["x": [value]]) }
            #expect(throws: EncodingError.self) { try WireJSON.encode(LatLng(lat: value, lng: 0)) }
            let reply = Reply.json(200, ["price": value])
            #expect(reply.status == 500)
            #expect(text(reply.body) == #"{"error":"internal error"}"#)
        }
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder.encode(Float.nan) }
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder.encode([Float.infinity]) }
    }

    @Test func keysComeInEncodeOrder() throws {
        try expectBytes(Ordered(), #"{"z":1,"a":"x","b":true}"#)
        try expectSameAsFoundation(Ordered())
        try expectBytes(Empty(), "{}")
        try expectSameAsFoundation(Empty())
    }

    @Test func optionalsNullsAndEmptyContainers() throws {
        try expectBytes(Optionals(), #"{"some":5,"someNil":null,"list":[1,null,3],"strings":[null,"a"]}"#)
        try expectSameAsFoundation(Optionals())
        try expectBytes(ExplicitNil(), #"{"a":null,"c":null}"#)
        try expectSameAsFoundation(ExplicitNil())
        try expectSameAsFoundation(Int?.none)
        try expectSameAsFoundation([String]())
        try expectSameAsFoundation([String: Int]())
        try expectSameAsFoundation([[String: [Int?]]]([[:], ["a": []], ["b": [nil]]]))
        try expectSameAsFoundation(true)
        try expectSameAsFoundation([false, true])
    }

    @Test func dictionaries() throws {
        let dictionary = ["b": 1, "a": 2, "c": 3, "zz": 4, "y": 5, "": 6, "é/\"": 7]
        try expectSameAsFoundation(dictionary)
        try expectSameAsFoundation([3: "a", 1: "b", -7: "c"])
        try expectSameAsFoundation(["outer": ["inner": [1.5, 2]], "other": [:]])
        let prefs: [String: JSONValue] = [
            "quiet": .bool(true), "hours": .array([.number(22), .number(7)]), "none": .null,
            "nested": .object(["s": .string("x\ny")]),
        ]
        try expectSameAsFoundation(prefs)
    }

    @Test func enumsAndEveryContainerKind() throws {
        try expectSameAsFoundation([Shape.point, .circle(radius: 2.5), .labelled("x", size: 3)])
        try expectSameAsFoundation([Confidence.high: 1])
        try expectSameAsFoundation(HoldsNothing())
        try expectBytes(HoldsNothing(), #"{"before":1,"nothing":{},"list":[{},{}],"after":2}"#)
        try expectSameAsFoundation(Containers())
        try expectBytes(
            Containers(),
            #"{"i8":-128,"nested":{"f":0.1,"list":[null,65535,{"s":"in"},[false],"after"]},"again":true,"#
                + #""arrays":[[1,2],[]],"sup":9223372036854775807,"super":{},"tail":[[7]]}"#)
        try expectBytes(Derived(), #"{"own":2,"super":{"base":"b"}}"#)
        try expectSameAsFoundation(Derived())
    }

    @Test func whatTheStreamingEncoderHandsToFoundation() throws {
        let values: [any Encodable] = [
            Date(timeIntervalSinceReferenceDate: 12.5), ["at": Date(timeIntervalSince1970: 0)], Data([1, 2, 3]),
            URL(string: "https://a.b/c?d=e"), Decimal(string: "12.340"), Interleaved(), DuplicateKey(), TwoValues(),
            LateSuper(), Nothing(),
        ]
        for value in values {
            #expect(throws: StreamingJSONEncoder.Unsupported.self) { try StreamingJSONEncoder.encode(value) }
        }
        // WireJSON then answers with Foundation's bytes (or its error); Foundation traps on `TwoValues`.
        for value in values where !(value is TwoValues) && !(value is Nothing) {
            let wire = try WireJSON.encode(value)
            #expect(CanonicalJSON.of(wire) == CanonicalJSON.of(try foundation(value)), "\(text(wire))")
        }
        #expect(throws: EncodingError.self) { try WireJSON.encode(Nothing()) }
        // 128-bit integers: the standard library's default container methods throw, Foundation writes them.
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder.encode([Int128.max]) }
        let wide: [String: [Int128]] = ["i": [.min, .max]]
        #expect(CanonicalJSON.of(try WireJSON.encode(wide)) == CanonicalJSON.of(try foundation(wide)))
        #expect(try WireJSON.encode([UInt128.max]) == (try foundation([UInt128.max])))
        try expectSameAsFoundation(Float16(0.1))
        #expect(text(try WireJSON.encode(Data([1, 2, 3]))) == #""AQID""#)
        #expect(text(try WireJSON.encode(Interleaved())).contains(#""a":{"c":2}"#))
    }
}
