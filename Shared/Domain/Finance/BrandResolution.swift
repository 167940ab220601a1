import Contracts

/// A resolved brand with the sources it rests on, as the brand → ticker cache keeps it.
public struct BrandResolution: Codable, Sendable, Equatable {
    public var brand: Brand
    public var sources: [Source]

    public init(brand: Brand, sources: [Source]) {
        self.brand = brand
        self.sources = sources
    }
}
