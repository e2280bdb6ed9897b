import PaymentFlow
import XCTest

@testable import WebKitPresenter

final class PageLifecycleTests: XCTestCase {
    func testPlaceholder() {}
}
