// The Objective-C names of the iOS SDK (`EGW` prefix). Linux has no
// Objective-C runtime; these aliases let code written against either name
// read the same.

/// ``PaymentKit``.
public typealias EGWPaymentKit = PaymentKit
/// ``Configuration``.
public typealias EGWConfiguration = Configuration
/// ``Configuration/Environment-swift.struct``.
public typealias EGWEnvironment = Configuration.Environment
/// ``PaymentRequest``.
public typealias EGWPaymentRequest = PaymentRequest
/// ``PaymentRequest/MethodHint``.
public typealias EGWPaymentMethodHint = PaymentRequest.MethodHint
/// ``CardPaymentRequest``.
public typealias EGWCardPaymentRequest = CardPaymentRequest
/// ``PaymentResult``.
public typealias EGWPaymentResult = PaymentResult
/// ``PaymentStatusResolving``.
public typealias EGWPaymentStatusResolving = PaymentStatusResolving
/// ``PaymentDelegate``.
public typealias EGWPaymentDelegate = PaymentDelegate
/// ``PaymentError``.
public typealias EGWPaymentError = PaymentError
/// ``PaymentError/Code``.
public typealias EGWPaymentErrorCode = PaymentError.Code
/// ``PaymentPresenter``.
public typealias EGWPaymentPresenter = PaymentPresenter
/// ``PageRequest``.
public typealias EGWPageRequest = PageRequest
/// ``PageEventHandler``.
public typealias EGWPageEventHandler = PageEventHandler
/// ``NavigationDecision``.
public typealias EGWNavigationDecision = NavigationDecision
/// ``LogLevel``.
public typealias EGWLogLevel = LogLevel
/// ``LogRecord``.
public typealias EGWLogRecord = LogRecord
/// ``PaymentEvent``.
public typealias EGWPaymentEvent = PaymentEvent
/// ``PaymentStep``.
public typealias EGWPaymentStep = PaymentStep
/// ``StepDecision``.
public typealias EGWStepDecision = StepDecision
/// ``HTTPTransport``.
public typealias EGWHTTPTransport = HTTPTransport
/// ``PaymentFlowKind``.
public typealias EGWPaymentFlowKind = PaymentFlowKind
/// ``PaymentTransition``.
public typealias EGWPaymentTransition = PaymentTransition
/// ``HTTPExchange``.
public typealias EGWHTTPExchange = HTTPExchange
/// ``PaymentPageEvent``.
public typealias EGWPaymentPageEvent = PaymentPageEvent
/// ``HTTPRequest``.
public typealias EGWHTTPRequest = HTTPRequest
/// ``HTTPResponse``.
public typealias EGWHTTPResponse = HTTPResponse
/// ``HTTPHeader``.
public typealias EGWHTTPHeader = HTTPHeader
/// ``TransportError``.
public typealias EGWTransportError = TransportError
/// ``PaymentObserver``.
public typealias EGWPaymentObserver = PaymentObserver
/// ``PaymentStepGate``.
public typealias EGWPaymentStepGate = PaymentStepGate
/// ``PaymentLogSink``.
public typealias EGWPaymentLogSink = PaymentLogSink
