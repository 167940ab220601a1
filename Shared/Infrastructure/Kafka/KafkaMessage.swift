import CRdKafka

/// One Kafka record header. Values are bytes; Mapvest's own headers carry UTF-8 text.
public struct KafkaHeader: Sendable, Hashable {
    public var key: String
    public var value: [UInt8]

    public init(key: String, value: [UInt8]) {
        self.key = key
        self.value = value
    }

    /// A header with a UTF-8 text value.
    public init(_ key: String, _ text: String) {
        self.init(key: key, value: Array(text.utf8))
    }
}

/// A consumed record, copied out of librdkafka.
public struct KafkaMessage: Sendable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]

    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader]
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
    }

    /// The last header named `name`, decoded as UTF-8, or nil when absent.
    public func header(_ name: String) -> String? {
        guard let header = headers.last(where: { $0.key == name }) else { return nil }
        return String(decoding: header.value, as: UTF8.self)
    }

    /// The key decoded as UTF-8, or nil when the record has no key.
    public var keyString: String? { key.map { String(decoding: $0, as: UTF8.self) } }

    /// Copies a message out of librdkafka (the caller still destroys it).
    init(copying message: UnsafePointer<rd_kafka_message_t>) {
        let m = message.pointee
        topic = m.rkt.flatMap { rd_kafka_topic_name($0) }.map { String(cString: $0) } ?? ""
        partition = m.partition
        offset = m.offset
        key = m.key.map { Array(UnsafeRawBufferPointer(start: $0, count: m.key_len)) }
        value = m.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: m.len)) } ?? []
        var list: [KafkaHeader] = []
        var headers: OpaquePointer?
        if rd_kafka_message_headers(message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR, let headers {
            list.reserveCapacity(rd_kafka_header_cnt(headers))
            var index = 0
            var name: UnsafePointer<CChar>?
            var valuePointer: UnsafeRawPointer?
            var size = 0
            while rd_kafka_header_get_all(headers, index, &name, &valuePointer, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
                if let name {
                    let bytes = valuePointer.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
                    list.append(KafkaHeader(key: String(cString: name), value: bytes))
                }
                index += 1
            }
        }
        self.headers = list
    }
}
