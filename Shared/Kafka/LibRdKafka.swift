import CRdKafka

/// Facts about the librdkafka this process loaded at run time (which may differ from the headers it was built on).
public enum LibRdKafka {
    /// `rd_kafka_version_str()`, e.g. "2.0.2".
    public static var version: String { String(cString: rd_kafka_version_str()) }
}
