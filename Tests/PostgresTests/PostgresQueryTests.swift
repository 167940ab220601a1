import Foundation
import Runtime
import Testing

@testable import Postgres

/// Pure tests: query building, date text and array parsing. No server.
@Suite struct PostgresQueryTests {
    @Test func interpolationsBecomeNumberedBinds() {
        let id = 42
        let name = "x' OR '1'='1"
        let missing: String? = nil
        let q: PostgresQuery =
            "SELECT * FROM \(unescaped: "app.users") WHERE id = \(id) AND name = \(name) OR n = \(missing)"
        #expect(q.sql == "SELECT * FROM app.users WHERE id = $1 AND name = $2 OR n = $3")
        #expect(q.binds.count == 3)
        #expect(q.binds[0] == PostgresBind(value: .text("42"), typeOID: PostgresBind.OID.int8))
        #expect(q.binds[1] == PostgresBind(value: .text(name), typeOID: PostgresBind.OID.unspecified))
        #expect(q.binds[2].value == .null)
    }

    @Test func typedBinds() {
        let bytes: [UInt8] = [0, 1, 255]
        let tags = ["a", "b\"c", "d\\e", "NULL", ""]
        let noDate: Date? = nil
        let q: PostgresQuery = """
            SELECT \(Int32(7)), \(Int64(-8)), \(1.5), \(true), \(bytes), \(tags), \(PostgresJSON("{}")), \(noDate)
            """
        #expect(q.sql == "SELECT $1, $2, $3, $4, $5, $6, $7, $8")
        #expect(q.binds.map(\.typeOID) == [23, 20, 701, 16, 17, 1009, 3802, 1184])
        #expect(q.binds[4].value == .binary(bytes))
        #expect(q.binds[5].value == .text(#"{"a","b\"c","d\\e","NULL",""}"#))
        #expect(q.binds[7].value == .null)
        #expect(Double.nan.postgresText == "NaN")
        #expect((-Double.infinity).postgresText == "-Infinity")
    }

    @Test func dateTextRoundTrip() throws {
        let dates = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_714_566_600.123456),
            Date(timeIntervalSince1970: -1_234_567_890.5), Date(timeIntervalSince1970: 951_782_400),  // 2000-02-29
        ]
        for date in dates {
            let text = PostgresDateText.format(date)
            let parsed = try #require(PostgresDateText.parse(text))
            #expect(abs(parsed.timeIntervalSince1970 - date.timeIntervalSince1970) < 1e-6, "\(text)")
        }
        #expect(PostgresDateText.format(Date(timeIntervalSince1970: 951_782_400.5)) == "2000-02-29 00:00:00.500000+00")
    }

    @Test func dateTextParsesServerForms() throws {
        let base = 1_714_566_600.0  // 2024-05-01 12:30:00 UTC
        let cases: [(String, Double)] = [
            ("2024-05-01 12:30:00+00", base),
            ("2024-05-01 12:30:00.25+00", base + 0.25),
            ("2024-05-01 18:00:00+05:30", base),
            ("2024-05-01 07:30:00-05", base),
            ("2024-05-01 12:30:00", base),
            ("2024-05-01T12:30:00Z", base),
            ("2024-05-01", base - 45_000),
        ]
        for (text, expected) in cases {
            let parsed = try #require(PostgresDateText.parse(text), "\(text)")
            #expect(abs(parsed.timeIntervalSince1970 - expected) < 1e-6, "\(text)")
        }
        #expect(PostgresDateText.parse("infinity") == .distantFuture)
        #expect(PostgresDateText.parse("2024-13-01") == nil)
        #expect(PostgresDateText.parse("yesterday") == nil)
        #expect(PostgresDateText.parse("2024-05-01 12:30:00+00 junk") == nil)
    }

    @Test func arrayTextParsing() {
        #expect(PostgresRow.parseArray("{}") == [])
        #expect(PostgresRow.parseArray(#"{a,"b c","d\"e","",x}"#) == ["a", "b c", "d\"e", "", "x"])
        #expect(PostgresRow.parseArray("{a,NULL}") == nil)
        #expect(PostgresRow.parseArray("{{a},{b}}") == nil)
        #expect(PostgresRow.parseArray("a,b") == nil)
    }

    @Test func errorDescriptionIsGeneric() {
        let error = PostgresError(
            code: .server, sqlState: "23505", constraintName: "users_email_key",
            message: "duplicate key value violates unique constraint", detail: "Key (email)=(a@b.c) already exists.")
        #expect(error.description == "PostgresError(server error, sqlState: 23505)")
        #expect(!error.description.contains("a@b.c"))
        #expect(error.debugDescription.contains("a@b.c"))
        #expect(error.isUniqueViolation && !error.isRetriable)
        #expect(PostgresError(code: .server, sqlState: "40001").isRetriable)
        #expect(PostgresError(code: .server, sqlState: "08006").isRetriable)
        #expect(PostgresError(code: .connectionFailed).isRetriable)
        #expect(!PostgresError(code: .server, sqlState: "42601").isRetriable)
    }

    @Test func schemaNameValidation() {
        #expect(PostgresPool.isPlainIdentifier("push"))
        #expect(PostgresPool.isPlainIdentifier("_gateway_2"))
        #expect(!PostgresPool.isPlainIdentifier("Push"))
        #expect(!PostgresPool.isPlainIdentifier("a-b"))
        #expect(!PostgresPool.isPlainIdentifier("x\"; DROP SCHEMA public; --"))
        #expect(!PostgresPool.isPlainIdentifier(""))
        #expect(!PostgresPool.isPlainIdentifier(String(repeating: "a", count: 64)))
    }
}

