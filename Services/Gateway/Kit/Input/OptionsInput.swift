import Contracts
import Foundation

/// The options routes' query rules (docs/COMPATIBILITY.md#market-data-surface). Pure.
enum OptionsInput {
    typealias Invalid = MarketDataInput.Invalid
    static let invalid = Invalid("invalid options query")

    /// `GET /v1/options/chain`.
    static func chain(_ query: [String: String]) -> Result<OptionsChainCommand, Invalid> {
        guard let raw = MarketDataInput.present(query["underlying"]) ?? MarketDataInput.present(query["ticker"]) else {
            return .failure("underlying required")
        }
        let underlying = raw.uppercased()
        guard MarketDataInput.marketTicker(underlying) else { return .failure("underlying must be a valid ticker") }
        var command = OptionsChainCommand(underlying: underlying)
        do throws(Invalid) {
            command.strikePrice = try strike(query["strike_price"])
            command.expirationDate = try date(query["expiration_date"])
            command.contractType = try contractType(query["contract_type"])
            command.limit = try limit(query["limit"], 1...250) ?? 250
            command.cursor = try cursor(query["cursor"])
        } catch {
            return .failure(error)
        }
        return .success(command)
    }

    /// `GET /v1/options/contracts`.
    static func contracts(_ query: [String: String]) -> Result<OptionContractsCommand, Invalid> {
        var command = OptionContractsCommand()
        do throws(Invalid) {
            command.strikePrice = try strike(query["strike_price"])
            // Present means checked: an empty value is not a missing one.
            if let u = query["underlying"].map({ MarketDataInput.trimmed($0).uppercased() }) {
                guard MarketDataInput.marketTicker(u) else { throw invalid }
                command.underlying = u
            }
            if let t = query["ticker"].map({ MarketDataInput.trimmed($0).uppercased() }) {
                guard optionTicker(t) else { throw invalid }
                command.ticker = t
            }
            command.expirationDate = try date(query["expiration_date"])
            command.asOf = try date(query["as_of"])
            command.contractType = try contractType(query["contract_type"])
            if let e = query["expired"] {
                guard e == "true" || e == "false" else { throw invalid }
                command.expired = e == "true"
            }
            command.limit = try limit(query["limit"], 1...1000) ?? 100
            command.cursor = try cursor(query["cursor"])
        } catch {
            return .failure(error)
        }
        return .success(command)
    }

    /// `GET /v1/options/contracts/{ticker}`.
    static func contract(_ raw: String?) -> Result<OptionContractCommand, Invalid> {
        let ticker = MarketDataInput.trimmed(raw).uppercased()
        guard optionTicker(ticker) else { return .failure("contract ticker must be valid") }
        return .success(OptionContractCommand(ticker: ticker))
    }

    /// `GET /v1/options/summary`.
    static func summary(_ query: [String: String]) -> Result<OptionSummaryCommand, Invalid> {
        let underlying = MarketDataInput.trimmed(query["underlying"]).uppercased()
        let contract = MarketDataInput.trimmed(query["contract"]).uppercased()
        guard MarketDataInput.marketTicker(underlying), optionTicker(contract) else {
            return .failure("underlying and contract required")
        }
        return .success(OptionSummaryCommand(underlying: underlying, contract: contract))
    }

    /// `GET /v1/options/bars`.
    static func bars(_ query: [String: String]) -> Result<OptionBarsCommand, Invalid> {
        let shape = Invalid("invalid option bars query")
        let ticker = MarketDataInput.trimmed(query["ticker"]).uppercased()
        guard optionTicker(ticker), let rawFrom = query["from"], let rawTo = query["to"],
            isDayShape(rawFrom), isDayShape(rawTo)
        else { return .failure(shape) }
        var multiplier = 1
        if let raw = query["multiplier"] {
            guard let n = MarketDataInput.wholeNumber(raw), (1...1000).contains(n) else { return .failure(shape) }
            multiplier = n
        }
        let timespan = query["timespan"] ?? "day"
        guard MarketDataInput.timespans.contains(timespan) else { return .failure(shape) }
        var adjusted = true
        if let raw = query["adjusted"] {
            guard raw == "true" || raw == "false" else { return .failure(shape) }
            adjusted = raw == "true"
        }
        var cursorValue: String?
        if let raw = query["cursor"] {
            guard let valid = MarketDataInput.cursor(raw) else { return .failure(shape) }
            cursorValue = valid
        }
        guard let from = MarketDate.parse(rawFrom), let to = MarketDate.parse(rawTo) else {
            return .failure("invalid option bars date")
        }
        guard from <= to else { return .failure("from must be on or before to") }
        return .success(
            OptionBarsCommand(
                ticker: ticker, from: from.text, to: to.text, multiplier: multiplier, timespan: timespan,
                adjusted: adjusted, cursor: cursorValue))
    }

    /// `^O:[A-Z0-9._-]{1,48}$`.
    static func optionTicker(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        guard (3...50).contains(bytes.count), bytes[0] == 79, bytes[1] == 58 else { return false }
        return bytes.dropFirst(2).allSatisfy {
            (65...90).contains($0) || (48...57).contains($0) || [46, 95, 45].contains($0)
        }
    }

    static func isDayShape(_ s: String) -> Bool {
        let b = Array(s.utf8)
        return b.count == 10 && b[4] == 45 && b[7] == 45
            && b.enumerated().allSatisfy { [4, 7].contains($0.offset) || (48...57).contains($0.element) }
    }

    /// A number ≥ 0, else `strike_price must be a number`.
    static func strike(_ raw: String?) throws(Invalid) -> Double? {
        guard let raw = MarketDataInput.present(raw) else { return nil }
        guard let n = Double(raw), n.isFinite, n >= 0 else { throw "strike_price must be a number" }
        return n
    }

    static func date(_ raw: String?) throws(Invalid) -> String? {
        guard let raw else { return nil }
        guard let day = MarketDate.parse(raw) else { throw invalid }
        return day.text
    }

    static func contractType(_ raw: String?) throws(Invalid) -> String? {
        guard let raw else { return nil }
        guard raw == "call" || raw == "put" else { throw invalid }
        return raw
    }

    static func limit(_ raw: String?, _ range: ClosedRange<Int>) throws(Invalid) -> Int? {
        guard let raw else { return nil }
        guard let n = MarketDataInput.wholeNumber(raw), range.contains(n) else { throw invalid }
        return n
    }

    static func cursor(_ raw: String?) throws(Invalid) -> String? {
        guard let raw else { return nil }
        guard let valid = MarketDataInput.cursor(raw) else { throw invalid }
        return valid
    }
}
