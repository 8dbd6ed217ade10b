import Foundation

/// The one way paths are put together and taken apart in the library (plain strings, as
/// the user typed them, so that messages show the path they gave).
enum FilePath {
    /// `name` inside `folder`: one slash between, and `name` alone for "" or ".".
    static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty || folder == "." { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The folder a path is in: "." for a bare name, "/" for a file at the root.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The one "same file" rule: the absolute path with `.`, `..`, doubled slashes and
    /// symbolic links resolved, so two spellings of one file compare equal.
    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
