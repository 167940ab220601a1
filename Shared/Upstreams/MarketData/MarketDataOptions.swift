import Contracts

/// Options through Massive (the rules of `MarketDataPages`): chain snapshots, reference contracts, one contract,
/// one contract's snapshot and its bars.
extension MarketDataPages {
    /// One page of the underlying's chain.
    public func optionsChain(_ q: OptionsChainCommand) async -> Result<OptionsChainResponse, MarketDataFailure> {
        await viaMassive {
            let params: [(String, String?)] = [
                ("expiration_date", q.expirationDate), ("contract_type", q.contractType),
                ("strike_price", q.strikePrice.map(MassiveEvents.format)), ("limit", String(q.limit)),
                ("cursor", q.cursor),
            ]
            let path = "/v3/snapshot/options/\(MarketSymbol.percentEncoded(q.underlying))"
            return await massive.get(path, params, kind: "option_chain").map { body in
                let page = MassivePages.page(body) { MassiveOptions.snapshot($0, underlying: q.underlying) }
                return OptionsChainResponse(
                    underlyingTicker: q.underlying, contracts: page.rows, nextCursor: page.nextCursor,
                    requestId: page.requestId, sources: [Self.source()])
            }
        }
    }

    /// One page of reference contracts.
    public func optionContracts(_ q: OptionContractsCommand) async -> Result<OptionContractsResponse, MarketDataFailure>
    {
        await viaMassive {
            let params: [(String, String?)] = [
                ("underlying_ticker", q.underlying), ("ticker", q.ticker), ("contract_type", q.contractType),
                ("expiration_date", q.expirationDate), ("as_of", q.asOf),
                ("strike_price", q.strikePrice.map(MassiveEvents.format)), ("expired", q.expired.map { String($0) }),
                ("limit", String(q.limit)), ("cursor", q.cursor),
            ]
            return await massive.get("/v3/reference/options/contracts", params, kind: "option_contracts").map { body in
                let page = MassivePages.page(body, MassiveOptions.contract)
                return OptionContractsResponse(
                    contracts: page.rows, nextCursor: page.nextCursor, requestId: page.requestId,
                    sources: [Self.source()])
            }
        }
    }

    /// One contract; nil when Massive has none.
    public func optionContract(_ q: OptionContractCommand) async -> Result<OptionContractResponse?, MarketDataFailure> {
        await viaMassive {
            let path = "/v3/reference/options/contracts/\(MarketSymbol.percentEncoded(q.ticker))"
            return await massive.get(path, [], kind: "option_contract").map { body in
                MassivePages.results(body).lazy.compactMap(MassiveOptions.contract).first.map {
                    OptionContractResponse(contract: $0, sources: [Self.source()])
                }
            }
        }
    }

    /// One contract's snapshot; nil when Massive has none.
    public func optionSummary(_ q: OptionSummaryCommand) async -> Result<OptionSummaryResponse?, MarketDataFailure> {
        await viaMassive {
            let path =
                "/v3/snapshot/options/\(MarketSymbol.percentEncoded(q.underlying))/"
                + MarketSymbol.percentEncoded(q.contract)
            return await massive.get(path, [], kind: "option_summary").map { body in
                MassivePages.results(body).lazy.compactMap { MassiveOptions.snapshot($0, underlying: q.underlying) }
                    .first.map {
                        OptionSummaryResponse(
                            underlyingTicker: q.underlying, contractTicker: q.contract, summary: $0,
                            sources: [Self.source()])
                    }
            }
        }
    }

    /// One page of a contract's bars.
    public func optionBars(_ q: OptionBarsCommand) async -> Result<OptionBarsResponse, MarketDataFailure> {
        let bars = AggregatesCommand(
            symbol: q.ticker, timespan: q.timespan, multiplier: q.multiplier, from: q.from, to: q.to,
            adjusted: q.adjusted, cursor: q.cursor)
        return await aggregates(bars).map {
            OptionBarsResponse(
                contractTicker: q.ticker, from: q.from, to: q.to, multiplier: q.multiplier, timespan: q.timespan,
                points: $0.points, nextCursor: $0.nextCursor, requestId: $0.requestId, sources: $0.sources)
        }
    }
}
