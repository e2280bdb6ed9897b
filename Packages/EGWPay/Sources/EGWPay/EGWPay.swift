// The seeds' module: one import for an app that pays (seed 000, `import EGWPay`). PaymentFlow brings
// CardValidation and StatusMapping with it, so `CardInput`, `PaymentOutcome` and `PaymentKit` are all here.
@_exported import PaymentFlow
