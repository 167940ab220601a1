/// The per-physical-token advisory keys (docs/COMPATIBILITY.md#push-locks): `hashtextextended(<expo_token>, 0)`. Every
/// writer takes them BEFORE any row lock, several at once in ascending byte order of the token (deduplicated), so two
/// writers never wait on each other in opposite orders. This is the order; the adapters' statements take the locks in
/// it.
package enum TokenLocks {
    /// Distinct tokens in ascending byte (C collation) order: the one order every writer uses.
    package static func sorted<S: Sequence>(_ tokens: S) -> [String] where S.Element == String {
        Set(tokens).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
