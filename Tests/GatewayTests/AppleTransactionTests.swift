import Crypto
import Foundation
import HTTPServer
import MoneyCore
import Runtime
import Synchronization
import Testing

@testable import GatewayKit

/// A throwaway PKI made with the `openssl` command in a temporary folder: EC P-256 keys, a root, intermediates and
/// leaves, and ES256 signatures in JWS form.
final class TestPKI {
    static let openssl = "/usr/bin/openssl"
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n".write(
            to: folder.appendingPathComponent("ca.ext"), atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    static var available: Bool { FileManager.default.isExecutableFile(atPath: openssl) }

    @discardableResult
    func run(_ arguments: [String], input: [UInt8]? = nil) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.openssl)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input)) }
        try stdin.fileHandleForWriting.close()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failed(arguments: arguments) }
        return Array(bytes)
    }

    struct Failed: Error { let arguments: [String] }

    /// A new P-256 key named `name`.
    func key(_ name: String) throws {
        try run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", name + ".key"])
    }

    /// A self-signed CA certificate `name` (its key made too).
    func root(_ name: String) throws {
        try key(name)
        try run([
            "req", "-x509", "-new", "-key", name + ".key", "-subj", "/CN=\(name)", "-days", "30", "-out", name + ".pem",
        ])
    }

    /// A certificate `name` issued by `issuer`; `days: -1` makes one that expired before it began.
    func issue(_ name: String, by issuer: String, ca: Bool, days: Int = 30) throws {
        try key(name)
        try run(["req", "-new", "-key", name + ".key", "-subj", "/CN=\(name)", "-out", name + ".csr"])
        var arguments = [
            "x509", "-req", "-in", name + ".csr", "-CA", issuer + ".pem", "-CAkey", issuer + ".key", "-CAcreateserial",
            "-days", String(days), "-out", name + ".pem",
        ]
        if ca { arguments += ["-extfile", "ca.ext"] }
        try run(arguments)
    }

    func der(_ name: String) throws -> [UInt8] {
        try run(["x509", "-in", name + ".pem", "-outform", "DER"])
    }

    /// An ES256 JWS over `payload` signed with `signer`'s key, presenting `chain` in `x5c`.
    func jws(payload: String, chain: [String], signer: String, alg: String = "ES256") throws -> String {
        let x5c = try chain.map { "\"" + Data(try der($0)).base64EncodedString() + "\"" }.joined(separator: ",")
        let header = Base64URL.encode(Array(#"{"alg":"\#(alg)","x5c":[\#(x5c)]}"#.utf8))
        let body = Base64URL.encode(Array(payload.utf8))
        let signingInput = header + "." + body
        let signature = try run(["dgst", "-sha256", "-sign", signer + ".key"], input: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(try Self.raw(signature))
    }

    /// DER `ECDSA-Sig-Value` → `r‖s`, 32 bytes each.
    static func raw(_ der: [UInt8]) throws -> [UInt8] {
        var index = 2
        var out: [UInt8] = []
        for _ in 0..<2 {
            guard index + 1 < der.count, der[index] == 0x02 else { throw Failed(arguments: ["signature"]) }
            let length = Int(der[index + 1])
            var value = Array(der[(index + 2)..<(index + 2 + length)])
            while value.count > 32, value.first == 0 { value.removeFirst() }
            out += [UInt8](repeating: 0, count: 32 - value.count) + value
            index += 2 + length
        }
        return out
    }
}

/// StoreKit 2 verification against a chain made in the test, the root pinned by configuration.
@Suite(.serialized) struct AppleTransactionTests {
    static let future = Int64(Date().timeIntervalSince1970 + 86400) * 1000

    static func payload(
        bundle: String = "com.mapvest.app", product: String = "mapvest_pro_monthly", extra: String = ""
    ) -> String {
        #"{"bundleId":"\#(bundle)","productId":"\#(product)","transactionId":"2000000001","originalTransactionId":"2000000000","type":"Auto-Renewable Subscription","environment":"Sandbox","expiresDate":\#(future)\#(extra)}"#
    }

    /// The PKI (root, intermediate, leaf, and the tampered parts) and a verifier pinning its root.
    static func fixture() throws -> (TestPKI, AppleTransactionVerifier)? {
        guard TestPKI.available else {
            print("skipped: \(TestPKI.openssl) is not installed; the StoreKit chain cannot be made")
            return nil
        }
        let pki = try TestPKI()
        try pki.root("root")
        try pki.issue("inter", by: "root", ca: true)
        try pki.issue("leaf", by: "inter", ca: false)
        let fingerprint = Digest.hex(Digest.sha256(try pki.der("root")))
        return (
            pki, AppleTransactionVerifier(Environment(["APPLE_ROOT_CA_SHA256": fingerprint, "MAPVEST_ENV": "dev"]))
        )
    }

    func refused(_ verifier: AppleTransactionVerifier, _ token: String) -> AppleJWSFailure? {
        if case .refused(let failure, _) = verifier.verify(token, now: Int64(Date().timeIntervalSince1970)) {
            return failure
        }
        return nil
    }

    @Test func aTransactionSignedThroughThePinnedChainIsAccepted() throws {
        guard let fixture = try Self.fixture() else { return }
        let (pki, verifier) = fixture
        let token = try pki.jws(payload: Self.payload(), chain: ["leaf", "inter", "root"], signer: "leaf")
        #expect(
            verifier.verify(token, now: Int64(Date().timeIntervalSince1970))
                == .valid(.init(transactionId: "2000000001", originalTransactionId: "2000000000")))
    }

    @Test func eachTamperingIsRefusedWithItsReason() throws {
        guard let fixture = try Self.fixture() else { return }
        let (pki, verifier) = fixture
        let good = Self.payload()
        // An expired leaf.
        try pki.issue("stale", by: "inter", ca: false, days: -1)
        #expect(
            refused(verifier, try pki.jws(payload: good, chain: ["stale", "inter", "root"], signer: "stale"))
                == .expiredCert)
        // A leaf issued by another intermediate than the one presented.
        try pki.issue("other", by: "root", ca: true)
        try pki.issue("stray", by: "other", ca: false)
        #expect(
            refused(verifier, try pki.jws(payload: good, chain: ["stray", "inter", "root"], signer: "stray"))
                == .untrustedChain)
        // A self-signed leaf, alone or before the root.
        try pki.root("selfie")
        #expect(
            refused(verifier, try pki.jws(payload: good, chain: ["selfie", "root"], signer: "selfie"))
                == .untrustedChain)
        #expect(refused(verifier, try pki.jws(payload: good, chain: ["selfie"], signer: "selfie")) == .untrustedChain)
        // A chain to a root that is not pinned, and the pinned root anywhere but last.
        try pki.root("rogue")
        try pki.issue("rogueleaf", by: "rogue", ca: false)
        #expect(
            refused(verifier, try pki.jws(payload: good, chain: ["rogueleaf", "rogue"], signer: "rogueleaf"))
                == .untrustedChain)
        #expect(
            refused(verifier, try pki.jws(payload: good, chain: ["root", "inter", "root"], signer: "root"))
                == .untrustedChain)
        // Wrong algorithm, `alg: none`, no chain.
        #expect(
            refused(
                verifier, try pki.jws(payload: good, chain: ["leaf", "inter", "root"], signer: "leaf", alg: "RS256"))
                == .unsupportedHeader)
        #expect(
            refused(
                verifier, try pki.jws(payload: good, chain: ["leaf", "inter", "root"], signer: "leaf", alg: "none"))
                == .unsupportedHeader)
        #expect(refused(verifier, try pki.jws(payload: good, chain: [], signer: "leaf")) == .unsupportedHeader)
        // Signed by another key than the leaf's, or a payload changed after signing.
        #expect(
            refused(verifier, try pki.jws(payload: good, chain: ["leaf", "inter", "root"], signer: "stray"))
                == .badSignature)
        let token = try pki.jws(payload: good, chain: ["leaf", "inter", "root"], signer: "leaf")
        let parts = token.split(separator: ".")
        let forged = parts[0] + "." + Base64URL.encode(Array(Self.payload(product: "free").utf8)) + "." + parts[2]
        #expect(refused(verifier, String(forged)) == .badSignature)
        // Not a JWS at all.
        #expect(refused(verifier, "abc.def") == .malformedJWS)
        #expect(refused(verifier, "abc..def") == .malformedJWS)
        #expect(refused(verifier, Base64URL.encode(Array("not json".utf8)) + ".e30.c2ln") == .malformedHeader)
    }

    @Test func thePayloadRulesApplyAfterTheSignature() throws {
        guard let fixture = try Self.fixture() else { return }
        let (pki, verifier) = fixture
        let chain = ["leaf", "inter", "root"]
        func reason(_ payload: String) throws -> AppleJWSFailure? {
            refused(verifier, try pki.jws(payload: payload, chain: chain, signer: "leaf"))
        }
        #expect(try reason(Self.payload(bundle: "com.other.app")) == .bundleMismatch)
        #expect(try reason(Self.payload(product: "other_product")) == .productMismatch)
        #expect(
            try reason(#"{"bundleId":"com.mapvest.app","productId":"mapvest_pro_monthly"}"#) == .missingTransactionId)
        #expect(try reason("[]") == .malformedPayload)
        #expect(try reason(Self.payload(extra: #","revocationDate":1700000000000"#)) == .revoked)
        let expired = Self.payload().replacingOccurrences(of: "\(Self.future)", with: "1700000000000")
        let lapsed = verifier.verify(
            try pki.jws(payload: expired, chain: chain, signer: "leaf"), now: Int64(Date().timeIntervalSince1970))
        #expect(lapsed == .refused(.expired, lapsed: "2000000000"))
        let consumable = Self.payload().replacingOccurrences(of: "Auto-Renewable Subscription", with: "Consumable")
        #expect(try reason(consumable) == .notASubscription)
        let mars = Self.payload().replacingOccurrences(of: "Sandbox", with: "Mars")
        #expect(try reason(mars) == .unknownEnvironment)
        let xcode = Self.payload().replacingOccurrences(of: "Sandbox", with: "Xcode")
        #expect(
            verifier.verify(
                try pki.jws(payload: xcode, chain: chain, signer: "leaf"), now: Int64(Date().timeIntervalSince1970))
                == .valid(.init(transactionId: "2000000001", originalTransactionId: "2000000000")))
        let production = AppleTransactionVerifier(
            Environment(["APPLE_ROOT_CA_SHA256": Digest.hex(Digest.sha256(try pki.der("root")))]))
        #expect(
            production.verify(
                try pki.jws(payload: xcode, chain: chain, signer: "leaf"), now: Int64(Date().timeIntervalSince1970))
                == .refused(.xcodeNotAllowed, lapsed: nil))
    }
}

