import Contracts
import Crypto
import Foundation
import Postgres

/// Research conversations and their turns (`research.conversations`, `research.messages`), owned by the Research
/// service. `user_id` holds the owner key (`ResearchOwner.key`: a user id, or `device:<id>` for a guest). A user
/// message is unique per owner and client message id; an assistant turn is unique per user message, so retries and
/// concurrent duplicates converge on one stored turn.
struct ConversationStore: Sendable {
    let db: PostgresPool

    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "conversations and messages",
            sql: """
                CREATE TABLE IF NOT EXISTS research.conversations (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    ticker TEXT,
                    status TEXT NOT NULL,
                    derivation_id TEXT,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
                );
                CREATE INDEX IF NOT EXISTS conversations_user_idx ON research.conversations (user_id, updated_at DESC);
                CREATE TABLE IF NOT EXISTS research.messages (
                    id TEXT PRIMARY KEY,
                    conversation_id TEXT NOT NULL REFERENCES research.conversations(id) ON DELETE CASCADE,
                    user_id TEXT NOT NULL,
                    role TEXT NOT NULL,
                    content TEXT NOT NULL,
                    provider TEXT,
                    client_message_id TEXT,
                    reply_to TEXT,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
                );
                CREATE UNIQUE INDEX IF NOT EXISTS messages_client_idx ON research.messages (user_id, client_message_id)
                    WHERE client_message_id IS NOT NULL;
                CREATE UNIQUE INDEX IF NOT EXISTS messages_reply_idx ON research.messages (reply_to)
                    WHERE reply_to IS NOT NULL;
                CREATE INDEX IF NOT EXISTS messages_conversation_idx ON research.messages (conversation_id, created_at);
                """),
        Migration(
            version: 2, name: "pending runs and progress",
            sql: """
                ALTER TABLE research.conversations ADD COLUMN IF NOT EXISTS awaiting TEXT;
                ALTER TABLE research.conversations ADD COLUMN IF NOT EXISTS phase TEXT;
                ALTER TABLE research.conversations ADD COLUMN IF NOT EXISTS completed_iterations INT;
                ALTER TABLE research.conversations ADD COLUMN IF NOT EXISTS max_iterations INT;
                """),
    ]

    /// A stored user message and, once answered, its reply.
    struct Turn: Sendable {
        var conversationId: String
        var ticker: String?
        var derivationId: String?
        var question: ResearchArticle
        var answer: ResearchArticle?
        var status: ResearchStatus
        /// Set while Derivation's run for this question is still going (a 202 was answered).
        var awaitingRun: Bool
    }

    private static let iso = "to_char(%@ AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
    private static func isoColumn(_ column: String, as name: String) -> String {
        iso.replacingOccurrences(of: "%@", with: column) + " AS " + name
    }

    private static func article(_ row: PostgresRow, prefix: String = "") -> ResearchArticle? {
        guard let id = row.string(prefix + "id"), let role = row.string(prefix + "role"),
            let content = row.string(prefix + "content"), let created = row.string(prefix + "created_iso")
        else { return nil }
        return ResearchArticle(
            id: id, role: role, content: content, createdAt: created, provider: row.string(prefix + "provider"))
    }

    /// The turn of `clientMessageId`, if this user sent it before.
    func turn(userId: String, clientMessageId: String) async throws -> Turn? {
        let rows = try await db.query(
            """
            SELECT q.id, q.role, q.content, q.provider, \(unescaped: Self.isoColumn("q.created_at", as: "created_iso")),
                   a.id AS a_id, a.role AS a_role, a.content AS a_content, a.provider AS a_provider,
                   \(unescaped: Self.isoColumn("a.created_at", as: "a_created_iso")),
                   c.id AS conversation_id, c.ticker, c.derivation_id, c.status, c.awaiting = q.id AS awaiting_run
            FROM research.messages q
            JOIN research.conversations c ON c.id = q.conversation_id
            LEFT JOIN research.messages a ON a.reply_to = q.id
            WHERE q.user_id = \(userId) AND q.client_message_id = \(clientMessageId)
            """)
        guard let row = rows.first, let question = Self.article(row), let conversation = row.string("conversation_id")
        else { return nil }
        return Turn(
            conversationId: conversation, ticker: row.string("ticker"), derivationId: row.string("derivation_id"),
            question: question, answer: Self.article(row, prefix: "a_"),
            status: ResearchStatus(rawValue: row.string("status") ?? "") ?? .error,
            awaitingRun: row.bool("awaiting_run") == true)
    }

    /// Whether `conversationId` exists and belongs to `userId`, with its Derivation conversation.
    func owned(userId: String, conversationId: String) async throws -> (found: Bool, derivationId: String?) {
        let rows = try await db.query(
            "SELECT derivation_id FROM research.conversations WHERE id = \(conversationId) AND user_id = \(userId)")
        return (!rows.isEmpty, rows.first?.string("derivation_id"))
    }

    /// Stores the user's message (creating the conversation when `conversationId` is nil) unless this client
    /// message id is stored already; answers the stored turn either way.
    func ask(
        userId: String, conversationId: String?, message: String, ticker: String?, clientMessageId: String
    ) async throws -> Turn? {
        let conversation = conversationId ?? "rc_" + Digest.randomHex(bytes: 12)
        try await db.transaction { connection in
            if conversationId == nil {
                try await connection.execute(
                    """
                    INSERT INTO research.conversations (id, user_id, title, ticker, status)
                    VALUES (\(conversation), \(userId), \(Self.title(message, ticker: ticker)), \(ticker), 'running')
                    """)
            } else {
                try await connection.execute(
                    """
                    UPDATE research.conversations SET status = 'running', updated_at = now(), awaiting = NULL
                    WHERE id = \(conversation) AND user_id = \(userId)
                    """)
            }
            let inserted = try await connection.execute(
                """
                INSERT INTO research.messages (id, conversation_id, user_id, role, content, client_message_id)
                VALUES (\("rm_" + Digest.randomHex(bytes: 12)), \(conversation), \(userId), 'user', \(message),
                        \(clientMessageId))
                ON CONFLICT (user_id, client_message_id) WHERE client_message_id IS NOT NULL DO NOTHING
                """)
            // A concurrent duplicate stored this message first: the conversation made for it here is not needed.
            if inserted == 0 && conversationId == nil {
                try await connection.execute("DELETE FROM research.conversations WHERE id = \(conversation)")
            }
        }
        return try await turn(userId: userId, clientMessageId: clientMessageId)
    }

    /// Records that Derivation's run `derivationId` for `questionId` is still going.
    func awaitRun(conversationId: String, questionId: String, derivationId: String) async throws {
        try await db.execute(
            """
            UPDATE research.conversations SET status = 'running', updated_at = now(), awaiting = \(questionId),
                derivation_id = \(derivationId)
            WHERE id = \(conversationId)
            """)
    }

    /// Moves a guest's conversations (and their messages) to the signed-in user who now sends that device id. A
    /// message whose client id the user already used stays with the guest key.
    func claim(_ owner: ResearchOwner) async throws {
        guard let user = owner.key, let guest = owner.claimable else { return }
        try await db.transaction { connection in
            let moved = try await connection.execute(
                "UPDATE research.conversations SET user_id = \(user) WHERE user_id = \(guest)")
            guard moved > 0 else { return }
            try await connection.execute(
                """
                UPDATE research.messages m SET user_id = \(user) WHERE m.user_id = \(guest)
                AND NOT EXISTS (SELECT 1 FROM research.messages u WHERE u.user_id = \(user)
                                AND u.client_message_id = m.client_message_id)
                """)
        }
    }

    /// The question `conversationId` awaits a Derivation run for, with what resuming it needs.
    func awaiting(userId: String, conversationId: String) async throws -> (questionId: String, derivationId: String)? {
        let rows = try await db.query(
            """
            SELECT c.awaiting, c.derivation_id FROM research.conversations c
            WHERE c.id = \(conversationId) AND c.user_id = \(userId) AND c.awaiting IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM research.messages a WHERE a.reply_to = c.awaiting)
            """)
        guard let row = rows.first, let question = row.string("awaiting"), let run = row.string("derivation_id")
        else { return nil }
        return (question, run)
    }

    /// The client message id and text of stored question `questionId`.
    func question(_ questionId: String) async throws -> (clientMessageId: String, content: String)? {
        let rows = try await db.query(
            "SELECT client_message_id, content FROM research.messages WHERE id = \(questionId) AND role = 'user'")
        guard let row = rows.first, let id = row.string("client_message_id"), let content = row.string("content")
        else { return nil }
        return (id, content)
    }

    /// Stores the reply to `questionId` (a concurrent duplicate keeps the first) and the conversation's status.
    func answer(
        userId: String, conversationId: String, questionId: String, content: String, provider: String,
        status: ResearchStatus, derivationId: String?, phase: String? = nil, progress: ResearchProgress? = nil
    ) async throws {
        try await db.transaction { connection in
            try await connection.execute(
                """
                INSERT INTO research.messages (id, conversation_id, user_id, role, content, provider, reply_to)
                VALUES (\("rm_" + Digest.randomHex(bytes: 12)), \(conversationId), \(userId), 'assistant', \(content),
                        \(provider), \(questionId))
                ON CONFLICT (reply_to) WHERE reply_to IS NOT NULL DO NOTHING
                """)
            try await connection.execute(
                """
                UPDATE research.conversations SET status = \(status.rawValue), updated_at = now(),
                    derivation_id = COALESCE(\(derivationId), derivation_id), awaiting = NULL,
                    phase = \(phase), completed_iterations = \(progress?.completedIterations),
                    max_iterations = \(progress?.maxIterations)
                WHERE id = \(conversationId)
                """)
        }
    }

    /// The user's conversations, most recently active first, with the last turn as preview.
    func threads(userId: String, limit: Int = 50) async throws -> [Thread] {
        try await db.query(
            """
            SELECT \(unescaped: Self.summaryColumns)
            FROM research.conversations c WHERE c.user_id = \(userId)
            ORDER BY c.updated_at DESC, c.created_at DESC, c.id DESC LIMIT \(limit)
            """
        ).compactMap(Self.summary)
    }

    /// One conversation with its turns, oldest first; nil when it is not this user's.
    func thread(userId: String, conversationId: String) async throws -> Thread? {
        guard
            var summary = try await db.query(
                """
                SELECT \(unescaped: Self.summaryColumns)
                FROM research.conversations c WHERE c.id = \(conversationId) AND c.user_id = \(userId)
                """
            ).first.flatMap(Self.summary)
        else { return nil }
        summary.summary.messages = try await db.query(
            """
            SELECT id, role, content, provider, \(unescaped: Self.isoColumn("created_at", as: "created_iso"))
            FROM research.messages WHERE conversation_id = \(conversationId) ORDER BY created_at, id
            """
        ).compactMap { Self.article($0) }
        return summary
    }

    private static let summaryColumns = """
        c.id, c.title, c.status, c.ticker, c.phase, c.completed_iterations, c.max_iterations,
        \(isoColumn("c.created_at", as: "created_iso")), \(isoColumn("c.updated_at", as: "updated_iso")),
        (SELECT content FROM research.messages m WHERE m.conversation_id = c.id
         ORDER BY m.created_at DESC LIMIT 1) AS preview,
        EXISTS (SELECT 1 FROM research.messages a WHERE a.conversation_id = c.id AND a.role = 'assistant'
                AND a.provider IS DISTINCT FROM 'unavailable') AS has_memo
        """

    /// A stored thread: what the client sees, plus what the service needs to show it.
    struct Thread: Sendable {
        var summary: AgentThreadSummary
        var ticker: String?
        var progress: ResearchProgress?
        var hasMemo: Bool
    }

    private static func summary(_ row: PostgresRow) -> Thread? {
        guard let id = row.string("id"), let title = row.string("title") else { return nil }
        let status = ResearchStatus(rawValue: row.string("status") ?? "") ?? .error
        var summary = AgentThreadSummary(
            id: id, title: title, createdAt: row.string("created_iso") ?? "",
            updatedAt: row.string("updated_iso") ?? "",
            preview: String((row.string("preview") ?? "").prefix(180)), status: status)
        summary.phase = row.string("phase")
        let completed = row.int("completed_iterations")
        let maximum = row.int("max_iterations")
        return Thread(
            summary: summary, ticker: row.string("ticker"),
            progress: completed == nil && maximum == nil
                ? nil : ResearchProgress(completedIterations: completed, maxIterations: maximum),
            hasMemo: row.bool("has_memo") == true)
    }

    /// `$TICKER research`, else the message's first line (72 characters).
    static func title(_ message: String, ticker: String?) -> String {
        if let ticker { return "$\(ticker) research" }
        let first = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = first.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? "Research" : String(trimmed.prefix(72))
    }
}
