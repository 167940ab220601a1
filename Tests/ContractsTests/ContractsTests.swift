import Contracts
import Foundation
import Testing

struct ContractsTests {
    func json<T: Encodable>(_ value: T) throws -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try JSONSerialization.jsonObject(with: encoder.encode(value)) as? [String: Any] ?? [:]
    }

    @Test func optionalFieldsAreOmittedNotNull() throws {
        let investable = Investable(
            brand: Brand(name: "Starbucks", isPublic: true, ticker: Ticker(symbol: "SBUX")), confidence: .high,
            sources: [Source(provider: .manual, fetchedAt: "2026-01-01T00:00:00.000Z", confidence: .high)])
        let object = try json(investable)
        #expect(object["quote"] == nil)
        #expect(object["verdict"] == nil)
        #expect((object["comparables"] as? [Any])?.isEmpty == true)
        #expect((object["etfs"] as? [Any])?.isEmpty == true)
        let brand = object["brand"] as? [String: Any]
        #expect(brand?["parent"] == nil)
    }

    @Test func verdictUsesSnakeCase() throws {
        let object = try json(InvestableVerdict(exposure: .direct, probability: 0.8, worthALook: 0.7))
        #expect(object["worth_a_look"] as? Double == 0.7)
        #expect(object["watchlisted"] == nil)
    }

    @Test func cloudEventShape() throws {
        let event = CloudEvent(
            id: "e1", source: "/mapvest/identify", type: IdentifyCompletedEvent.type, time: "2026-01-01T00:00:00.000Z",
            schemaVersion: 1, subject: nil,
            data: IdentifyCompletedEvent(
                path: "hint", modelUsed: "hint:seed", latencyMs: 3, detections: 1, investables: 1,
                publicInvestables: 1, signedIn: false))
        let object = try json(event)
        #expect(object["specversion"] as? String == "1.0")
        #expect(object["type"] as? String == "mapvest.identify.completed")
        #expect(object["datacontenttype"] as? String == "application/json")
        #expect(object["dataschema"] as? String == "mapvest.identify.completed/1")
        #expect((object["data"] as? [String: Any])?["path"] as? String == "hint")
    }

    @Test func pushTargetFlattensItsFields() throws {
        let target = PushTarget(type: "company", fields: ["ticker": .string("MCD")])
        let data = try JSONEncoder().encode(target)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["type"] as? String == "company")
        #expect(object?["ticker"] as? String == "MCD")
        #expect(try JSONDecoder().decode(PushTarget.self, from: data) == target)
    }

    @Test func topicNamesAreVersioned() {
        #expect(ServiceName.identify.commandTopic == "mapvest.identify.commands.v1")
        #expect(ServiceName.push.commandTopic == "mapvest.push.commands.v1")
        #expect(Topics.pushRequests == "mapvest.push.requests.v1")
        #expect(Topics.replies(gatewayInstance: "g1") == "mapvest.gateway.replies.g1.v1")
        #expect(Topics.deadLetter == "mapvest.dlq.v1")
    }

    @Test func latLngValidation() {
        #expect(LatLng.validated(lat: 40.7, lng: -74) != nil)
        #expect(LatLng.validated(lat: 91, lng: 0) == nil)
        #expect(LatLng.validated(lat: .nan, lng: 0) == nil)
        #expect(LatLng.validated(lat: nil, lng: 0) == nil)
    }
}

/// Commands may come from outside producers: decoding brings their numbers back into range or refuses them.
struct CommandNumbersTests {
    @Test func nearbyCommandClampsWhatTheGatewayWouldHave() throws {
        let json = #"{"lat":10.5,"lng":10.5,"radius":1e308,"limit":9000000000000000000,"zoom":1e300}"#
        let command = try JSONDecoder().decode(NearbyCommand.self, from: Data(json.utf8))
        #expect(command.radius == 50_000 && command.limit == 100 && command.zoom == 30)
        let negative = #"{"lat":10.5,"lng":10.5,"radius":-5,"limit":-9000000000000000000,"zoom":-1e300}"#
        let low = try JSONDecoder().decode(NearbyCommand.self, from: Data(negative.utf8))
        #expect(low.radius == 1 && low.limit == 1 && low.zoom == 0)
        let farAway = #"{"lat":1e300,"lng":10.5,"radius":500,"limit":25}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(NearbyCommand.self, from: Data(farAway.utf8)) }
        let roundTrip = NearbyCommand(lat: 1, lng: 2, radius: 800, limit: 12, zoom: 14, userId: "u")
        #expect(try JSONDecoder().decode(NearbyCommand.self, from: JSONEncoder().encode(roundTrip)) == roundTrip)
    }

    @Test func listLimitsAreClamped() throws {
        let finds = try JSONDecoder().decode(
            ListFindsCommand.self, from: Data(#"{"userId":"u","limit":-9000000000000000000}"#.utf8))
        #expect(finds.limit == 1)
        let news = try JSONDecoder().decode(
            NewsCommand.self, from: Data(#"{"ticker":"NKE","limit":9000000000000000000}"#.utf8))
        #expect(news.limit == 25 && news.materiality == nil)
    }
}
