import Foundation

/// How a `Logger` writes a line: JSON (one object per line, the default for machines) or logfmt-style text for a
/// person at a terminal (`ts=… level=info logger=identify msg="…" request.id=…`).
public enum LogFormat: Sendable, Equatable {
    case json, text

    /// `LOG_FORMAT=json|text`; unset (or anything else): text when standard error is a terminal, else JSON lines.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> LogFormat
    {
        switch environment["LOG_FORMAT"]?.lowercased() {
        case "json": .json
        case "text": .text
        default: isatty(2) == 1 ? .text : .json
        }
    }

    /// One logfmt-style line: the fixed keys first, then the fields in key order; values quoted when needed.
    static func textLine(ts: String, level: String, logger: String, message: String, fields: [(String, LogValue)])
        -> String
    {
        var line = "ts=\(ts) level=\(level) logger=\(quoted(logger)) msg=\(quoted(message))"
        for (key, value) in fields { line += " \(key)=\(quoted(value.description))" }
        return line + "\n"
    }

    /// The value bare when it is a plain token, else as a JSON string literal (escaped quotes and controls).
    static func quoted(_ value: String) -> String {
        let plain =
            !value.isEmpty
            && value.unicodeScalars.allSatisfy {
                $0.value > 0x20 && $0.value != 0x7F && $0 != "=" && $0 != "\"" && $0 != "\\"
            }
        return plain ? value : JSONText.quote(value)
    }
}
