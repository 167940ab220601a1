import CRdKafka

/// Wakes the broker threads that lead `partitions`, on a consumer's poll thread, right after they were resumed.
///
/// librdkafka (2.0.2) does not wake a broker thread when a partition is resumed: with nothing to fetch it sleeps up
/// to a second, so a resumed idle partition (`IdleFetchPacer`) would wait that long for its fetch. A request to each
/// leader wakes it, and its next turn fetches the resumed partitions: `rd_kafka_offsets_for_times` for the latest
/// offsets sends one ListOffsets per leader. Blocks until they answer or `timeoutMs` passes. `partitions` is a list
/// the caller owns; its offsets are overwritten.
func wakeFetchers(
    _ rk: OpaquePointer, _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>, timeoutMs: Int32 = 100
) {
    guard partitions.pointee.cnt > 0, let elems = partitions.pointee.elems else { return }
    for index in 0..<Int(partitions.pointee.cnt) { elems[index].offset = Int64(RD_KAFKA_OFFSET_END) }
    _ = rd_kafka_offsets_for_times(rk, partitions, timeoutMs)
}
