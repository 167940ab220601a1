import Contracts
import Finance
import Foundation
import Runtime

/// The XP event schedule, a pure function of the instant (no table, no job): Sector Saturday, every Saturday
/// 00:00–24:00 UTC, doubles a find's XP when its seed sector is the week's; the sector walks the 11 GICS names by ISO
/// week number.
public enum XPEvents {
    public static let sectorSaturdayMultiplier = 2
    static let saturday = 6

    /// The event open at `date`, or nil.
    public static func active(at date: Date, sectors: [String] = SectorAliases.canonicalSectors) -> ActiveEvent? {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, !sectors.isEmpty else { return nil }
        let day = (seconds / 86_400).rounded(.down)
        guard weekday(epochDay: day) == saturday else { return nil }
        let start = Date(timeIntervalSince1970: day * 86_400)
        let week = isoWeek(epochDay: day)
        let sector = sectors[((week - 1) % sectors.count + sectors.count) % sectors.count]
        return ActiveEvent(
            key: "sector-saturday:\(ProgressRules.day(start))", title: "Sector Saturday — \(sector)", sector: sector,
            multiplier: sectorSaturdayMultiplier, startsAt: Timestamp.iso8601(start),
            endsAt: Timestamp.iso8601(start + 86_400))
    }

    /// The multiplier a find in `sector` earns under `event`: 1 without an event or outside its sector.
    public static func multiplier(sector: String?, event: ActiveEvent?) -> Int {
        guard let event else { return 1 }
        guard let scope = event.sector else { return max(event.multiplier, 1) }
        return sector == scope ? max(event.multiplier, 1) : 1
    }

    /// The canonical seed sector of a find's effective ticker (ticker, else comparable), or nil outside the seed.
    public static func seedSector(ticker: String?, comparable: String?, seed: BrandSeed = .shared) -> String? {
        RarityClassifier.effectiveTicker(ticker: ticker, comparable: comparable)
            .flatMap { seed.entry(forTicker: $0) }
            .flatMap { SectorAliases.canonical($0.sector) }
    }

    /// 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
    static func weekday(epochDay day: Double) -> Int {
        let days = Int(day)
        return ((days + 4) % 7 + 7) % 7
    }

    /// The ISO-8601 week (1–53) of a UTC day: the week of its Thursday, counted from the Thursday's year.
    static func isoWeek(epochDay day: Double) -> Int {
        let isoWeekday = weekday(epochDay: day) == 0 ? 7 : weekday(epochDay: day)
        let thursday = day + Double(4 - isoWeekday)
        let year = ProgressRules.day(Date(timeIntervalSince1970: thursday * 86_400)).prefix(4)
        guard let january1 = Timestamp.parse("\(year)-01-01T00:00:00Z") else { return 1 }
        let yearStart = (january1.timeIntervalSince1970 / 86_400).rounded(.down)
        return Int(((thursday - yearStart) / 7).rounded(.down)) + 1
    }
}
