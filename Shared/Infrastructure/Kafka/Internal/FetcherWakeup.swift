import CRdKafka

/// Wakes the broker threads that lead `partitions`, on a consumer's poll thread, right after they were resumed.
///
/// librdkafka (2.0.2) does not wake a broker thread when a partition is resumed: with nothing to fetch it sleeps up
/// to a second, so a resumed idle partition (`IdleFetchPacer`) would wait that long for its fetch. A request to each
/// leader wakes it, and its next turn fetches the resumed partitions: `endOffsets` sends one ListOffsets per leader.
func wakeFetchers(
    _ rk: OpaquePointer, _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>, timeoutMs: Int32 = 100
) {
    _ = endOffsets(rk, partitions, timeoutMs: timeoutMs)
}

/// Asks each leader of `partitions` for its end (`rd_kafka_offsets_for_times` for the latest offsets: one ListOffsets
/// per leader); blocks until they answer or `timeoutMs` passes. Each partition's end, nil where its leader gave none.
/// `partitions` is a list the caller owns; its offsets are overwritten.
func endOffsets(
    _ rk: OpaquePointer, _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>, timeoutMs: Int32 = 100
) -> [(tp: TopicPartition, end: Int64?)] {
    guard partitions.pointee.cnt > 0, let elems = partitions.pointee.elems else { return [] }
    for index in 0..<Int(partitions.pointee.cnt) { elems[index].offset = Int64(RD_KAFKA_OFFSET_END) }
    let answered = rd_kafka_offsets_for_times(rk, partitions, timeoutMs) == RD_KAFKA_RESP_ERR_NO_ERROR
    return RDKafkaTopicPartitionList.entries(of: partitions).map { entry in
        (entry.tp, answered && entry.err == RD_KAFKA_RESP_ERR_NO_ERROR && entry.offset >= 0 ? entry.offset : nil)
    }
}
