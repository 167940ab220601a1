import Contracts

/// Massive's option contracts and snapshots read into `OptionContract` / `OptionSnapshot`. Pure.
enum MassiveOptions {
    typealias Object = [String: JSONValue]

    /// A contract from `{ticker, underlying_ticker, contract_type, expiration_date, strike_price, exercise_style,
    /// shares_per_contract, primary_exchange, cfi}`; nil without a ticker. Enumerations outside their values are absent.
    static func contract(_ o: Object) -> OptionContract? {
        guard let ticker = MassivePages.string(o["ticker"]) else { return nil }
        return OptionContract(
            ticker: ticker, underlyingTicker: MassivePages.string(o["underlying_ticker"]),
            contractType: MassivePages.string(o["contract_type"]).flatMap {
                ["call", "put", "other"].contains($0) ? $0 : nil
            },
            expirationDate: MassivePages.string(o["expiration_date"]),
            strikePrice: MassivePages.number(o["strike_price"]),
            exerciseStyle: MassivePages.string(o["exercise_style"]).flatMap {
                ["american", "bermudan", "european"].contains($0) ? $0 : nil
            },
            sharesPerContract: MassivePages.number(o["shares_per_contract"]),
            primaryExchange: MassivePages.string(o["primary_exchange"]), cfi: MassivePages.string(o["cfi"]))
    }

    /// A snapshot: the contract from `details` (else the row itself), the underlying falling back to `underlying`;
    /// `last_quote` / `last_trade` timestamps (ns, µs, ms or s) in seconds.
    static func snapshot(_ o: Object, underlying: String?) -> OptionSnapshot? {
        let details: Object = if case .object(let d)? = o["details"] { d } else { o }
        guard let c = contract(details) else { return nil }
        func object(_ key: String) -> Object? { if case .object(let v)? = o[key] { v } else { nil } }
        let n = MassivePages.number
        return OptionSnapshot(
            ticker: c.ticker, underlyingTicker: c.underlyingTicker ?? underlying, contractType: c.contractType,
            expirationDate: c.expirationDate, strikePrice: c.strikePrice, exerciseStyle: c.exerciseStyle,
            sharesPerContract: c.sharesPerContract, primaryExchange: c.primaryExchange, cfi: c.cfi,
            breakEvenPrice: n(o["break_even_price"]), impliedVolatility: n(o["implied_volatility"]),
            openInterest: n(o["open_interest"]),
            greeks: object("greeks").map {
                .init(delta: n($0["delta"]), gamma: n($0["gamma"]), theta: n($0["theta"]), vega: n($0["vega"]))
            },
            quote: object("last_quote").map {
                .init(
                    bid: n($0["bid"]), ask: n($0["ask"]), bidSize: n($0["bid_size"]), askSize: n($0["ask_size"]),
                    ts: seconds(n($0["last_updated"])))
            },
            trade: object("last_trade").map {
                .init(price: n($0["price"]), size: n($0["size"]), ts: seconds(n($0["sip_timestamp"])))
            },
            day: object("day").map {
                .init(
                    open: n($0["open"]), high: n($0["high"]), low: n($0["low"]), close: n($0["close"]),
                    volume: n($0["volume"]))
            })
    }

    /// A positive timestamp in unix seconds, whatever its unit (≥ 1e17 ns, ≥ 1e14 µs, ≥ 1e11 ms).
    static func seconds(_ value: Double?) -> Int64? {
        guard let value, value > 0, value < 1e20 else { return nil }
        let s =
            value >= 1e17 ? value / 1e9 : value >= 1e14 ? value / 1e6 : value >= 1e11 ? value / 1e3 : value
        return Int64(s.rounded(.down))
    }
}
