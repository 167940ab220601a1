import FoundationEssentials

/// An `Encoder` that writes JSON straight into a byte buffer, with no tree in between: the output of Foundation's
/// `JSONEncoder` with `.withoutEscapingSlashes` and the default strategies, except that object keys come in encode
/// order (Foundation on Linux writes them in its dictionary's hash order, which changes from process to process).
///
/// It writes as the value encodes itself, so it handles what synthesized `Encodable` conformances and hand-written
/// ones in encode order do. Anything else throws `StreamingJSONEncoder.Unsupported`, for `WireJSON` to hand the
/// whole value to Foundation: the types Foundation special-cases (`Date`, `Data`, `URL`, `Decimal`), a container
/// written to after a sibling or its parent moved on, a key written twice in one object, a second value through a
/// single-value container, and a top-level value that encodes nothing.
enum StreamingJSONEncoder {
    struct Unsupported: Error {}

    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let stream = JSONStream()
        let root = stream.openSlot(key: .root)
        try stream.value(value, slot: root, depth: 0)
        try stream.finish(root: root)
        return stream.out.bytes
    }
}

/// The output and the open containers of one encode. Containers and encoders are handles into it: an object or
/// array frame (its index on the stack and its id) or a value slot (its id and depth). At most one slot is open (a
/// key or array position written, its value not yet started), always above the innermost frame.
final class JSONStream {
    /// Where a value sits in its parent, for coding paths: an array position, or a key already written to `out`
    /// (its byte range, quotes included), so no `CodingKey` existential is copied per value.
    enum PathKey {
        case root
        case index(Int)
        case key(start: Int, end: Int)
    }

    struct Frame {
        var id: Int
        /// The slot this container is the value of.
        var owner: Int
        var isObject: Bool
        var count = 0
        /// Index in `keys` of this object's first key.
        var keysStart: Int
        var key: PathKey
    }

    // Only this encode's handles touch the stream, one call at a time: no access can overlap, so no dynamic
    // exclusivity checks (they cost more than the writes they guard).
    @exclusivity(unchecked) var out = JSONOutput(capacity: 1024)
    @exclusivity(unchecked) private var frames: [Frame] = []
    /// Byte ranges in `out` of the keys of the open objects, for the duplicate check.
    @exclusivity(unchecked) private var keys: [(start: Int, end: Int)] = []
    @exclusivity(unchecked) private var openSlotId = 0
    @exclusivity(unchecked) private var openSlotKey = PathKey.root
    @exclusivity(unchecked) private var lastId = 0
    @exclusivity(unchecked) private var failed = false

    init() {
        frames.reserveCapacity(16)
        keys.reserveCapacity(64)
    }

    func openSlot(key: PathKey) -> Int {
        lastId += 1
        openSlotId = lastId
        openSlotKey = key
        return lastId
    }