/// The pool's bookkeeping, without sockets.
@Suite struct PoolStateMachineTests {
    final class Conn {}

    @Test func opensLazilyThenQueuesFIFO() {
        var s = PoolStateMachine<Int, String>(capacity: 2)
        guard case .open = s.acquire(), case .open = s.acquire() else {
            Issue.record("expected two opens")
            return
        }
        guard case .wait = s.enqueue(id: 1, waiter: "first"), case .wait = s.enqueue(id: 2, waiter: "second") else {
            Issue.record("expected waits")
            return
        }
        guard case .hand("first", 10) = s.release(10, reusable: true) else {
            Issue.record("FIFO hand-off")
            return
        }
        // A broken connection frees its slot, which is reserved for the next waiter.
        guard case .openFor("second") = s.release(11, reusable: false) else {
            Issue.record("open for waiter")
            return
        }
        #expect(s.opened == 2)
        guard case .none = s.release(10, reusable: true) else {
            Issue.record("park idle")
            return
        }
        guard case .use(10) = s.acquire() else {
            Issue.record("reuse idle")
            return
        }
    }

    @Test func failedOpenFreesSlotAndTimedOutWaiterLeaves() {
        var s = PoolStateMachine<Int, String>(capacity: 1)
        guard case .open = s.acquire(), case .wait = s.enqueue(id: 1, waiter: "a"),
            case .wait = s.enqueue(id: 2, waiter: "b")
        else {
            Issue.record("setup")
            return
        }
        #expect(s.removeWaiter(id: 1) == "a")
        #expect(s.removeWaiter(id: 1) == nil)
        guard case .openFor("b") = s.openFailed() else {
            Issue.record("retry for the next waiter")
            return
        }
        guard case .none = s.openFailed() else {
            Issue.record("no waiters left")
            return
        }
        #expect(s.opened == 0)
    }

    @Test func closeFailsWaitersAndClosesReturns() {
        var s = PoolStateMachine<Int, String>(capacity: 2)
        _ = s.acquire()
        _ = s.acquire()
        _ = s.release(1, reusable: true)
        _ = s.acquire()  // takes idle 1
        _ = s.enqueue(id: 9, waiter: "w")
        let (idle, waiters) = s.close()
        #expect(idle.isEmpty && waiters == ["w"])
        guard case .close(1) = s.release(1, reusable: true) else {
            Issue.record("close on return")
            return
        }
        guard case .closed = s.acquire() else {
            Issue.record("closed")
            return
        }
        #expect(s.openedForWaiter() == false)
    }
}
