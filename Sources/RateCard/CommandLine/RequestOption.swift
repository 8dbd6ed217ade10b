/// An option of a command together with what it sets in the command's request, so that an
/// option is declared once, beside the request it fills: adding one is one line in the
/// request's `options`. The parser is built from the same list (`ArgumentParser(_:)`).
public struct RequestOption<Request>: Sendable {
    public let option: ArgumentParser.Option
    /// Reads the option from the command line into the request; nothing for an option the
    /// command reads itself (`--format`, `--quiet`) or that another option's reader uses.
    let apply: @Sendable (inout Request, ParsedArguments) throws -> Void

    init(
        _ option: ArgumentParser.Option,
        apply: @escaping @Sendable (inout Request, ParsedArguments) throws -> Void = { _, _ in }
    ) {
        self.option = option
        self.apply = apply
    }

    /// `--name VALUE`, a value that parses itself (`OptionValue`), into `field`.
    static func value<T: OptionValue>(
        _ name: String, _ placeholder: String, help: String,
        _ field: WritableKeyPath<Request, T?> & Sendable
    ) -> Self {
        Self(.init(name, value: placeholder, help: help)) { request, args throws(UsageError) in
            request[keyPath: field] = try args.value(name, as: T.self)
        }
    }

    /// `--name TEXT`, taken as it is, into `field`.
    static func text(
        _ name: String, _ placeholder: String, help: String,
        _ field: WritableKeyPath<Request, String?> & Sendable
    ) -> Self {
        Self(.init(name, value: placeholder, help: help)) { request, args in
            request[keyPath: field] = args.value(name)
        }
    }

    /// `--name`, a flag, into `field`.
    static func flag(
        _ name: String, help: String, _ field: WritableKeyPath<Request, Bool> & Sendable
    ) -> Self {
        Self(.init(name, help: help)) { request, args in request[keyPath: field] = args.flag(name) }
    }
}

extension ArgumentParser {
    /// The parser of a command whose options are `options`, in their order.
    init<Request>(_ options: [RequestOption<Request>]) {
        self.init(options.map(\.option))
    }
}

extension Array {
    /// Every option of the list read into `request`, in the list's order.
    func apply<Request>(_ args: ParsedArguments, to request: inout Request) throws
    where Element == RequestOption<Request> {
        for o in self { try o.apply(&request, args) }
    }
}
