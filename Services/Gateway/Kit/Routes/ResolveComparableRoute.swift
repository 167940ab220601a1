import Contracts
import Foundation
import HTTPServer

/// `POST /v1/resolve-comparable` (docs/COMPATIBILITY.md#resolve-comparable): public; answered by Identify's resolver.
struct ResolveComparableRoute: Sendable {
    let caller: ServiceCaller
    let budget: Duration

    private struct Input: Decodable {
        let brand: String?
        let hintSector: String?
    }

    var route: Route {
        Route("POST", "/v1/resolve-comparable") { context in
            guard case .success(let input) = JSONBody.decode(Input.self, from: context.request, error: ""),
                let brand = input.brand?.trimmingCharacters(in: .whitespacesAndNewlines), !brand.isEmpty,
                brand.count <= 200
            else { return .error(400, "brand required") }
            let sector = input.hintSector?.trimmingCharacters(in: .whitespacesAndNewlines).prefix(100)
            return await caller.call(
                .identify, ResolveComparableCommand.name, key: brand.lowercased(),
                command: ResolveComparableCommand(
                    brand: brand, hintSector: sector.map(String.init).flatMap { $0.isEmpty ? nil : $0 }),
                budget: budget, requestId: context.requestId)
        }
    }
}
