import Geo
import Testing

struct GeoTests {
    @Test func knownGeohashes() {
        #expect(Geohash.encode(lat: 57.64911, lng: 10.40744, precision: 11) == "u4pruydqqvj")
        #expect(Geohash.encode(lat: 40.7580, lng: -73.9855) == "dr5ru7")
        #expect(Geohash.encode(lat: 91, lng: 0) == nil)
        #expect(Geohash.encode(lat: .nan, lng: 0) == nil)
    }

    @Test func centreDecodesBackIntoTheCell() throws {
        let centre = try #require(Geohash.center("u4pruydqqvj"))
        #expect(abs(centre.lat - 57.64911) < 1e-5 && abs(centre.lng - 10.40744) < 1e-5)
        let tile = try #require(Geohash.center("dr5ru7"))
        #expect(Geohash.encode(lat: tile.lat, lng: tile.lng) == "dr5ru7")
        #expect(Geohash.center("dr5ra!") == nil && Geohash.center("") == nil)
    }

    @Test func haversine() {
        let d = haversineMetres(lat1: 40.7580, lng1: -73.9855, lat2: 40.7484, lng2: -73.9857)
        #expect(abs(d - 1067) < 15)
    }
}
