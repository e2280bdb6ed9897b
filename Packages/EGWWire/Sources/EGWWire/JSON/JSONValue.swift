/// A JSON value as ``StrictJSONParser`` returns it. Objects keep their members in order; numbers keep their
/// text (the caller decides what precision it needs).
public enum JSONValue: Sendable, Equatable {
    /// An object, members in document order; names are unique.
    case object([JSONMember])
    /// An array.
    case array([JSONValue])
    /// A string, escapes decoded.
    case string(String)
    /// A number, as written in the document (`-0.5e3`).
    case number(String)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// The string when `self` is a string; nil for every other value.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The value of member `name` when `self` is an object; nil otherwise or when there is no such member.
    /// Names match scalar by scalar, as the parser tells them apart (U+212A KELVIN SIGN is not "K").
    public subscript(member name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { JSONMember.namesMatch($0.name, name) }?.value
    }
}

/// One member of a JSON object.
public struct JSONMember: Sendable, Equatable {
    /// The member name, escapes decoded.
    public var name: String
    /// The member value.
    public var value: JSONValue

    /// A member named `name` holding `value`.
    public init(name: String, value: JSONValue) {
        self.name = name
        self.value = value
    }

    /// Whether two member names are the same name, as the strict parser tells them apart: scalar by
    /// scalar (RFC 8259 section 8.3), not by `String`'s canonical equivalence, so U+212A KELVIN SIGN
    /// is not "K". Every lookup or update of a member by name compares with this.
    public static func namesMatch(_ first: String, _ second: String) -> Bool {
        first.unicodeScalars.elementsEqual(second.unicodeScalars)
    }
}

/// Why a text is not strict JSON: a code to compare, the byte offset where the fault is, and a reason.
///
/// The reason never repeats text from the document (a duplicate member's name may be anything): the
/// offset says where to look, and ``duplicateName`` holds the decoded name for a caller that escapes it.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of fault; compare codes, not reasons.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable name for logs.
        public let description: String
        private init(_ description: String) { self.description = description }

        /// A byte sequence that is not UTF-8 (offset: the first byte of the sequence).
        public static let invalidUTF8 = Code("invalidUTF8")
        /// The text ends inside a value (offset: the end).
        public static let unexpectedEnd = Code("unexpectedEnd")
        /// A byte that cannot start or continue the value here.
        public static let unexpectedCharacter = Code("unexpectedCharacter")
        /// Bytes after the one top-level value.
        public static let trailingBytes = Code("trailingBytes")
        /// Objects and arrays nested deeper than the limit (offset: the opening bracket over the limit).
        public static let tooDeep = Code("tooDeep")
        /// A member name seen earlier in the same object, compared after unescaping (offset: its quote).
        public static let duplicateMember = Code("duplicateMember")
        /// A number that does not follow RFC 8259's grammar.
        public static let invalidNumber = Code("invalidNumber")
        /// A number with a leading zero, such as `01` or `-00` (offset: the digit after the zero).
        public static let leadingZero = Code("leadingZero")
        /// A raw control character (U+0000 to U+001F) inside a string.
        public static let controlCharacter = Code("controlCharacter")
        /// A backslash escape JSON does not define, or a `\u` without four hex digits.
        public static let invalidEscape = Code("invalidEscape")
        /// A `\u` escape of half a surrogate pair.
        public static let loneSurrogate = Code("loneSurrogate")
    }

    /// What kind of fault.
    public var code: Code
    /// The byte offset of the fault in the parsed text.
    public var offset: Int
    /// What is wrong, for a developer.
    public var reason: String
    /// For ``Code/duplicateMember``, the decoded member name, untrusted: escape it before it reaches a log
    /// or a terminal. Nil for every other code.
    public var duplicateName: String?

    /// A fault of kind `code` at byte `offset`.
    public init(_ code: Code, _ reason: String, offset: Int, duplicateName: String? = nil) {
        self.code = code
        self.reason = reason
        self.offset = offset
        self.duplicateName = duplicateName
    }

    /// `reason at byte offset`.
    public var description: String { "\(reason) at byte \(offset)" }
}
