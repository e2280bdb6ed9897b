// An app imports one module: the outcome type (and, once the card packages
// are linked, the card model) come with PaymentFlow.
@_exported import StatusMapping
