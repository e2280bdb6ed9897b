internal import CPSL

/// The Public Suffix List, through the system's libpsl (the library libcurl itself uses): the newest of the
/// list compiled into libpsl and the one the system's `publicsuffix` package keeps up to date. Its ICANN and
/// private sections both count, and an unlisted top-level name is a public suffix (the list's `*` rule), as
/// browsers have it.
enum PublicSuffixList {
    /// libpsl's context, loaded once, read-only after that (libpsl's lookups are then thread-safe).
    private final class Context: @unchecked Sendable {
        let pointer: OpaquePointer?
        init() {
            if let latest = psl_latest(nil) {
                pointer = latest
            } else {
                pointer = psl_builtin()
            }
        }
    }

    private static let context = Context()

    /// Whether `domain` (lower case, no trailing dot) is a public suffix, such as `com`, `co.uk` or `github.io`.
    /// With no list available every name is treated as one, so no cookie widens past its host.
    static func isPublicSuffix(_ domain: String) -> Bool {
        guard let pointer = context.pointer else { return true }
        return psl_is_public_suffix(pointer, domain) != 0
    }
}
