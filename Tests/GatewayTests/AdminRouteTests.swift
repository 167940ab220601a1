import Contracts
import Foundation
import HTTPServer
import Testing

@testable import GatewayKit

/// `/v1/admin/*`: admins only (401, 403), every request logged first (503 when it cannot be), then each route's
/// validation and answer.
@Suite("Gateway routes: admin (in process)")
struct AdminRouteTests {
    static let routes = [
        ("GET", "/v1/admin/metrics"), ("GET", "/v1/admin/cost"), ("GET", "/v1/admin/users"), ("GET", "/v1/admin/log"),
        ("POST", "/v1/admin/users/usr_test/entitlement"),
    ]

    static func object(_ response: HTTPResponse) -> [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))) ?? [:]
    }

    @Test func onlyAdminsGetIn() async throws {
        let gateway = try GatewayUnderTest()
        for (method, path) in Self.routes {
            let anonymous = await gateway.send(method, path)
            #expect(anonymous.status == 401, "\(path)")
            #expect(anonymous.errorMessage == "missing bearer token")
            let user = await gateway.send(method, path, headers: [("Authorization", try gateway.bearer())])
            #expect(user.status == 403, "\(path)")
            #expect(user.errorMessage == "admin scope required")
        }
        #expect(gateway.adminData.log.isEmpty)
    }

    @Test func anAdminRequestIsRefusedWhenItCannotBeLogged() async throws {
        let gateway = try GatewayUnderTest(adminData: FakeAdminData(logFails: true))
        let admin = try gateway.bearer(GatewayUnderTest.admin)
        for (method, path) in Self.routes {
            let response = await gateway.send(
                method, path, headers: [("Authorization", admin), ("Content-Type", "application/json")],
                body: method == "POST" ? #"{"freeForever":true}"# : nil)
            #expect(response.status == 503, "\(path)")
            #expect(response.errorMessage == "admin log unavailable")
        }
    }

    @Test func metricsAndCostTakeAWindowOfUpToTwoDays() async throws {
        let gateway = try GatewayUnderTest()
        let admin = [("Authorization", try gateway.bearer(GatewayUnderTest.admin))]
        for path in ["/v1/admin/metrics", "/v1/admin/cost"] {
            #expect(await gateway.send("GET", path, headers: admin).status == 200)
            #expect(await gateway.send("GET", path, query: "windowSeconds=3600", headers: admin).status == 200)
            for window in ["0", "172801", "abc", "inf"] {
                let refused = await gateway.send("GET", path, query: "windowSeconds=" + window, headers: admin)
                #expect(refused.status == 400, "\(path) \(window)")
                #expect(refused.errorMessage == "windowSeconds must be 1-172800")
            }
        }
        let logged = gateway.adminData.log.first
        #expect(logged?.kind == "admin_action")
        #expect(logged?.actor == GatewayUnderTest.admin.id)
        #expect(logged?.detail == ["route": "GET /v1/admin/metrics"])
    }

    @Test func usersAndLogAreListedWithAClampedLimit() async throws {
        let gateway = try GatewayUnderTest()
        let admin = [("Authorization", try gateway.bearer(GatewayUnderTest.admin))]
        let users = await gateway.send("GET", "/v1/admin/users", query: "limit=9999", headers: admin)
        #expect(users.status == 200)
        guard case .array(let listed)? = Self.object(users)["users"] else {
            Issue.record("no users")
            return
        }
        #expect(listed.count == 1)
        let log = await gateway.send("GET", "/v1/admin/log", query: "limit=abc", headers: admin)
        #expect(log.status == 200)
        guard case .array(let entries)? = Self.object(log)["entries"] else {
            Issue.record("no entries")
            return
        }
        #expect(entries.count == 2)
        #expect(gateway.adminData.listLimits == [500, 100])
    }

    @Test func anEntitlementIsGrantedWithTheExactRefusals() async throws {
        let gateway = try GatewayUnderTest()
        let admin = [
            ("Authorization", try gateway.bearer(GatewayUnderTest.admin)), ("Content-Type", "application/json"),
        ]
        let path = "/v1/admin/users/usr_test/entitlement"
        let granted = await gateway.send("POST", path, headers: admin, body: #"{"freeForever":true,"reason":"vip"}"#)
        #expect(granted.status == 200)
        guard case .object(let user)? = Self.object(granted)["user"] else {
            Issue.record("no user")
            return
        }
        #expect(
            user["entitlement"]
                == .object(["freeForever": .bool(true), "reason": .string("vip"), "plan": .string("none")]))
        #expect(gateway.adminData.log.last?.subject == "usr_test")
        #expect(gateway.adminData.log.last?.detail["target"] == "usr_test")
        let cases: [(String, String, Int, String)] = [
            (path, "{}", 400, #"body must be {"freeForever": boolean, "reason"?: string}"#),
            (path, #"{"freeForever":"yes"}"#, 400, #"body must be {"freeForever": boolean, "reason"?: string}"#),
            (
                path, #"{"freeForever":true,"reason":"\#(String(repeating: "r", count: 201))"}"#, 400,
                "reason must be at most 200 chars"
            ),
            ("/v1/admin/users/usr_gone/entitlement", #"{"freeForever":false}"#, 404, "user not found"),
            (
                "/v1/admin/users/\(String(repeating: "u", count: 65))/entitlement", #"{"freeForever":true}"#, 400,
                "user id required"
            ),
        ]
        for (target, body, status, message) in cases {
            let response = await gateway.send("POST", target, headers: admin, body: body)
            #expect(response.status == status, "\(body)")
            #expect(response.errorMessage == message)
        }
    }
}
