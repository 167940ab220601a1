import Contracts
import Exa
import Foundation
import HTTPServer
import Runtime
import TestSupport
import Testing
import UpstreamFakes

private let longText = String(repeating: "x", count: 500)

private let searchBody = """
    {"requestId":"r1","autopromptString":"Converse parent company","resolvedSearchType":"neural","results":[
      {"id":"https://a.example/1","title":"Converse is owned by Nike","url":"https://a.example/1","publishedDate":"2024-05-01T00:00:00.000Z",
       "author":null,"highlights":["Nike (NYSE: NKE) acquired Converse in 2003."],"highlightScores":[0.4]},
      {"id":"https://b.example/2","title":" Second ","url":"https://b.example/2","text":"\(longText)"},
      {"id":"https://c.example/3","title":"Third","url":"https://c.example/3","snippet":"short snippet"},
      {"id":"ftp://d","title":"Not a web URL","url":"ftp://d.example/4","text":"t"},
      {"id":"e","title":"No URL"}
    ]}
    """

private func client(_ fake: FakeUpstream, key: String? = "exa-test-key") -> ExaClient {
    ExaClient(baseURL: fake.baseURL, apiKey: key, http: testHTTPClient, logger: quietLogger())
}

struct ExaClientTests {
    @Test func searchSendsTheContractBodyAndMapsHits() async throws {
        try await withFake({ _ in jsonResponse(200, searchBody) }) { fake in
            let response = await client(fake).search(
                query: "Converse parent company ticker stock symbol", numResults: 8, highlightSentences: 2)
            #expect(response.status == .ok)
            #expect(response.hits.map(\.url) == ["https://a.example/1", "https://b.example/2", "https://c.example/3"])
            #expect(response.hits[0].snippet == "Nike (NYSE: NKE) acquired Converse in 2003.")
            #expect(response.hits[0].publishedDate == "2024-05-01T00:00:00.000Z")
            #expect(response.hits[1].snippet == String(repeating: "x", count: 240))
            #expect(response.hits[1].title == "Second")
            #expect(response.hits[2].snippet == "short snippet")

            let request = try #require(fake.lastRequest)
            #expect(request.method == "POST" && request.path == "/search")
            #expect(request.headers["x-api-key"] == "exa-test-key")
            let body = try parseJSON(request.body)
            #expect(body["query"]?.string == "Converse parent company ticker stock symbol")
            #expect(body["numResults"]?.number == 8)
            #expect(body["useAutoprompt"] == .bool(true))
            #expect(
                body["contents"]
                    == .object(["highlights": .object(["numSentences": .number(2), "highlightsPerUrl": .number(1)])]))
        }
    }

    @Test func contentsFetchesArticleText() async throws {
        let body =
            #"{"results":[{"id":"https://n.example/a","url":"https://n.example/a","title":"Headline","text":"  Full text.  "}]}"#
        try await withFake({ _ in jsonResponse(200, body) }) { fake in
            let response = await client(fake).contents(url: "https://n.example/a")
            #expect(response.status == .ok)
            #expect(response.document == ExaDocument(url: "https://n.example/a", title: "Headline", text: "Full text."))
            let request = try #require(fake.lastRequest)
            #expect(request.path == "/contents")
            let sent = try parseJSON(request.body)
            #expect(sent == .object(["ids": .array([.string("https://n.example/a")]), "text": .bool(true)]))
        }
    }

    @Test func failuresGiveEmptyResults() async throws {
        try await withFake({ _ in jsonResponse(500, #"{"error":"internal"}"#) }) { fake in
            let response = await client(fake).search(query: "q")
            #expect(response == ExaSearchResponse(hits: [], status: .httpError(500)))
        }
        try await withFake({ _ in jsonResponse(200, "]]garbage") }) { fake in
            #expect(await client(fake).search(query: "q").status == .invalidResponse)
            #expect(await client(fake).contents(url: "https://x.example").status == .invalidResponse)
        }
        try await withFake({ _ in
            try? await Task.sleep(for: .milliseconds(1500))
            return jsonResponse(200, searchBody)
        }) { fake in
            let response = await client(fake).search(query: "q", timeout: .milliseconds(200))
            #expect(response == ExaSearchResponse(hits: [], status: .timeout))
        }
    }

    @Test func missingKeyMakesNoRequest() async throws {
        try await withFake({ _ in jsonResponse(200, searchBody) }) { fake in
            let exa = ExaClient.fromEnvironment(
                Environment(["EXA_BASE_URL": fake.baseURL]), http: testHTTPClient, logger: quietLogger())
            #expect(!exa.isConfigured)
            #expect(await exa.search(query: "q") == ExaSearchResponse(hits: [], status: .noAPIKey))
            #expect(
                await exa.contents(url: "https://x.example") == ExaContentsResponse(document: nil, status: .noAPIKey))
            #expect(fake.requestCount == 0)
        }
    }

    @Test func sourceCitesExa() {
        let exa = ExaClient(apiKey: nil, http: testHTTPClient, logger: quietLogger())
        let source = exa.source(for: ExaHit(title: "t", url: "https://a.example/1"), confidence: .high)
        #expect(source.provider == .exa && source.url == "https://a.example/1" && source.confidence == .high)
        #expect(source.fetchedAt.hasSuffix("Z") && source.fetchedAt.count == 24)
    }
}
