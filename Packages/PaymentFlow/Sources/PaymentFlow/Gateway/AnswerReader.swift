internal import EGWWire
import Foundation

/// A gateway answer read as strictly as the key set: one strict parse (EGWWire's), so a duplicated
/// member anywhere refuses the whole answer instead of letting a parser pick one of the two; required
/// members present and of their type; an optional member that is `null` is absent; unknown members
/// ignored. Every refusal is an `invalidResponse` error naming the member.
struct AnswerReader {
    private let members: JSONValue
    private let path: String
    private let source: String

    private init(_ members: JSONValue, path: String, source: String) {
        self.members = members
        self.path = path
        self.source = source
    }

    /// The answer's body as a JSON object.
    static func parse(_ response: HTTPResponse, source: String) throws(FlowError) -> AnswerReader {
        guard let value = try? StrictJSONParser.parse(response.body), case .object = value else {
            throw FlowError(.invalidResponse, "the response is not the JSON expected", source: source)
        }
        return AnswerReader(value, path: "", source: source)
    }

    private func missing(_ name: String) -> FlowError {
        FlowError(.invalidResponse, "the response lacks the required field \"\(path + name)\"", source: source)
    }

    private func wrongType(_ name: String) -> FlowError {
        FlowError(.invalidResponse, "the response field \"\(path + name)\" has the wrong type", source: source)
    }

    /// The required string member `name`.
    func string(_ name: String) throws(FlowError) -> String {
        guard let value = members[member: name] else { throw missing(name) }
        guard case .string(let text) = value else { throw wrongType(name) }
        return text
    }

    /// The string member `name`, or nil when it is absent or `null`.
    func optionalString(_ name: String) throws(FlowError) -> String? {
        switch members[member: name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case .object?, .array?, .number?, .bool?: throw wrongType(name)
        }
    }

    /// The object member `name`, or nil when it is absent or `null`.
    func optionalObject(_ name: String) throws(FlowError) -> AnswerReader? {
        switch members[member: name] {
        case nil, .null?: return nil
        case .object(let inner)?: return AnswerReader(.object(inner), path: path + name + ".", source: source)
        case .string?, .array?, .number?, .bool?: throw wrongType(name)
        }
    }

    /// The raw member `name`, unchecked (for a member read leniently).
    func member(_ name: String) -> JSONValue? { members[member: name] }

    /// The required object member `name`.
    func object(_ name: String) throws(FlowError) -> AnswerReader {
        guard members[member: name] != nil else { throw missing(name) }
        guard let inner = try optionalObject(name) else { throw wrongType(name) }
        return inner
    }
}
