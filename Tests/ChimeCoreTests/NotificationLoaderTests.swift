import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

/// `NotificationLoader`: every key of chime.notification(5), and every rule a file can break.
@Suite struct NotificationLoaderTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")
    let loader = NotificationLoader(systemZone: NotificationLoaderTests.berlin, zones: .system)

    func load(_ text: String, id: String = "sample") -> NotificationLoader.Result {
        loader.load(
            UnitFile(parsing: text, path: "/etc/chime/\(id).notification"), id: id,
            path: "/etc/chime/\(id).notification")
    }

    @Test func everyKeyIsRead() throws {
        let result = load(
            """
            [Notification]
            Title=Exam: Linear Algebra
            Body=Starts today at 09:00, room 4B
            Icon=x-office-calendar
            Category=reminder
            Sound=default
            Urgency=critical
            Action=open:Open
            Action=snooze:Snooze
            ExecAction=open:/usr/bin/xdg-open "https://example.org/exam?id=42"
            SnoozeSec=5min
            Badge=+1
            Info=kind=exam
            Info=room=4B
            Deliver=journal desktop
            Enabled=yes

            [Trigger]
            At=2026-12-01 07:00
            OnCalendar=Mon..Fri 09:55
            Every=15min
            From=2026-11-30 08:00
            Count=7
            Until=2027-01-01
            TimeZone=Asia/Tokyo
            Persistent=yes
            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let notification = try #require(result.notification)
        #expect(notification.title == "Exam: Linear Algebra")
        #expect(notification.body == "Starts today at 09:00, room 4B")
        #expect(notification.icon == "x-office-calendar")
        #expect(notification.category == "reminder")
        #expect(notification.sound == "default")
        #expect(notification.urgency == .critical)
        #expect(notification.actions.map(\.key) == ["open", "snooze"])
        #expect(notification.actions.map(\.label) == ["Open", "Snooze"])
        #expect(notification.actionCommands["open"] == ["/usr/bin/xdg-open", "https://example.org/exam?id=42"])
        #expect(notification.snooze == .seconds(300))
        #expect(notification.badge == .add(1))
        #expect(notification.info.map(\.key) == ["kind", "room"])
        #expect(notification.info.map(\.value) == ["exam", "4B"])
        #expect(notification.backends == ["journal", "desktop"])
        #expect(notification.isEnabled)
        let trigger = notification.trigger
        // Times without a zone are read in TimeZone= (Tokyo, UTC+9).
        #expect(trigger.instants == [TestDate.iso("2026-11-30T22:00:00Z")!])
        #expect(trigger.calendars.map(\.description) == ["Mon..Fri *-*-* 09:55:00"])
        #expect(trigger.interval == Timespan(microseconds: 900_000_000))
        #expect(trigger.from == TestDate.iso("2026-11-29T23:00:00Z")!)
        #expect(trigger.count == 7)
        #expect(trigger.until == TestDate.iso("2026-12-31T15:00:00Z")!)
        #expect(trigger.timeZone?.name == "Asia/Tokyo")
        #expect(trigger.isPersistent)
    }

    @Test func defaultsApplyWhenKeysAreMissingOrReset() throws {
        let result = load(
            """
            [Notification]
            Title=Hello
            Urgency=critical
            Urgency=
            Info=a=1
            Info=
            Info=b=2

            [Trigger]
            OnCalendar=daily
            """)
        let notification = try #require(result.notification)
        #expect(notification.urgency == .normal)
        #expect(notification.info.map(\.key) == ["b"])
        #expect(notification.snooze == .seconds(600))
        #expect(notification.badge == nil)
        #expect(notification.backends.isEmpty)
        #expect(notification.trigger.timeZone == nil)
        #expect(!notification.trigger.isPersistent)
    }

    /// A key is found by its exact name and by nothing else: not another case, a prefix, a longer name or `Id`.
    @Test func everyKeyIsFoundByItsNameAndNothingElse() {
        for key in NotificationKey.allCases { #expect(NotificationKey.named(key.rawValue) == key) }
        for name in ["", "Id", "title", "Titl", "Titles", "OnCalendaR", "DismissAcknowledgesX", "Bödy"] {
            #expect(NotificationKey.named(name) == nil)
        }
    }

    /// `Info=` pairs keep their order; a key given again takes its later value, in the later place; a value may
    /// hold `=` and any text.
    @Test func infoPairsKeepTheirOrderAndTheLastValueOfAKey() throws {
        let result = load(
            "[Notification]\nTitle=t\nInfo=room=4B\nInfo=course=Linear Algebra II, second part\nInfo=room=5C\n"
                + "Info=formula=a=b+c\nInfo=city=Zürich\n[Trigger]\nOnCalendar=daily\n")
        let info = try #require(result.notification).info
        #expect(info.map(\.key) == ["course", "room", "formula", "city"])
        #expect(info.map(\.value) == ["Linear Algebra II, second part", "5C", "a=b+c", "Zürich"])
    }

    @Test(arguments: [
        ("N", ScheduledNotification.BadgeChange.set(3), "3"), ("+N", .add(2), "+2"), ("-N", .add(-4), "-4"),
        ("clear", .clear, "clear"), ("zero", .set(0), "0"),
    ])
    func badgeForms(_ name: String, expected: ScheduledNotification.BadgeChange, text: String) throws {
        let result = load("[Notification]\nTitle=t\nBadge=\(text)\n[Trigger]\nOnCalendar=daily\n")
        #expect(try #require(result.notification).badge == expected)
        #expect(expected.description == text)
    }

    /// `InterruptionLevel=` decides focus, and the desktop urgency too unless `Urgency=` is given beside it.
    @Test(arguments: [
        ("passive", nil, ScheduledNotification.Urgency.low), ("active", nil, .normal),
        ("time-sensitive", nil, .normal), ("critical", nil, .critical), ("critical", "low", .low),
        ("passive", "critical", .critical),
    ])
    func interruptionLevels(_ level: String, urgency: String?, expected: ScheduledNotification.Urgency) throws {
        let lines = urgency.map { "Urgency=\($0)\n" } ?? ""
        // Urgency= first: the order of the keys does not matter.
        let result = load("[Notification]\nTitle=t\n\(lines)InterruptionLevel=\(level)\n[Trigger]\nOnCalendar=daily\n")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let notification = try #require(result.notification)
        #expect(notification.interruptionLevel.rawValue == level)
        #expect(notification.urgency == expected)
        #expect(
            load("[Notification]\nTitle=t\n[Trigger]\nOnCalendar=daily\n").notification?.interruptionLevel == .active)
    }

    @Test func repeatIsTimeSpansEachOneWord() throws {
        let result = load(
            "[Notification]\nTitle=t\nRepeat=5min  10min 1h30min\nDismissAcknowledges=no\n[Trigger]\nOnCalendar=daily\n"
        )
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let notification = try #require(result.notification)
        #expect(notification.repeats == [.seconds(300), .seconds(600), .seconds(5400)])
        #expect(!notification.dismissAcknowledges)
        #expect(notification.repeatDelay(after: 0) == .seconds(300))
        #expect(notification.repeatDelay(after: 7) == .seconds(5400))
        let plain = try #require(load("[Notification]\nTitle=t\n[Trigger]\nOnCalendar=daily\n").notification)
        #expect(plain.repeats.isEmpty && plain.dismissAcknowledges && plain.repeatDelay(after: 0) == nil)
    }

    @Test func aThreadIsAnyLineOfText() throws {
        let result = load("[Notification]\nTitle=t\nThread=Linear Algebra: week 3\n[Trigger]\nOnCalendar=daily\n")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(try #require(result.notification).thread == "Linear Algebra: week 3")
        #expect(load("[Notification]\nTitle=t\n[Trigger]\nOnCalendar=daily\n").notification?.thread == nil)
        #expect(!NotificationLoader.isValidThread(String(repeating: "x", count: 256)))
    }

    /// Each broken rule: the file, the exact diagnostic (file:line:column: reason).
    @Test(arguments: [
        (
            "[Notification]\nTitle=t\nUrgency=urgent\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:3:9: Invalid Urgency= 'urgent': expected low, normal or critical."
        ),
        (
            "[Notification]\nTitle=t\nInterruptionLevel=Critical\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:3:19: Invalid InterruptionLevel= 'Critical': expected passive, active, "
                + "time-sensitive or critical."
        ),
        (
            "[Notification]\nTitle=t\nRepeat=5min 500ms\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:3:8: Invalid Repeat= '5min 500ms': '500ms' is not a time span of a second "
                + "or more; give spans such as '5min 10min 30min', each one word."
        ),
        (
            "[Notification]\nTitle=t\nThread=a\u{7}b\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:3:8: Invalid Thread= 'a\u{7}b': expected a name of at most 255 bytes "
                + "without control characters."
        ),
        (
            "[Notification]\nTitle=t\nBadge=++1\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:3:7: Invalid Badge= '++1': expected N, +N, -N or clear."
        ),
        (
            "[Notification]\nTitle=t\nBadge=1.5\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:3:7: Invalid Badge= '1.5': expected N, +N, -N or clear."
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nEvery=0\n",
            "/etc/chime/sample.notification:4:7: Every= must be a finite interval greater than zero, not '0'."
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nEvery=500ms\n",
            "/etc/chime/sample.notification:4:7: Every= '500ms' can fire more often than once every 1s, the shortest "
                + "interval taken (MinimumInterval= in chimed.conf)."
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nOnCalendar=daily\nOnCalendar=*:*:0/0.5\n",
            "/etc/chime/sample.notification:5:12: OnCalendar= '*:*:0/0.5' can fire more often than once every 1s, "
                + "the shortest interval taken (MinimumInterval= in chimed.conf)."
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nOnCalendar=dialy\n",
            "/etc/chime/sample.notification:4:12: Invalid OnCalendar= 'dialy': Unknown word 'dialy'; did you mean "
                + "'daily'?"
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nEvery=15min\nCount=0\n",
            "/etc/chime/sample.notification:5:7: Count= must be a positive whole number, not '0'."
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nEvery=15min\nCount=-2\n",
            "/etc/chime/sample.notification:5:7: Count= must be a positive whole number, not '-2'."
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nEvery=1h\nFrom=2026-12-02\nUntil=2026-12-01\n",
            "/etc/chime/sample.notification:6:1: Until= (2026-12-01) is before From=; nothing could fire."
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nPersistent=yes\n",
            "/etc/chime/sample.notification:3:1: No trigger: set At=, OnCalendar=, Every=, RRule= or RDate= in [Trigger]."
        ),
        (
            "[Notification]\nBody=b\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:1:1: Missing Title= in [Notification]."
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nOnCalendar=Mon *-*-* 25:00\n",
            "/etc/chime/sample.notification:4:12: Invalid OnCalendar= 'Mon *-*-* 25:00': The hour 25 is out of range."
        ),
        (
            // Found by fuzz-unit-file: stepping through a million occurrences a microsecond apart took 1.7 s.
            "[Notification]\nTitle=t\n[Trigger]\nEvery=1s\nFrom=2026-11-30 09:00\nOnCalendar=*:*:0/1\n"
                + "Count=1000000\n",
            "/etc/chime/sample.notification:7:7: Count= may be at most 10,000 with OnCalendar=, At=, RRule= or RDate=, not "
                + "1,000,000: the occurrences are counted one by one. End a longer series with Until=."
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nAt=tomorrow\n",
            "/etc/chime/sample.notification:4:4: At= must be an absolute time; 'tomorrow' depends on when the file is read."
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nAt=2026-13-01\n",
            "/etc/chime/sample.notification:4:4: Invalid At= '2026-13-01': "
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nOnCalendar=daily\nTimeZone=Mars/Olympus\n",
            "/etc/chime/sample.notification:5:10: Unknown time zone 'Mars/Olympus' in TimeZone=."
        ),
        (
            "[Notification]\nTitle=t\nAction=open\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:3:8: Invalid Action= 'open': expected KEY:Label."
        ),
        (
            "[Notification]\nTitle=t\nExecAction=open:xdg-open x\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:3:17: ExecAction= needs an absolute path to a program, not 'xdg-open'."
        ),
        (
            "[Notification]\nTitle=t\nInfo=no-equals\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:3:6: Invalid Info= 'no-equals': expected KEY=VALUE with a KEY of letters, digits and '_'."
        ),
        (
            "[Notification]\nTitle=t\nSnoozeSec=0\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:3:11: Invalid SnoozeSec= '0': expected a time span above zero."
        ),
        (
            "[Notification]\nTitle=t\nEnabled=perhaps\n[Trigger]\nOnCalendar=daily\n",
            "/etc/chime/sample.notification:3:9: Invalid Enabled= 'perhaps': expected yes or no."
        ),
    ])
    func rejections(text: String, expected: String) {
        let result = load(text)
        #expect(result.notification == nil)
        let errors = result.diagnostics.filter { $0.severity == .error }.map(\.description)
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.hasPrefix(expected) == true, "\(errors)")
    }

    @Test func unknownSectionsAndKeysAreWarningsOnly() throws {
        let result = load("[Notification]\nTitle=t\nColour=red\n[Trigger]\nOnCalendar=daily\n[Extra]\nA=1\n")
        #expect(result.notification != nil)
        #expect(
            result.diagnostics.map(\.description) == [
                "/etc/chime/sample.notification:3:1: Unknown key 'Colour' in section [Notification], ignoring.",
                "/etc/chime/sample.notification:6:1: Unknown section 'Extra', ignoring.",
            ])
        #expect(result.diagnostics.allSatisfy { $0.severity == .warning })
    }

    /// An `At=` before `From=` (meant as the first of an `Every=` series) or after `Until=` never fires: a warning
    /// names it; the notification loads.
    @Test(arguments: [
        (
            "At=2026-12-01 08:00\nEvery=1h\nFrom=2026-12-01 09:00\n",
            "4:1: At= Tue 2026-12-01 08:00:00 CET is before From= Tue 2026-12-01 09:00:00 CET: it never fires (From= "
                + "starts the series; to fire first at At=, make it From=)."
        ),
        (
            "At=2026-12-03 08:00\nOnCalendar=daily\nUntil=2026-12-02\n",
            "4:1: At= Thu 2026-12-03 08:00:00 CET is after Until= Wed 2026-12-02 00:00:00 CET: it never fires."
        ),
    ])
    func anAtOutsideTheWindowIsAWarning(trigger: String, expected: String) {
        let result = load("[Notification]\nTitle=t\n[Trigger]\n" + trigger)
        #expect(result.notification != nil)
        #expect(result.diagnostics.map(\.description) == ["/etc/chime/sample.notification:" + expected])
        #expect(result.diagnostics.allSatisfy { $0.severity == .warning })
    }

    @Test func manyUnknownKeysAreSaidFirstFewThenCounted() throws {
        let keys = (0..<100).map { "Unknown\($0)=x\n" }.joined()
        let result = load("[Notification]\nTitle=t\n\(keys)[Trigger]\nOnCalendar=daily\n[Extra]\nA=1\n")
        #expect(result.notification != nil)
        #expect(
            result.diagnostics.map(\.description) == [
                "/etc/chime/sample.notification: 96 more unknown keys and sections, ignoring.",
                "/etc/chime/sample.notification:3:1: Unknown key 'Unknown0' in section [Notification], ignoring.",
                "/etc/chime/sample.notification:4:1: Unknown key 'Unknown1' in section [Notification], ignoring.",
                "/etc/chime/sample.notification:5:1: Unknown key 'Unknown2' in section [Notification], ignoring.",
                "/etc/chime/sample.notification:6:1: Unknown key 'Unknown3' in section [Notification], ignoring.",
                "/etc/chime/sample.notification:7:1: Unknown key 'Unknown4' in section [Notification], ignoring.",
            ])
    }

    /// A misspelt key, section or backend is named with what it most likely meant.
    @Test(arguments: [
        (
            "[Notification]\nTitel=t\n[Trigger]\nOnCalendar=daily\n",
            "2:1: Unknown key 'Titel' in section [Notification], ignoring. Did you mean 'Title'?"
        ),
        (
            "[notification]\nTitle=t\n[Trigger]\nOnCalendar=daily\n",
            "1:1: Unknown section 'notification', ignoring. Did you mean 'Notification'? Names are case-sensitive."
        ),
        (
            "[Notification]\nTitle=t\n[Trigger]\nOnCalender=daily\nAt=2030-01-01\n",
            "4:1: Unknown key 'OnCalender' in section [Trigger], ignoring. Did you mean 'OnCalendar'?"
        ),
    ])
    func misspellingsAreNamedWithWhatTheyMeant(text: String, expected: String) {
        var loader = self.loader
        loader.knownBackends = ["journal", "stdout", "desktop"]
        let result = loader.load(
            UnitFile(parsing: text, path: "/etc/chime/sample.notification"), id: "sample",
            path: "/etc/chime/sample.notification")
        let warnings = result.diagnostics.filter { $0.severity == .warning }.map(\.description)
        #expect(warnings == ["/etc/chime/sample.notification:" + expected])
    }

    /// A backend nobody defined guarantees a missed reminder: an error, the notification left out, with what it
    /// most likely meant.
    @Test func aBackendNobodyDefinedLeavesTheNotificationOut() {
        var loader = self.loader
        loader.knownBackends = ["journal", "stdout", "desktop"]
        let result = loader.load(
            UnitFile(
                parsing: "[Notification]\nTitle=t\nDeliver=journal destkop\n[Trigger]\nOnCalendar=daily\n",
                path: "/etc/chime/sample.notification"), id: "sample", path: "/etc/chime/sample.notification")
        #expect(result.notification == nil)
        #expect(
            result.diagnostics.map(\.description) == [
                "/etc/chime/sample.notification:3:9: Deliver= names 'destkop', which is no backend of this instance; "
                    + "leaving the notification out. Did you mean 'desktop'? Backends: journal, stdout, desktop."
            ])
        #expect(result.diagnostics.allSatisfy { $0.severity == .error })
    }

    @Test func aTrailingCommentIsExplainedWhereItBreaksAValue() {
        let result = load(
            "[Notification]\nTitle=Standup # every day\nUrgency=low # quiet\n[Trigger]\nOnCalendar=daily\n")
        #expect(
            result.diagnostics.map(\.description) == [
                "/etc/chime/sample.notification:3:9: Invalid Urgency= 'low # quiet': expected low, normal or critical. "
                    + "(A comment must be a whole line: '#' and ';' start one only at the beginning of a line.)"
            ])
    }

    @Test func problemsAreInTheOrderOfTheirLines() {
        let result = load("[Notification]\nUrgency=loud\nBadge=many\n[Trigger]\nEvery=soon\n")
        #expect(
            result.diagnostics.map { "\($0.location.line ?? 0):\($0.location.column ?? 0)" } == [
                "1:1", "2:9", "3:7", "5:7",
            ])
    }

    @Test func disabledNotificationLoadsButIsMarked() throws {
        let result = load("[Notification]\nTitle=t\nEnabled=no\n[Trigger]\nOnCalendar=daily\n")
        #expect(try #require(result.notification).isEnabled == false)
    }

    @Test(arguments: ["standup", "exam-42", "a.b", "user@host", "x:y", "A_1"])
    func validIDs(id: String) { #expect(NotificationLoader.isValidID(id)) }

    @Test(arguments: ["", ".hidden", "with space", "slash/x", "ümlaut", String(repeating: "x", count: 256)])
    func invalidIDs(id: String) { #expect(!NotificationLoader.isValidID(id)) }

    @Test func notificationsWithTheSameCalendarEventsShareThemAndLoadAsWithoutTheCache() {
        let cache = CalendarCache(capacity: 2)
        let shared = NotificationLoader(systemZone: .utc, zones: .system, calendarCache: cache)
        let plain = NotificationLoader(systemZone: .utc, zones: .system)
        let texts = [
            ("a", "OnCalendar=Mon..Fri 09:00\nOnCalendar=Sat 10:00\n"),
            ("b", "OnCalendar=Mon..Fri 09:00\nOnCalendar=Sat 10:00\n"),
            ("c", "OnCalendar=*-*-* 12:00\n"), ("d", "OnCalendar=hourly\n"), ("e", "OnCalendar=hourly\n"),
            ("f", "OnCalendar=*-*-* 25:00\n"), ("g", "OnCalendar=*-*-* 25:00\n"),
        ]
        for (id, trigger) in texts {
            let unit = UnitFile(
                parsing: "[Notification]\nTitle=\(id)\n[Trigger]\n" + trigger, path: "\(id).notification")
            let cached = shared.load(unit, id: id, path: "\(id).notification")
            let uncached = plain.load(unit, id: id, path: "\(id).notification")
            #expect(cached.notification == uncached.notification)
            #expect(cached.diagnostics == uncached.diagnostics)
        }
    }

    /// A cache carrying the one of the load before gives the lists kept there, parses what it does not hold, and
    /// keeps only what it was asked for: once it lets go of the earlier one, what it was not asked for is gone.
    @Test func aCacheCarriedFromTheLoadBeforeGivesItsVeryListsAndKeepsWhatItWasAskedFor() throws {
        func calendars(_ cache: CalendarCache, _ event: String) throws -> [CalendarSpec] {
            let loader = NotificationLoader(systemZone: .utc, zones: .system, calendarCache: cache)
            let unit = UnitFile(
                parsing: "[Notification]\nTitle=t\n[Trigger]\nOnCalendar=\(event)\n", path: "t.notification")
            return try #require(loader.load(unit, id: "t", path: "t.notification").notification).trigger.calendars
        }
        func same(_ a: [CalendarSpec], _ b: [CalendarSpec]) -> Bool {
            a.withUnsafeBufferPointer { $0.baseAddress } == b.withUnsafeBufferPointer { $0.baseAddress }
        }
        let first = CalendarCache()
        let (daily, weekly) = (try calendars(first, "*-*-* 12:00"), try calendars(first, "Mon 09:00"))
        let second = CalendarCache(previous: first)
        #expect(same(try calendars(second, "*-*-* 12:00"), daily))
        let added = try calendars(second, "Tue 10:00")
        #expect(added.map(\.description) == ["Tue *-*-* 10:00:00"])
        second.letGoOfPrevious()
        let weeklyAgain = try calendars(second, "Mon 09:00")
        #expect(!same(weeklyAgain, weekly) && weeklyAgain == weekly)
        let third = CalendarCache(previous: second)
        #expect(same(try calendars(third, "*-*-* 12:00"), daily))
        #expect(same(try calendars(third, "Tue 10:00"), added))

        // One asked for nothing keeps all the earlier one held.
        third.letGoOfPrevious()
        let unasked = CalendarCache(previous: third)
        unasked.letGoOfPrevious()
        let fourth = CalendarCache(previous: unasked)
        #expect(same(try calendars(fourth, "*-*-* 12:00"), daily))
        #expect(same(try calendars(fourth, "Tue 10:00"), added))
        #expect(!same(try calendars(fourth, "Mon 09:00"), weeklyAgain))
    }

    /// A time of day reads alike in every zone, so notifications with their own `TimeZone=` share the events of
    /// those in the system zone; an event ending in an abbreviation of its zone, or an `@` timestamp, is parsed
    /// per zone, and still fires as without the cache.
    @Test func eventsShareAcrossZonesUnlessTheZoneChangesWhatTheyRead() throws {
        let zones = ZoneDatabase.system
        let berlin = try zones.rules(named: "Europe/Berlin")
        let loader = NotificationLoader(systemZone: berlin, zones: zones, calendarCache: CalendarCache())
        let plain = NotificationLoader(systemZone: berlin, zones: zones)
        func calendars(_ loader: NotificationLoader, _ trigger: String) throws -> [CalendarSpec] {
            let unit = UnitFile(parsing: "[Notification]\nTitle=t\n[Trigger]\n" + trigger, path: "t.notification")
            return try #require(loader.load(unit, id: "t", path: "t.notification").notification).trigger.calendars
        }
        func same(_ a: [CalendarSpec], _ b: [CalendarSpec]) -> Bool {
            a.withUnsafeBufferPointer { $0.baseAddress } == b.withUnsafeBufferPointer { $0.baseAddress }
        }
        let daily = try calendars(loader, "OnCalendar=*-*-* 09:00:00\n")
        #expect(same(try calendars(loader, "OnCalendar=*-*-* 09:00:00\nTimeZone=Asia/Tokyo\n"), daily))
        #expect(same(try calendars(loader, "OnCalendar=*-*-* 09:00:00\nTimeZone=America/New_York\n"), daily))

        for text in ["Mon 09:00 CET", "*-*-* 09:00 EST", "@1796100000"] {
            let inBerlin = try calendars(loader, "OnCalendar=\(text)\n")
            let inNewYork = try calendars(loader, "OnCalendar=\(text)\nTimeZone=America/New_York\n")
            #expect(!same(inBerlin, inNewYork), "\(text)")
            #expect(inBerlin == (try calendars(plain, "OnCalendar=\(text)\n")), "\(text)")
            #expect(
                inNewYork == (try calendars(plain, "OnCalendar=\(text)\nTimeZone=America/New_York\n")), "\(text)")
        }
        // "CET" names Berlin's standard time in Berlin; in New York it is no abbreviation of the zone's.
        #expect(try calendars(loader, "OnCalendar=Mon 09:00 CET\n").map(\.description) == ["Mon *-*-* 09:00:00 CET"])
    }

    /// Notifications with the same long body keep one copy of it; without the table, and past its capacity, each
    /// keeps its own, and every one reads the same.
    @Test func notificationsWithTheSameBodyShareOneCopy() throws {
        func bodies(_ texts: SharedTexts?, count: Int) throws -> [String] {
            var loader = NotificationLoader(systemZone: .utc, zones: .system)
            loader.sharedTexts = texts
            let text = "[Notification]\nTitle=t\nBody=Take the tablets with water\n[Trigger]\nAt=2030-01-01\n"
            return try (0..<count).map { index in
                let unit = UnitFile(parsing: text, path: "\(index)")
                return try #require(loader.load(unit, id: "n\(index)", path: "\(index)").notification).body
            }
        }
        let shared = try bodies(SharedTexts(), count: 4)
        #expect(Set(shared) == ["Take the tablets with water"])
        #expect(Set(shared.map(Self.storage)).count == 1)
        #expect(Set(try bodies(nil, count: 4).map(Self.storage)).count == 4)

        // Past its capacity (one text in each of its sixteen parts), a text is kept as it was read.
        func copy(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }
        let full = SharedTexts(capacity: 16)
        let first = full.shared(copy("a body told once and again"))
        #expect(Self.storage(full.shared(copy("a body told once and again"))) == Self.storage(first))
        for index in 0..<256 { _ = full.shared("a body of its own, number \(index)") }
        let unheld = "a body read once the table is full"
        let (once, again) = (full.shared(copy(unheld)), full.shared(copy(unheld)))
        #expect(Self.storage(once) != Self.storage(again))
        #expect(Self.storage(full.shared(copy("a body told once and again"))) == Self.storage(first))
    }

    /// Where a string's bytes are, to tell copies apart.
    static func storage(_ text: String) -> UnsafeRawPointer? {
        text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    /// An empty `OnCalendar=` drops the events before it, for the cache's key as for the events read: a list kept
    /// for the events after a reset is not given to a notification that has the ones before it too.
    @Test func theCacheKeysEventsAfterTheResetRule() throws {
        let loader = NotificationLoader(systemZone: .utc, zones: .system, calendarCache: CalendarCache())
        func calendars(_ trigger: String) throws -> [CalendarSpec] {
            let unit = UnitFile(parsing: "[Notification]\nTitle=t\n[Trigger]\n" + trigger, path: "t.notification")
            return try #require(loader.load(unit, id: "t", path: "t.notification").notification).trigger.calendars
        }
        let reset = try calendars("OnCalendar=*-*-* 12:00\nOnCalendar=\nOnCalendar=hourly\n")
        #expect(reset.map(\.description) == ["*-*-* *:00:00"])
        let both = try calendars("OnCalendar=*-*-* 12:00\nOnCalendar=hourly\n")
        #expect(both.map(\.description) == ["*-*-* 12:00:00", "*-*-* *:00:00"])
        #expect(try calendars("OnCalendar=hourly\n") == reset)
    }
}

/// The floor on how often one notification may fire (`NotificationLoader.minimumInterval`), at a second (a file's
/// default) and at a minute (an application's request).
struct MinimumIntervalTests {
    static func refusal(_ trigger: String, floor: Duration) -> String? {
        var loader = NotificationLoader(systemZone: .utc, zones: .system)
        loader.minimumInterval = floor
        let text = "[Notification]\nTitle=t\n[Trigger]\n" + trigger
        let result = loader.load(UnitFile(parsing: text, path: "t.notification"), id: "t", path: "t.notification")
        return result.notification == nil ? result.diagnostics.map(\.message).joined(separator: " | ") : nil
    }

    @Test(arguments: [
        ("Every=1s", true, false), ("Every=999ms", false, false), ("Every=59s", true, false),
        ("Every=1min", true, true),
        ("OnCalendar=*:*:*", true, false), ("OnCalendar=*:*:0/0.000001", false, false),
        ("OnCalendar=*:*:0.5", false, false), ("OnCalendar=*:*:0/30", true, false), ("OnCalendar=*:*:30", true, true),
        ("OnCalendar=minutely", true, true), ("OnCalendar=*:*:10\nOnCalendar=hourly", true, false),
        ("OnCalendar=*:*:10\nOnCalendar=*:0/5:10", true, true), ("OnCalendar=*:*:10..12", true, false),
        ("RRule=FREQ=SECONDLY\nFrom=2026-12-01", true, false),
        ("RRule=FREQ=SECONDLY;INTERVAL=60\nFrom=2026-12-01", true, true),
        ("RRule=FREQ=MINUTELY;BYSECOND=0,30\nFrom=2026-12-01", true, false),
        ("RRule=FREQ=MINUTELY;BYSECOND=15\nFrom=2026-12-01", true, true),
        ("At=2026-12-01\nAt=2026-12-01 00:00:00.5", true, true),
    ])
    func aTriggerFiringMoreOftenThanTheFloorIsRefused(trigger: String, takenAtASecond: Bool, takenAtAMinute: Bool) {
        #expect((Self.refusal(trigger, floor: .seconds(1)) == nil) == takenAtASecond)
        #expect((Self.refusal(trigger, floor: .seconds(60)) == nil) == takenAtAMinute)
        #expect(Self.refusal(trigger, floor: .zero) == nil)
    }
}
