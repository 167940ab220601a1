import Contracts
import Finance
import Foundation
import Resolver
import Runtime
import Synchronization

/// The brand → ticker join of a page of places (docs/COMPATIBILITY.md#brand-join), through the shared resolver and its
/// cache: seed matches first (no I/O), then one batched read of the brand cache for the rest, then the misses resolved
/// concurrently with `resolveTicker` (at most `concurrency` at once) until the deadline. A resolution still running
/// at the deadline keeps going and lands in the shared cache for the next request.
public struct BrandJoin: Sendable {
    let resolver: TickerResolver
    let cache: BrandTickerCache
    let concurrency: Int
    /// Seed answers per name (the seed is fixed for the life of the process; a miss costs a full scan of it).
    private let seedAnswers = TTLCache<String, SeedAnswer>(ttl: .seconds(24 * 3600), capacity: 50_000)

    private enum SeedAnswer: Sendable {
        case hit(Brand)
        case miss
    }

    public init(resolver: TickerResolver, cache: BrandTickerCache, concurrency: Int = 8) {
        self.resolver = resolver
        self.cache = cache
        self.concurrency = max(1, concurrency)
    }

    /// `TickerResolver.fromSeed`, memoized per name; the manual source is dated now.
    func seed(_ name: String) -> BrandResolution? {
        let brand: Brand?
        switch seedAnswers[name] {
        case .hit(let known): brand = known
        case .miss: brand = nil
        case nil:
            let resolution = resolver.fromSeed(name)
            seedAnswers.set(name, resolution.map { .hit($0.brand) } ?? .miss)
            return resolution
        }
        return brand.map {
            BrandResolution(
                brand: $0, sources: [Source(provider: .manual, fetchedAt: Timestamp.iso8601(Date()), confidence: .high)]
            )
        }
    }

    /// Resolutions by brand key (`TickerResolver.key`) for the names that resolved in time.
    public func resolve(_ names: [String], deadline: ContinuousClock.Instant) async -> [String: BrandResolution] {
        var out: [String: BrandResolution] = [:]
        var pending: [String: String] = [:]  // key → a name to resolve it with
        for name in names {
            let key = TickerResolver.key(name)
            guard !key.isEmpty, out[key] == nil, pending[key] == nil else { continue }
            if let seeded = seed(name) {
                out[key] = seeded
            } else {
                pending[key] = name
            }
        }
        guard !pending.isEmpty else { return out }
        let cached = await cache.get(Array(pending.keys))
        for (key, hit) in cached {
            out[key] = hit
            pending[key] = nil
        }
        guard !pending.isEmpty else { return out }

        let left = deadline - ContinuousClock.now
        guard left > .milliseconds(50) else { return out }
        let resolver = self.resolver
        let concurrency = self.concurrency
        let work = pending.sorted { $0.key < $1.key }
        let resolved = Resolved()
        // Whatever resolved by the deadline is used; the rest keeps going into the shared cache.
        _ = await withTimeLimit(left) {
            await withTaskGroup(of: (String, BrandResolution).self) { group in
                var iterator = work.makeIterator()
                for _ in 0..<concurrency {
                    guard let (key, name) = iterator.next() else { break }
                    group.addTask { (key, await resolver.resolve(name, seedChecked: true)) }
                }
                for await (key, resolution) in group {
                    resolved.add(key, resolution)
                    if let (key, name) = iterator.next() {
                        group.addTask { (key, await resolver.resolve(name, seedChecked: true)) }
                    }
                }
            }
        }
        for (key, resolution) in resolved.all { out[key] = resolution }
        return out
    }
}

/// Resolutions gathered so far, readable while the resolving continues.
private final class Resolved: Sendable {
    private let items = Mutex<[String: BrandResolution]>([:])
    func add(_ key: String, _ value: BrandResolution) { items.withLock { $0[key] = value } }
    var all: [String: BrandResolution] { items.withLock { $0 } }
}
