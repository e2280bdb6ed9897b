// The iOS SDK's Objective-C names (`EGW` prefix). Objective-C has no runtime
// on Linux; these aliases let code written against either name read the same.

/// The Objective-C name of ``CardBrand``.
public typealias EGWCardBrand = CardBrand
/// The Objective-C-style name of ``IINRange``.
public typealias EGWIINRange = IINRange
/// The Objective-C-style name of ``CardNumber``.
public typealias EGWCardNumber = CardNumber
/// The Objective-C name of ``CardField``.
public typealias EGWCardField = CardField
/// The Objective-C-style name of ``FieldState``.
public typealias EGWFieldState = FieldState
/// The Objective-C-style name of ``CardValidationIssue``.
public typealias EGWCardValidationIssue = CardValidationIssue
/// The Objective-C-style name of ``CardClock``.
public typealias EGWCardClock = CardClock
/// The Objective-C name of ``CardInput``.
public typealias EGWCardInput = CardInput
/// The Objective-C-style name of ``EditOutcome``.
public typealias EGWEditOutcome = EditOutcome
/// The Objective-C-style name of ``CardTextEditor``.
public typealias EGWCardTextEditor = CardTextEditor
/// The Objective-C-style name of ``CardNumberEditor`` (the headless
/// counterpart of iOS's `EGWCardNumberTextField`).
public typealias EGWCardNumberEditor = CardNumberEditor
/// The Objective-C-style name of ``CardExpiryEditor`` (the headless
/// counterpart of iOS's `EGWCardExpiryTextField`).
public typealias EGWCardExpiryEditor = CardExpiryEditor
/// The Objective-C-style name of ``CardSecurityCodeEditor`` (the headless
/// counterpart of iOS's `EGWCardSecurityCodeTextField`).
public typealias EGWCardSecurityCodeEditor = CardSecurityCodeEditor
/// The Objective-C-style name of ``CardNumberRedaction``.
public typealias EGWCardNumberRedaction = CardNumberRedaction