/// Apple bindings in memory: original transaction → user.
final class MemoryApple: AppleAccounts {
    private let holders = Mutex<[String: String]>([:])

    init(holders: [String: String] = [:]) { self.holders.withLock { $0 = holders } }

    func holder(_ originalTransactionId: String) -> String? { holders.withLock { $0[originalTransactionId] } }

    func bind(userId: String, originalTransactionId: String) async throws -> AppleBinding {
        holders.withLock {
            if let holder = $0[originalTransactionId], holder != userId { return .takenByAnotherUser }
            $0[originalTransactionId] = userId
            return .bound
        }
    }

    func unbind(userId: String, originalTransactionId: String) async throws {
        holders.withLock { if $0[originalTransactionId] == userId { $0[originalTransactionId] = nil } }
    }
}

/// `POST /v1/billing/apple` through the edge: the body rule, the binding, the conflict, the unbinding.
struct AppleRouteTests {
    func gateway(_ verifier: AppleTransactionVerifier, _ apple: MemoryApple) -> MoneyGateway {
        let entitlements = FakeEntitlements(accounts: [GatewayUnderTest.userId: AccountFacts(storedPlan: .subscribed)])
        let route = AppleRoute(
            verifier: verifier, accounts: apple, entitlements: entitlements,
            lookups: LookupDeadline(budget: .seconds(2)), logger: Logger(label: "apple-tests", level: .error))
        return MoneyGateway(extra: [route.route])
    }

