/// How much the shell prints while a payment runs.
///
/// - ``quiet`` (`-q`): results only (the outcome, acknowledgements, questions it must ask).
/// - ``normal``: each transition, step and page, and one line per HTTP exchange
///   (method, path, status, time).
/// - ``verbose`` (`-v`, `config set verbose on`): the redacted request and response
///   bodies and the JWE protected header of each exchange, and the full URLs.
public enum Verbosity: Int, Sendable, Comparable, CaseIterable {
    /// Results only.
    case quiet
    /// Transitions and one line per exchange.
    case normal
    /// Everything, redacted.
    case verbose

    /// Orders by how much is shown.
    public static func < (lhs: Verbosity, rhs: Verbosity) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
