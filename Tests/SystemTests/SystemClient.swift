import Contracts
import Foundation
import HTTPClient
import TestSupport

/// HTTP calls the system tests make against a gateway.
enum SystemClient {
    static func identify(
        _ gateway: GatewayProcess, hint: String?, device: String? = "test-device", headers: [(String, String)] = [],
        image: [UInt8] = MultipartBody.fakeJPEG
    ) async throws -> HTTPClientResponse {
        let form = MultipartBody.identify(hint: hint, image: image)
        var all = [("Content-Type", form.contentType)] + headers
        if let device { all.append(("X-Device-Id", device)) }
        return try await testHTTPClient.execute(
            HTTPClientRequest(
                method: "POST", url: gateway.baseURL + "/v1/identify", headers: all, body: form.finished(),
                timeout: .seconds(40)))
    }

    static func send(
        _ gateway: GatewayProcess, _ method: String, _ path: String, json: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> HTTPClientResponse {
        var all = headers
        if json != nil { all.append(("Content-Type", "application/json")) }
        return try await testHTTPClient.execute(
            HTTPClientRequest(
                method: method, url: gateway.baseURL + path, headers: all, body: json.map { Array($0.utf8) },
                timeout: .seconds(20)))
    }

    static func errorMessage(_ response: HTTPClientResponse) -> String? {
        try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body)).error
    }

    static func json(_ response: HTTPClientResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }
}

extension SystemClient {
    static func jsonObject(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    static func text(_ response: HTTPClientResponse) -> String { String(decoding: response.body, as: UTF8.self) }
}

extension SystemClient {
    /// Waits until Identify answers through `gateway` (a freshly started replica first waits for its consumer group
    /// to settle), so a test's first real command is not spent on that.
    static func waitForIdentify(_ gateway: GatewayProcess, auth: [(String, String)]) async throws {
        let deadline = ContinuousClock.now + .seconds(40)
        while ContinuousClock.now < deadline {
            if try await send(gateway, "GET", "/v1/finds?limit=1", headers: auth).status == 200 { return }
        }
        throw Failure("Identify did not answer through the gateway within 40 s")
    }
}

extension SystemClient {
    /// Signs `email` (default: a fresh address) in with the dev code the gateway returns; `headers` go on both calls.
    static func signIn(_ gateway: GatewayProcess, email: String? = nil, headers: [(String, String)] = [])
        async throws -> (token: String, userId: String)
    {
        let email = email ?? "user-\(UInt32.random(in: 0...UInt32.max))@example.com"
        let issued = try await send(
            gateway, "POST", "/v1/auth/session", json: "{\"email\":\"\(email)\"}", headers: headers)
        guard let code = json(issued)["devCode"] as? String else { throw Failure("no devCode (\(issued.status))") }
        let verified = try await send(
            gateway, "POST", "/v1/auth/session/verify", json: "{\"email\":\"\(email)\",\"code\":\"\(code)\"}",
            headers: headers)
        guard let session = json(verified)["session"] as? [String: Any], let token = session["token"] as? String,
            let userId = session["userId"] as? String
        else { throw Failure("no session (\(verified.status))") }
        return (token, userId)
    }
}
