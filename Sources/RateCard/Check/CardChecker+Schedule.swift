/// The rule over provider sheets' time-of-day schedules.
extension CardChecker {
    /// `period-never-in-force`: a multiplier whose period no instant of the week can be in
    /// (the default when the windows cover the whole week, a period whose only windows have
    /// no days or are covered by earlier ones, a name no window uses). The worst case never
    /// prices it, so the multiplier is at best dead data and at worst a mistake: a warning.
    static func scheduleFindings(_ sheet: ProviderSheet, path: String) -> [Diagnostic] {
        guard let schedule = sheet.schedule else { return [] }
        return schedule.periodsNeverInForce.map { item in
            let location =
                item.period == schedule.defaultPeriod
                ? schedule.defaultLocation
                : (schedule.multiplierLocations[item.period] ?? sheet.source.location)
            let multiplier = schedule.multipliers[item.period].map { " (multiplier \($0))" } ?? ""
            return Diagnostic(
                path: path, location: location, severity: .warning,
                message:
                    "provider \(sheet.id): schedule period \"\(item.period)\"\(multiplier) is never in force: \(item.reason); the worst case does not price it",
                rule: .check(.periodNeverInForce))
        }
    }
}
