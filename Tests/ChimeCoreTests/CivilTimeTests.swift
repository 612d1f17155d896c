import Testing

@testable import ChimeCore

@Suite struct CivilTimeTests {
    @Test(arguments: [
        (1970, 1, 1, 0), (2000, 3, 1, 11_017), (2026, 11, 30, 20_787), (1969, 12, 31, -1), (2024, 2, 29, 19_782),
    ])
    func daysRoundTrip(year: Int, month: Int, day: Int, days: Int) {
        #expect(CivilTime.days(year: year, month: month, day: day) == days)
        let back = CivilTime.date(days: days)
        #expect(back.year == year && back.month == month && back.day == day)
    }

    @Test func dayZeroIsLastDayOfPreviousMonth() {
        #expect(CivilTime.days(year: 2026, month: 3, day: 0) == CivilTime.days(year: 2026, month: 2, day: 28))
    }

    @Test func weekdayOfEpochIsThursday() {
        #expect(CivilTime.weekday(days: 0) == 4)
        #expect(CivilTime.weekday(days: -1) == 3)
        #expect(CivilTime.weekday(days: 20_787) == 1)  // Mon 2026-11-30
    }
}
