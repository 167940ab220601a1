import Contracts
import HTTPClient
import Runtime

/// The places cascade (docs/COMPATIBILITY.md#places): Google Places when the server has a key, then Overpass, then
/// Photon. Each step gets its own timeout, cut to what is left of the caller's deadline.
public struct PlacesCascade: Sendable {
    /// What the cascade found.
    public enum Outcome: Sendable, Equatable {
        /// A source answered with places.
        case places([Place], source: PlacesSource)
        /// Some source answered, but nobody had a place here (not an error; not cached).
        case empty(failures: [String])
        /// No source answered: the reasons, as `"<source>: <failure>"`.
        case failed([String])
    }

    public let configuration: PlacesConfiguration
    /// Time kept back from the deadline for the rest of the request (join, reply).
    public var reserve: Duration = .milliseconds(300)
    private let google: GooglePlaces
    private let overpass: Overpass
    private let photon: Photon

    public init(configuration: PlacesConfiguration, http: HTTPClient) {
        self.configuration = configuration
        let client = PlacesHTTP(http: http)
        google = GooglePlaces(configuration: configuration, http: client)
        overpass = Overpass(configuration: configuration, http: client)
        photon = Photon(configuration: configuration, http: client)
    }

    /// The sources tried, in order: Google only with a key.
    public var sources: [PlacesSource] {
        (configuration.googleAPIKey == nil ? [] : [.google]) + [.overpass, .photon]
    }

    public func fetch(center: LatLng, radius: Int, deadline: ContinuousClock.Instant) async -> Outcome {
        var failures: [String] = []
        var anyAnswered = false
        for source in sources {
            let configured: Duration
            switch source {
            case .google: configured = configuration.googleTimeout
            case .overpass: configured = configuration.overpassTimeout
            case .photon: configured = configuration.photonTimeout
            }
            let left = deadline - ContinuousClock.now - reserve
            guard left >= .milliseconds(100) else {
                failures.append("\(source.rawValue): \(PlacesFailure.noTimeLeft)")
                continue
            }
            let timeout = min(configured, left)
            let result: Result<[Place], PlacesFailure>
            switch source {
            case .google: result = await google.nearby(center: center, radius: radius, timeout: timeout)
            case .overpass: result = await overpass.nearby(center: center, radius: radius, timeout: timeout)
            case .photon: result = await photon.nearby(center: center, radius: radius, timeout: timeout)
            }
            switch result {
            case .success(let places) where !places.isEmpty:
                return .places(places, source: source)
            case .success:
                anyAnswered = true
                failures.append("\(source.rawValue): no results")
            case .failure(let failure):
                failures.append("\(source.rawValue): \(failure)")
            }
        }
        return anyAnswered ? .empty(failures: failures) : .failed(failures)
    }
}
