import FoundationEssentials

extension IncomingCommand {
    /// The body decoded as JSON; an undecodable body is a `CommandDecodingError` (the command is dead-lettered).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch {
            throw CommandDecodingError("\(name): \(error)")
        }
    }
}
