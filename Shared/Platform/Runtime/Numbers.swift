extension Double {
    /// This value truncated toward zero and clamped to `range`, or nil when it is not finite. The range check
    /// comes before the conversion, so — unlike `Int(_:)` on `1e300` — it never traps. Use it for every number
    /// from outside.
    public func clampedInt(_ range: ClosedRange<Int>) -> Int? {
        guard isFinite else { return nil }
        if self <= Double(range.lowerBound) { return range.lowerBound }
        if self >= Double(range.upperBound) { return range.upperBound }
        return Int(rounded(.towardZero))
    }
}
