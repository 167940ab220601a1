import Foundation

/// Sign-in input (docs/COMPATIBILITY.md#sign-in).
enum AuthInput {
    /// A plausible address, lowercased and trimmed; nil otherwise.
    static func normalizedEmail(_ raw: String?) -> String? {
        guard let email = raw?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased(),
            (3...254).contains(email.count)
        else { return nil }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix("."), !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { return nil }
        return email
    }
}
