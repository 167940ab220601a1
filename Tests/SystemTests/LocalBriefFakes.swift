import Contracts
import Foundation
import HTTPServer
import Synchronization
import TestSupport
import UpstreamFakes

/// Loopback upstreams for the Local Economy Brief tests: Nominatim, Overpass (a Starbucks and a local shop at the
/// asked point), Photon (down), OpenRouter answering `{paragraphs}` (500 while `modelFails`) and Exa's `/search`
/// (three results per query, after `exaDelay`; used only when a test sets `EXA_API_KEY`).
enum LocalBriefFakes {
    final class Knobs: Sendable {
        let modelFails = Mutex(false)
        let exaDelay = Mutex(Duration.zero)
        init() {}
    }

    struct Upstreams {
        let nominatim: FakeUpstream
        let overpass: FakeUpstream
        let photon: FakeUpstream
        let openRouter: FakeUpstream
        let exa: FakeUpstream
        let env: [String: String]
    }

    static let paragraphs = [
        "**Mission Dolores** mixes cafés and chains such as $SBUX with independent retail.",
        "Employment figures were not in the sources.",
        "The city is reviewing permits. Tailwinds: foot traffic. Headwinds: rents. Opportunities: food. Challenges: parking.",
        "A busy corner worth watching.",
    ]

    static func upstreams(_ knobs: Knobs) throws -> Upstreams {
        let nominatim = try FakeUpstream { _ in
            .json(
                200,
                raw: Array(
                    #"{"address":{"suburb":"Mission Dolores","city_district":"Ignored","town":"San Francisco","county":"SF County","state":"California","postcode":"94110"}}"#
                        .utf8))
        }
        let overpass = try FakeUpstream { _ in
            .json(
                200,
                raw: Array(
                    #"{"elements":[{"type":"node","id":201,"lat":37.76,"lon":-122.42,"tags":{"name":"Starbucks","brand":"Starbucks","amenity":"cafe"}},{"type":"node","id":202,"lat":37.7601,"lon":-122.42,"tags":{"name":"Corner Books","shop":"books"}}]}"#
                        .utf8))
        }
        let photon = try FakeUpstream { _ in .error(503, "down") }
        let openRouter = try FakeUpstream { _ in
            if knobs.modelFails.withLock({ $0 }) { return .error(500, "upstream down") }
            let content = String(
                decoding: (try? JSONSerialization.data(withJSONObject: ["paragraphs": paragraphs])) ?? Data(),
                as: UTF8.self)
            let body = try? JSONSerialization.data(withJSONObject: [
                "choices": [["message": ["role": "assistant", "content": content]]],
                "usage": ["prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20],
            ])
            return .json(200, raw: Array(body ?? Data()))
        }
        let exa = try FakeUpstream { request in
            let delay = knobs.exaDelay.withLock { $0 }
            if delay > .zero { try? await Task.sleep(for: delay) }
            let query =
                (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["query"] as? String
                ?? ""
            let results = (1...3).map { i in
                [
                    "title": "\(query) — report \(i)", "url": "https://news.example/\(i)/\(query.count)",
                    "highlights": ["Finding \(i) about \(query)."], "publishedDate": "2026-11-30T00:00:00.000Z",
                ]
            }
            return .json(200, raw: Array((try? JSONSerialization.data(withJSONObject: ["results": results])) ?? Data()))
        }
        let env = [
            "OPENROUTER_API_KEY": "test-openrouter", "OPENROUTER_BASE_URL": openRouter.baseURL, "EXA_API_KEY": "",
            "EXA_BASE_URL": exa.baseURL,
            "JEV_API_KEY": "", "NOMINATIM_BASE_URL": nominatim.baseURL, "GOOGLE_MAPS_API_KEY": "",
            "OVERPASS_URLS": overpass.baseURL + "/api/interpreter", "PHOTON_BASE_URL": photon.baseURL,
        ]
        return Upstreams(
            nominatim: nominatim, overpass: overpass, photon: photon, openRouter: openRouter, exa: exa, env: env)
    }
}
