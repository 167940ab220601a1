import Contracts
import MarketData
import Messaging

/// Options on the market-data surface, cached as `MarketSurfacePages` caches: chain and contract snapshots 15 s
/// (quotes and Greeks move), reference contracts 1 h, bars as aggregates.
extension MarketSurfacePages {
    static let snapshotFreshness: Duration = .seconds(15)
    static let referenceFreshness: Duration = .seconds(60 * 60)

    public func optionsChain(_ command: OptionsChainCommand) async -> Reply {
        await answer(OptionsChainCommand.name, command, ttl: Self.snapshotFreshness) {
            Self.reply(await pages.optionsChain(command), errors: Self.optionErrors)
        }
    }

    public func optionContracts(_ command: OptionContractsCommand) async -> Reply {
        await answer(OptionContractsCommand.name, command, ttl: Self.referenceFreshness) {
            Self.reply(await pages.optionContracts(command), errors: Self.optionErrors)
        }
    }

    /// No such contract → `502 option contract unavailable`, as the original.
    public func optionContract(_ command: OptionContractCommand) async -> Reply {
        await answer(OptionContractCommand.name, command, ttl: Self.referenceFreshness) {
            Self.reply(
                await pages.optionContract(command).flatMap { $0.map(Result.success) ?? .failure(.noResult) }
            ) { failure in
                failure == .noResult ? (502, "option contract unavailable") : Self.optionErrors(failure)
            }
        }
    }

    /// No snapshot → `404 option summary unavailable`.
    public func optionSummary(_ command: OptionSummaryCommand) async -> Reply {
        await answer(OptionSummaryCommand.name, command, ttl: Self.snapshotFreshness) {
            Self.reply(
                await pages.optionSummary(command).flatMap { $0.map(Result.success) ?? .failure(.noResult) }
            ) { failure in
                failure == .noResult ? (404, "option summary unavailable") : Self.optionErrors(failure)
            }
        }
    }

    public func optionBars(_ command: OptionBarsCommand) async -> Reply {
        let ttl = ["minute", "hour"].contains(command.timespan) ? Freshness.intradayBars : Freshness.bars
        return await answer(OptionBarsCommand.name, command, ttl: ttl) {
            Self.reply(await pages.optionBars(command), errors: Self.optionErrors)
        }
    }

    /// The options routes' shared mapping.
    static func optionErrors(_ failure: MarketDataFailure) -> (Int, String) {
        switch failure.status {
        case 429: (429, "market data rate limited")
        case 503: (503, "market data provider not configured")
        case 501: (501, "options data unsupported")
        default: (502, "options data unavailable")
        }
    }
}
