import Foundation

/// A small bounded pool of threads that run blocking transfers
/// (`curl_easy_perform`) off the caller's thread.
///
/// At most `maxThreads` jobs run at once; further jobs wait in FIFO order
/// without holding a thread. Threads are started on demand and exit after
/// `idleTimeout` seconds without work, so an idle process holds none.
final class TransferPool: @unchecked Sendable {
    /// The pool every `CurlTransport` shares (16 concurrent transfers).
    static let shared = TransferPool(maxThreads: 16, idleTimeout: 10)

    private let maxThreads: Int
    private let idleTimeout: TimeInterval
    // Everything below is guarded by `condition`.
    private let condition = NSCondition()
    /// Queued jobs; a slot is emptied when its job is taken, so a finished job (and what it
    /// captured: a request, a kit's connection cache) is not kept alive by the queue.
    private var jobs: [(@Sendable () -> Void)?] = []
    private var jobsHead = 0
    private var threadCount = 0
    private var idleCount = 0

    init(maxThreads: Int, idleTimeout: TimeInterval) {
        self.maxThreads = max(1, maxThreads)
        self.idleTimeout = idleTimeout
    }

    /// Queues `job`; it runs on a pool thread, never on the caller's.
    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let pending = jobs.count - jobsHead
        if idleCount >= pending {
            condition.signal()
        } else if threadCount < maxThreads {
            threadCount += 1
            let thread = Thread { [self] in self.work() }
            thread.name = "egw.transfer"
            thread.start()
        } else {
            condition.signal()
        }
        condition.unlock()
    }

    private func nextJobLocked() -> (@Sendable () -> Void)? {
        guard jobsHead < jobs.count else { return nil }
        let job = jobs[jobsHead]
        jobs[jobsHead] = nil
        jobsHead += 1
        if jobsHead > 64 && jobsHead * 2 > jobs.count {
            jobs.removeFirst(jobsHead)
            jobsHead = 0
        }
        return job
    }

    private func work() {
        condition.lock()
        while true {
            if let job = nextJobLocked() {
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            idleCount += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleTimeout))
            idleCount -= 1
            if !signalled && jobsHead >= jobs.count {
                threadCount -= 1
                condition.unlock()
                return
            }
        }
    }
}
