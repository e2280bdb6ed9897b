// The seeds' names for the three card fields (seed 000: UIKit's `CardNumberTextField`,
// `CardExpiryTextField`, `CardSecurityCodeTextField`). On GTK they are entries; each alias is the
// same type, so code written with either name compiles against the other and nothing else changes.

/// Seed 000's name for ``CardNumberEntry``: the same type.
public typealias CardNumberTextField = CardNumberEntry
/// Seed 000's name for ``CardExpiryEntry``: the same type.
public typealias CardExpiryTextField = CardExpiryEntry
/// Seed 000's name for ``CardSecurityCodeEntry``: the same type.
public typealias CardSecurityCodeTextField = CardSecurityCodeEntry
