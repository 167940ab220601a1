import FoundationEssentials

// The coding keys, the encoder handed to each slot and the three container kinds `StreamingJSONEncoder` writes
// through (`JSONStream` holds the bytes and the open frames).

/// Object keys in coding paths.
struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Array positions in coding paths, as Foundation names them.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// The encoder a value gets for its slot.
struct SlotEncoder: Encoder {
    let stream: JSONStream
    let slot: Int
    let depth: Int

    var codingPath: [any CodingKey] { stream.codingPath(depth: depth, slot: slot) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let frame = stream.frame(for: slot, depth: depth, isObject: true)
        return KeyedEncodingContainer(ObjectContainer<Key>(stream: stream, index: frame.index, id: frame.id))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let frame = stream.frame(for: slot, depth: depth, isObject: false)
        return ArrayContainer(stream: stream, index: frame.index, id: frame.id)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ValueContainer(stream: stream, slot: slot, depth: depth)
    }
}

/// A JSON object being written.
struct ObjectContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let stream: JSONStream
    let index: Int
    let id: Int

    var codingPath: [any CodingKey] { stream.codingPath(depth: index + 1) }

    mutating func encodeNil(forKey key: Key) throws {
        try stream.key(key.stringValue, in: index, id: id)
        stream.out.null()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try stream.key(key.stringValue, in: index, id: id)
        stream.out.bool(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try stream.key(key.stringValue, in: index, id: id)
        stream.out.string(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws { try float(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try float(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let place = try stream.key(key.stringValue, in: index, id: id)
        try stream.value(value, slot: stream.openSlot(key: place), depth: index + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let frame = nested(key, isObject: true)
        return KeyedEncodingContainer(ObjectContainer<NestedKey>(stream: stream, index: frame.index, id: frame.id))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let frame = nested(key, isObject: false)
        return ArrayContainer(stream: stream, index: frame.index, id: frame.id)
    }

    /// Foundation's key for it: `super`.
    mutating func superEncoder() -> any Encoder { superEncoder(at: "super") }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(at: key.stringValue) }

    private func superEncoder(at name: String) -> any Encoder {
        guard let place = try? stream.key(name, in: index, id: id) else {
            return SlotEncoder(stream: stream, slot: -1, depth: index + 1)
        }
        return SlotEncoder(stream: stream, slot: stream.openSlot(key: place), depth: index + 1)
    }

    private func nested(_ key: Key, isObject: Bool) -> (index: Int, id: Int) {
        guard let place = try? stream.key(key.stringValue, in: index, id: id) else { return (index + 1, -1) }
        return stream.push(isObject: isObject, owner: 0, key: place)
    }

    private func integer(_ value: some FixedWidthInteger, _ key: Key) throws {
        try stream.key(key.stringValue, in: index, id: id)
        stream.out.integer(value)
    }

    private func float(_ value: some BinaryFloatingPoint & CustomStringConvertible, _ key: Key) throws {
        try stream.key(key.stringValue, in: index, id: id)
        try stream.number(value)
    }
}

/// A JSON array being written.
struct ArrayContainer: UnkeyedEncodingContainer, ScalarPlace {
    let stream: JSONStream
    let index: Int
    let id: Int

    var codingPath: [any CodingKey] { stream.codingPath(depth: index + 1) }
    var count: Int { stream.count(of: index, id: id) }

    func prepare() throws { try stream.member(of: index, id: id) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try stream.member(of: index, id: id)
        let slot = stream.openSlot(key: .index(stream.count(of: index, id: id) - 1))
        try stream.value(value, slot: slot, depth: index + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let frame = nested(isObject: true)
        return KeyedEncodingContainer(ObjectContainer<NestedKey>(stream: stream, index: frame.index, id: frame.id))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let frame = nested(isObject: false)
        return ArrayContainer(stream: stream, index: frame.index, id: frame.id)
    }

    mutating func superEncoder() -> any Encoder {
        guard (try? stream.member(of: index, id: id)) != nil else {
            return SlotEncoder(stream: stream, slot: -1, depth: index + 1)
        }
        let slot = stream.openSlot(key: .index(stream.count(of: index, id: id) - 1))
        return SlotEncoder(stream: stream, slot: slot, depth: index + 1)
    }

    private func nested(isObject: Bool) -> (index: Int, id: Int) {
        guard (try? stream.member(of: index, id: id)) != nil else { return (index + 1, -1) }
        return stream.push(isObject: isObject, owner: 0, key: .index(stream.count(of: index, id: id) - 1))
    }
}

/// The one value of a slot.
struct ValueContainer: SingleValueEncodingContainer, ScalarPlace {
    let stream: JSONStream
    let slot: Int
    let depth: Int

    var codingPath: [any CodingKey] { stream.codingPath(depth: depth, slot: slot) }

    func prepare() throws { try stream.checkSlot(slot) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try stream.value(value, slot: slot, depth: depth)
    }
}

/// The scalar writes an array and a single-value container share: each prepares its place (the array's next
/// element, the slot's one value), then writes.
protocol ScalarPlace {
    var stream: JSONStream { get }
    func prepare() throws
}

extension ScalarPlace {
    mutating func encodeNil() throws {
        try prepare()
        stream.fill()
        stream.out.null()
    }

    mutating func encode(_ value: Bool) throws {
        try prepare()
        stream.fill()
        stream.out.bool(value)
    }

    mutating func encode(_ value: String) throws {
        try prepare()
        stream.fill()
        stream.out.string(value)
    }

    mutating func encode(_ value: Double) throws { try float(value) }
    mutating func encode(_ value: Float) throws { try float(value) }
    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }

    private func integer(_ value: some FixedWidthInteger) throws {
        try prepare()
        stream.fill()
        stream.out.integer(value)
    }

    private func float(_ value: some BinaryFloatingPoint & CustomStringConvertible) throws {
        try prepare()
        try stream.number(value)
    }
}
