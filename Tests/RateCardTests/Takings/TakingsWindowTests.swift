import Testing

@testable import RateCard

@Suite("Takings windows")
struct TakingsWindowTests {
    /// One charge at each instant, written in several offsets; returns the ids counted.
    func counted(_ instants: [(String, String)], window: TakingsWindow) throws -> Int {
        let text = instants.map { Takings.line(id: $0.0, at: $0.1) }.joined(separator: "\n")
        return Takings.row(Takings.balanced(try Takings.run(text, window: window)), "transcript")?
            .charges ?? 0
    }

    @Test(
        "a window is half-open: since is in, until is out, whatever offset the time is written in",
        arguments: [
            // The same instants, 2026-11-22T12:00:00Z (since) and 2026-11-29T12:00:00Z (until), in several offsets.
            ("2026-11-22T12:00:00Z", true),
            ("2026-11-22T20:00:00+08:00", true),
            ("2026-11-22T07:00:00-05:00", true),
            ("2026-11-22T17:30:00+05:30", true),
            ("2026-11-22T11:59:59.999999999Z", false),
            ("2026-11-22T19:59:59+08:00", false),
            ("2026-11-29T11:59:59.999Z", true),
            ("2026-11-29T06:59:59-05:00", true),
            ("2026-11-29T12:00:00Z", false),
            ("2026-11-29T20:00:00+08:00", false),
            ("2026-11-29T07:00:00-05:00", false),
            ("2026-11-29T21:45:00+09:45", false),
            ("2026-11-29T21:44:59+09:45", true),
        ])
    func edges(at: String, inside: Bool) throws {
        let window = try TakingsWindow(named: "7d", now: Takings.now)
        #expect(try counted([("c", at)], window: window) == (inside ? 1 : 0))
    }

    @Test("all, 7d and 30d relative to now; since/until")
    func named() throws {
        let all = try TakingsWindow(named: "all", now: Takings.now)
        #expect(all.since == nil && all.until == nil)
        let d30 = try TakingsWindow(named: "30d", now: Takings.now)
        #expect(d30.since == Takings.ts("2026-10-30T12:00:00Z") && d30.until == Takings.now)
        #expect(throws: TakingsOptionError.self) {
            try TakingsWindow(named: "7 days", now: Takings.now)
        }
        #expect(throws: TakingsOptionError.self) {
            try TakingsWindow(named: "-7d", now: Takings.now)
        }
        let empty = TakingsWindow(since: Takings.now, until: Takings.now)
        #expect(throws: TakingsOptionError.self) { try Takings.run("", window: empty) }
    }

    /// Each refused window says why: not a number of days, none, or more than 100 years.
    @Test(
        arguments: [
            ("0d", "window \"0d\": a window of 0 days holds nothing; the shortest is 1d"),
            ("36601d", "window \"36601d\": at most 36600d (100 years) is supported"),
            (
                "99999999999999999999d",
                "window \"99999999999999999999d\": at most 36600d (100 years) is supported"
            ),
            (
                "+7d",
                "unknown window \"+7d\": expected all, 7d, 30d or another number of days like 90d"
            ),
            ("d", "unknown window \"d\": expected all, 7d, 30d or another number of days like 90d"),
        ])
    func refusedWindowsSayWhy(text: String, message: String) throws {
        #expect(throws: TakingsOptionError.self) {
            try TakingsWindow(named: text, now: Takings.now)
        }
        do {
            _ = try TakingsWindow(named: text, now: Takings.now)
        } catch {
            #expect(error.description == message)
        }
        #expect(try TakingsWindow(named: "36600d", now: Takings.now).until == Takings.now)
    }

    @Test("a refund counts in the window of its own time, not its charge's")
    func refundWindow() throws {
        let text = [
            Takings.line(id: "c1", at: "2026-11-21T23:00:00Z"),
            Takings.refund(id: "r1", of: "c1", at: "2026-11-23T01:00:00+08:00"),
        ].joined(separator: "\n")
        let window = try TakingsWindow(named: "7d", now: Takings.now)
        let report = Takings.balanced(try Takings.run(text, window: window))
        let row = try #require(Takings.row(report, "transcript"))
        #expect(row.charges == 0 && row.charged == 0)
        #expect(row.declines == 1 && row.givenBack == 30000)
        #expect(row.left == -30000)
        #expect(row.declineRate == nil)
        #expect(report.input.inWindow == 1)
    }

    @Test(
        "series: day, ISO week and month buckets in UTC or a fixed offset",
        arguments: [
            (TakingsSeries.Period.day, 0, ["2026-11-29", "2026-11-30"]),
            (.day, 480, ["2026-11-30", "2026-12-01"]),
            (.day, -300, ["2026-11-29", "2026-11-30"]),
            (.week, 0, ["2026-W48", "2026-W49"]),
            (.week, 480, ["2026-W49"]),
            (.month, 0, ["2026-11"]),
            (.month, 480, ["2026-11", "2026-12"]),
            (.month, -300, ["2026-11"]),
        ])
    func series(period: TakingsSeries.Period, offset: Int, labels: [String]) throws {
        // 2026-11-29 is a Sunday; 2026-11-30 a Monday, and the last day of November.
        let text = [
            Takings.line(id: "a", at: "2026-11-29T23:30:00Z"),
            Takings.line(id: "b", at: "2026-12-01T00:30:00+08:00"),
        ].joined(separator: "\n")
        let report = try Takings.run(
            [("s.jsonl", text)], series: TakingsSeries(period: period, offsetMinutes: offset))
        #expect(report.periods.map(\.label) == labels)
        #expect(report.periods.reduce(0) { $0 + $1.totals.charges } == 2)
        for p in report.periods { #expect(try #require(p.since) < #require(p.until)) }
    }

    @Test(
        "time-zone offsets for --tz",
        arguments: [("Z", 0), ("UTC", 0), ("+08:00", 480), ("-05:30", -330)])
    func offsets(text: String, minutes: Int) throws {
        #expect(try TakingsSeries.offset(text) == minutes)
    }

    @Test("bad --tz values", arguments: ["+8", "08:00", "+24:00", "+08:60", "+0a:00", ""])
    func badOffsets(text: String) {
        #expect(throws: TakingsOptionError.self) { try TakingsSeries.offset(text) }
    }
}
