import Foundation
import MCP

/// Strict argument checks for a tool (extra keys refused) whose messages name the argument and the rule, never the
/// value: `invalid arguments for <tool>: <path>: <message>; …` (at most 3 issues, 300 characters).
struct ToolArguments {
    let tool: String
    let values: [String: MCPValue]
    private(set) var issues: [String] = []

    init(_ tool: String, _ values: [String: MCPValue], allowed: [String]) {
        self.tool = tool
        self.values = values
        let unknown = values.keys.filter { !allowed.contains($0) }.sorted()
        if !unknown.isEmpty {
            issues.append(
                "arguments: Unrecognized key(s) in object: " + unknown.map { "'\($0)'" }.joined(separator: ", "))
        }
    }

    /// A string trimmed to `length` characters; nil (with an issue) when missing, of another type or out of range.
    mutating func string(_ key: String, _ length: ClosedRange<Int>, required: Bool = true) -> String? {
        guard let value = values[key] else {
            if required { issues.append("\(key): Required") }
            return nil
        }
        guard let text = value.string else {
            issues.append("\(key): Expected string, received \(Self.typeName(value))")
            return nil
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.count < length.lowerBound {
            issues.append("\(key): String must contain at least \(length.lowerBound) character(s)")
            return nil
        }
        if trimmed.count > length.upperBound {
            issues.append("\(key): String must contain at most \(length.upperBound) character(s)")
            return nil
        }
        return trimmed
    }

    /// One of `choices` when present; a value outside them is an issue.
    mutating func choice(_ key: String, _ choices: [String]) -> String? {
        guard let value = values[key] else { return nil }
        guard let text = value.string, choices.contains(text) else {
            issues.append("\(key): Invalid enum value. Expected " + choices.map { "'\($0)'" }.joined(separator: " | "))
            return nil
        }
        return text
    }

    /// The refusal to answer when any check failed.
    var refusal: MCPToolOutput? {
        guard !issues.isEmpty else { return nil }
        return .error(String("invalid arguments for \(tool): \(issues.prefix(3).joined(separator: "; "))".prefix(300)))
    }

    private static func typeName(_ value: MCPValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
