import Testing

@testable import PushAdapters

/// The adapters' own small rules, without the stack: the claim query's lease column and the dispatcher's batch size.
@Suite struct PushAdapterRuleTests {
    @Test func leasesParseAsPairsAndJunkAsNone() {
        #expect(DeliveryClaims.leases(#"[["a","1"],["b","2"],["a","1"]]"#) == [["a", "1"], ["b", "2"]])
        #expect(DeliveryClaims.leases(nil).isEmpty)
        #expect(DeliveryClaims.leases("{}").isEmpty)
        #expect(DeliveryClaims.leases("[[1,2]]").isEmpty)
    }

    @Test func batchSizeIsClampedToExposLimit() {
        #expect(
            PushDispatcher.Settings(lease: .seconds(90), dispatchEnabled: true, receiptDelay: .zero, batchSize: 0)
                .batchSize == 1)
        #expect(
            PushDispatcher.Settings(lease: .seconds(90), dispatchEnabled: true, receiptDelay: .zero, batchSize: 500)
                .batchSize == 100)
    }
}