    @Test func aVerifiedTransactionBindsOnceAndAConflictIs409() async throws {
        guard let fixture = try AppleTransactionTests.fixture() else { return }
        let (pki, verifier) = fixture
        let apple = MemoryApple()
        let gateway = gateway(verifier, apple)
        let auth = ("Authorization", try gateway.bearer())
        let token = try pki.jws(
            payload: AppleTransactionTests.payload(), chain: ["leaf", "inter", "root"], signer: "leaf")
        let body = #"{"signedTransaction":"\#(token)"}"#
        let bound = await gateway.send("POST", "/v1/billing/apple", headers: [auth], body: body)
        #expect(bound.status == 200)
        #expect(bound.object["plan"] as? String == "subscribed")
        #expect(apple.holder("2000000000") == GatewayUnderTest.userId)

        let taken = MemoryApple(holders: ["2000000000": "usr_other"])
        let conflict = await self.gateway(verifier, taken).send(
            "POST", "/v1/billing/apple", headers: [auth], body: body)
        #expect(conflict.status == 409)
        #expect(conflict.errorMessage == "transaction already linked to another account")
    }

    @Test func anExpiredTransactionUnbindsAndSaysWhy() async throws {
        guard let fixture = try AppleTransactionTests.fixture() else { return }
        let (pki, verifier) = fixture
        let apple = MemoryApple(holders: ["2000000000": GatewayUnderTest.userId])
        let gateway = gateway(verifier, apple)
        let expired = AppleTransactionTests.payload().replacingOccurrences(
            of: "\(AppleTransactionTests.future)", with: "1700000000000")
        let token = try pki.jws(payload: expired, chain: ["leaf", "inter", "root"], signer: "leaf")
        let response = await gateway.send(
            "POST", "/v1/billing/apple", headers: [("Authorization", try gateway.bearer())],
            body: #"{"signedTransaction":"\#(token)"}"#)
        #expect(response.status == 400)
        #expect(response.errorMessage == "expired")
        #expect(apple.holder("2000000000") == nil)
    }

    @Test func aMissingOrOutOfRangeTransactionIsRefusedByName() async throws {
        let gateway = gateway(AppleTransactionVerifier(Environment([:])), MemoryApple())
        let auth = ("Authorization", try gateway.bearer())
        for body in ["{}", #"{"signedTransaction":"short"}"#, #"{"signedTransaction":12}"#, "nope"] {
            let response = await gateway.send("POST", "/v1/billing/apple", headers: [auth], body: body)
            #expect(response.status == 400)
            #expect(response.errorMessage == "invalid signedTransaction")
        }
        let garbage = await gateway.send(
            "POST", "/v1/billing/apple", headers: [auth],
            body: #"{"signedTransaction":"\#(String(repeating: "x", count: 40))"}"#)
        #expect(garbage.status == 400)
        #expect(garbage.errorMessage == "malformed jws")
        #expect(await gateway.send("POST", "/v1/billing/apple", body: "{}").status == 401)
    }
}
