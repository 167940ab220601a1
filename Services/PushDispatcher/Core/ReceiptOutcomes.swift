/// What one stored receipts batch (`push_receipts`: ticket ids and token ids by index) becomes once Expo answered:
/// `DeviceNotRegistered` prunes the installation (if it is still the active claim, claimed before the handoff),
/// `ok` and `error` are only counted, ids Expo does not know yet are asked again, at most `maxAttempts` polls in all.
/// A pure value; `PushMaintenance` runs the SQL.
package struct ReceiptOutcomes: Sendable, Equatable {
    /// Polls of one batch before its unknown ids are given up (counted `expired`).
    package static let maxAttempts = 4

    package struct Entry: Sendable, Equatable {
        package let ticketId: String
        package let tokenId: String
        /// Nil: Expo does not know the ticket yet.
        package let receipt: ExpoReceipt?
    }

    package enum Disposition: Sendable, Equatable {
        /// Delete the batch; `expired` unknown ids are given up.
        case delete(expired: Int)
        /// Keep only these (unknown) entries for the next poll.
        case keep(ticketIds: [String], tokenIds: [String])
    }

    /// Every ticket of the batch, in order, with its receipt.
    package let entries: [Entry]
    package let disposition: Disposition

    /// `attempts`: polls so far, this one included.
    package init(ticketIds: [String], tokenIds: [String], attempts: Int, receipts: [String: ExpoReceipt]) {
        entries = zip(ticketIds, tokenIds).map { Entry(ticketId: $0, tokenId: $1, receipt: receipts[$0]) }
        let pending = entries.filter { $0.receipt == nil }
        disposition =
            pending.isEmpty || attempts >= Self.maxAttempts
            ? .delete(expired: pending.count)
            : .keep(ticketIds: pending.map(\.ticketId), tokenIds: pending.map(\.tokenId))
    }
}