    /// `value` into the open slot `slot`: the common scalars directly, everything else through its `encode(to:)`.
    func value<T: Encodable>(_ value: T, slot: Int, depth: Int) throws {
        guard !failed, openSlotId == slot else { throw fail() }
        if T.self == String.self {
            fill()
            out.string(Self.cast(value))
        } else if T.self == Int.self {
            fill()
            out.integer(Self.cast(value) as Int)
        } else if T.self == Double.self {
            try number(Self.cast(value) as Double)
        } else if T.self == Bool.self {
            fill()
            out.bool(Self.cast(value))
        } else if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            throw fail()
        } else {
            try value.encode(to: SlotEncoder(stream: self, slot: slot, depth: depth))
        }
    }

    /// Consumes the open slot for a scalar about to be written (after `member` none is open: a no-op).
    func fill() { openSlotId = 0 }

    /// A finite number into the open slot; non-finite ones throw as Foundation's `invalidValue`.
    func number<T: BinaryFloatingPoint & CustomStringConvertible>(_ value: T) throws {
        guard value.isFinite else {
            let context = EncodingError.Context(
                codingPath: [], debugDescription: "Unable to encode \(T.self).\(value) directly in JSON.")
            throw EncodingError.invalidValue(value, context)
        }
        fill()
        out.number(value)
    }

    /// Checks that `slot` is the open slot, for a single-value container about to write into it.
    func checkSlot(_ slot: Int) throws {
        guard !failed, openSlotId == slot else { throw fail() }
    }

    /// The frame the encoder of `slot` hands out: a new one while the slot is open, the one already there while it
    /// is still open (a second `container(keyedBy:)` call), else a dead handle.
    func frame(for slot: Int, depth: Int, isObject: Bool) -> (index: Int, id: Int) {
        if openSlotId == slot, depth == frames.count { return push(isObject: isObject, owner: slot, key: openSlotKey) }
        if depth < frames.count, frames[depth].owner == slot, frames[depth].isObject == isObject {
            return (depth, frames[depth].id)
        }
        failed = true
        return (depth, -1)
    }

    /// Before a write into frame `index`: closes what was opened inside it since (an unfilled slot becomes `{}`,
    /// as in Foundation), then counts the new member and writes its comma.
    func member(of index: Int, id: Int) throws {
        guard !failed, index < frames.count, frames[index].id == id else { throw fail() }
        if openSlotId != 0 {
            out.append(0x7B, 0x7D)
            openSlotId = 0
        }
        while frames.count > index + 1 { close() }
        if frames[index].count > 0 { out.append(0x2C) }
        frames[index].count += 1
    }

    /// The next member's key and colon; a key already in the object fails the encode. Returns the key's place.
    @discardableResult
    func key(_ name: String, in index: Int, id: Int) throws -> PathKey {
        try member(of: index, id: id)
        let start = out.count
        out.string(name)
        let end = out.count
        var k = frames[index].keysStart
        while k < keys.count {
            if out.same(keys[k].start..<keys[k].end, start..<end) { throw fail() }
            k += 1
        }
        keys.append((start, end))
        out.append(0x3A)
        return .key(start: start, end: end)
    }

    func push(isObject: Bool, owner: Int, key: PathKey) -> (index: Int, id: Int) {
        lastId += 1
        openSlotId = 0
        out.append(isObject ? 0x7B : 0x5B)
        frames.append(Frame(id: lastId, owner: owner, isObject: isObject, keysStart: keys.count, key: key))
        return (frames.count - 1, lastId)
    }

    /// The open frames' count of members; 0 for a dead handle.
    func count(of index: Int, id: Int) -> Int {
        index < frames.count && frames[index].id == id ? frames[index].count : 0
    }

    func finish(root: Int) throws {
        guard !failed, openSlotId != root else { throw fail() }
        if openSlotId != 0 { out.append(0x7B, 0x7D) }
        while !frames.isEmpty { close() }
    }

    /// The keys of the open frames below `depth`, then `slot`'s own key while it is open or the frame at `depth`
    /// fills it.
    func codingPath(depth: Int, slot: Int? = nil) -> [any CodingKey] {
        var places = frames.prefix(depth).map(\.key)
        if let slot {
            if openSlotId == slot {
                places.append(openSlotKey)
            } else if depth < frames.count, frames[depth].owner == slot {
                places.append(frames[depth].key)
            }
        }
        return places.compactMap { place -> (any CodingKey)? in
            switch place {
            case .root: nil
            case .index(let i): IndexKey(i)
            case .key(let start, let end):
                // Read back from the output (cold: only custom `encode(to:)` code asks for paths).
                (try? JSONDecoder().decode(String.self, from: Data(out.bytes(start..<end)))).map(NameKey.init)
            }
        }
    }

    private func close() {
        let frame = frames.removeLast()
        out.append(frame.isObject ? 0x7D : 0x5D)
        keys.removeLast(keys.count - frame.keysStart)
    }

    private func fail() -> StreamingJSONEncoder.Unsupported {
        failed = true
        return StreamingJSONEncoder.Unsupported()
    }

    /// `value` as `U`; only called after checking that `T` is `U`.
    private static func cast<T, U>(_ value: T) -> U {
        withUnsafePointer(to: value) { UnsafeRawPointer($0).load(as: U.self) }
    }
}
