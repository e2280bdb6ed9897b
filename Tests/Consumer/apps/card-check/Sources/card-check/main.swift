import CardValidation

// The README's sample, as an app writes it.
let card = CardInput()
card.cardholderName = "Jane Doe"
card.cardNumber = "4242 4242 4242 4242"
card.expiryMonth = "12"
card.expiryYear = "35"
card.securityCode = "737"
print("valid: \(card.isValid), brand: \(card.brand)")
