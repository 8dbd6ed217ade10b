import Foundation

/// Every file `margin report` generates for a rate-card folder: a Markdown report and an
/// SVG chart per card version (all versions, not only the newest), and `index.md`.
///
/// The set is computed in memory, so it can be compared with a folder (`--check`) or
/// written to it. Every generated file starts with `CardReport.generatedMarker`; only
/// files carrying it are ever replaced or removed.
struct ReportSet: Sendable {
    /// One generated file: its name inside the reports folder and its exact bytes.
    struct File: Sendable, Hashable {
        let name: String
        let bytes: [UInt8]
    }

    /// What is wrong with a reports folder.
    struct Finding: Sendable, Hashable, Comparable {
        enum Kind: String, Sendable, Hashable {
            /// The file exists but differs from what the cards give.
            case stale
            /// The file should exist and does not.
            case missing
            /// A generated file no card gives any more.
            case unexpected
        }

        let name: String
        let kind: Kind

        static func < (lhs: Finding, rhs: Finding) -> Bool { lhs.name < rhs.name }

        /// The compiler-style diagnostic for `directory/name`.
        func diagnostic(directory: String) -> Diagnostic {
            let message =
                switch kind {
                case .stale: "report is stale; run 'margin report'"
                case .missing: "report is missing; run 'margin report'"
                case .unexpected:
                    "generated report has no card any more; run 'margin report' to remove it"
                }
            return Diagnostic(
                path: FilePath.join(directory, name), message: message,
                rule: .report(kind))
        }
    }

    /// What a write did, by file name.
    struct WriteResult: Sendable, Hashable {
        var written: [String] = []
        var unchanged: [String] = []
        var removed: [String] = []
    }

    let reports: [CardReport]
    /// Every generated file, sorted by name.
    let files: [File]

    /// Reports for every card of `repository`, read from `cardsDirectory`.
    init(repository: CardRepository, cardsDirectory: String) throws(ReportError) {
        let paths = ReportPaths(cardsDirectory: cardsDirectory)
        var reports: [CardReport] = []
        var files: [File] = []
        for card in repository.cards {
            let report = try CardReport(card: card, repository: repository, paths: paths)
            reports.append(report)
            files.append(File(name: report.markdownName, bytes: Array(report.markdown().utf8)))
            files.append(File(name: report.chartName, bytes: Array(try report.chartSVG().utf8)))
            if let svg = try report.storefrontChartSVG() {
                files.append(File(name: report.storefrontChartName, bytes: Array(svg.utf8)))
            }
        }
        let proceeds = try Self.proceedsFiles(
            repository: repository, cardsDirectory: cardsDirectory)
        files += proceeds
        files.append(
            File(
                name: "index.md",
                bytes: Array(
                    ReportSet.index(reports, paths: paths, proceeds: proceeds.map(\.name)).utf8)))
        self.reports = reports
        self.files = files.sorted { $0.name < $1.name }
    }

    /// How `directory` differs from this set: stale, missing and unexpected generated files.
    /// Reads only; a missing folder means every file is missing.
    func findings(in directory: String) -> [Finding] {
        var out: [Finding] = []
        for f in files {
            guard let data = FileManager.default.contents(atPath: FilePath.join(directory, f.name))
            else {
                out.append(Finding(name: f.name, kind: .missing))
                continue
            }
            if Array(data) != f.bytes { out.append(Finding(name: f.name, kind: .stale)) }
        }
        let expected = Set(files.map(\.name))
        for name in ReportSet.generatedFiles(in: directory) where !expected.contains(name) {
            out.append(Finding(name: name, kind: .unexpected))
        }
        return out.sorted()
    }

    /// Writes every file whose bytes differ (atomically, one by one) and removes generated
    /// files no card gives any more. Files without the generated marker are never touched.
    func write(to directory: String) throws(WriteError) -> WriteResult {
        var result = WriteResult()
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .folder(path: directory, reason: "\(error.localizedDescription)")
        }
        for f in files {
            let path = FilePath.join(directory, f.name)
            if let data = FileManager.default.contents(atPath: path), Array(data) == f.bytes {
                result.unchanged.append(f.name)
                continue
            }
            do { try AtomicFile.write(f.bytes, to: path) } catch { throw .file(error) }
            result.written.append(f.name)
        }
        let expected = Set(files.map(\.name))
        for name in ReportSet.generatedFiles(in: directory) where !expected.contains(name) {
            let path = FilePath.join(directory, name)
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw .remove(path: path, reason: "\(error.localizedDescription)")
            }
            result.removed.append(name)
        }
        return result
    }

    /// Why the reports folder could not be brought up to date. Files written before the
    /// failure are complete (each write is atomic).
    enum WriteError: DiagnosedError, Sendable, Hashable, CustomStringConvertible {
        case folder(path: String, reason: String)
        case file(AtomicFileError)
        case remove(path: String, reason: String)

        var description: String {
            switch self {
            case .folder(let path, let reason):
                "cannot create the reports folder '\(path)': \(reason)"
            case .file(let error): error.description
            case .remove(let path, let reason):
                "cannot remove the outdated generated report '\(path)': \(reason)"
            }
        }

        var diagnostics: [Diagnostic] { [] }
        var summary: String? { description }
        var failureClass: FailureClass { .unreadable }
    }

    /// Names of the `.md` and `.svg` files directly in `directory` that carry the
    /// generated marker near their start, sorted.
    static func generatedFiles(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { name in
            guard (name.hasSuffix(".md") || name.hasSuffix(".svg")) && !name.hasPrefix(".") else {
                return false
            }
            guard let handle = FileHandle(forReadingAtPath: FilePath.join(directory, name)) else {
                return false
            }
            defer { try? handle.close() }
            let head = (try? handle.read(upToCount: 512)) ?? Data()
            return String(decoding: head, as: UTF8.self).contains(CardReport.generatedMarker)
        }.sorted()
    }
}
