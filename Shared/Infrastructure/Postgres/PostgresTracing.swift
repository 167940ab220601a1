import Tracing

/// A Postgres statement as a client span names it: its operation and first table (`SELECT identify.finds`), never
/// its text or binds.
enum PostgresTracing {
    static func attributes(_ sql: String) -> [Attribute] {
        [Attribute("db.system.name", "postgresql"), Attribute("db.operation.name", .string(operation(sql)))]
    }

    /// The statement's first keyword, upper-cased, and the table after its first `FROM`, `INTO`, `UPDATE` or `TABLE`.
    static func statementName(_ sql: String) -> String {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "(" || $0 == ";" })
            .prefix(64)
        guard let first = words.first else { return "statement" }
        let operation = first.uppercased()
        let markers: Set<String> = ["FROM", "INTO", "UPDATE", "TABLE"]
        guard let index = words.firstIndex(where: { markers.contains($0.uppercased()) }),
            words.index(after: index) < words.endIndex
        else { return operation }
        let table = words[words.index(after: index)].filter { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
        return table.isEmpty ? operation : "\(operation) \(table)"
    }

    static func operation(_ sql: String) -> String {
        String(statementName(sql).prefix { $0 != " " })
    }
}
