// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

class QThread;

namespace dice {

namespace detail {
struct JobShared;
}

// One request to an OwnerThread, seen from the thread that made it (the GUI thread): its
// signals arrive there, in order. done() is the last of them and comes exactly once, however the
// request ended (finished, failed, cancelled or superseded); the job deletes itself after it, so
// whoever wants to look at it later holds it in a QPointer. The background owners derive their
// jobs from this one and add the signals their work delivers.
class Job : public QObject {
    Q_OBJECT
public:
    explicit Job(QObject* parent = nullptr);
    // A job deleted before it is done is cancelled: nobody is left to want its results.
    ~Job() override;

    bool isStarted() const { return m_started; }
    bool isDone() const { return m_done; }
    // A newer request with the same tag came before this one started, so it never ran.
    bool isSuperseded() const;
    // Asked to stop: by cancel(), by a newer request with the same tag while it ran, or by the
    // end of its thread.
    bool isCancelled() const;
    // A request that has not started never runs; work in flight stops early where it watches its
    // cancel flag, and whatever it would still deliver is dropped where it cannot.
    void cancel();

Q_SIGNALS:
    void started();
    void done();

private:
    friend class OwnerThread;
    std::shared_ptr<detail::JobShared> m_shared;
    bool m_started = false;
    bool m_done = false;
};

// One thread owned by one object (the model's session, the evaluator with its worker process,
// the compiler): work is queued to it and runs there in order, one request at a time, never on
// the GUI thread. A request may carry a tag; a newer request with the same tag supersedes every
// older one that has not started (it never runs, and only its done() arrives) and cancels the
// one in flight. Results reach the GUI thread through the request's Job, only while the job
// exists and its results are wanted. The destructor cancels everything not done, waits for the
// work in flight to return, runs the chores still queued, and delivers nothing more.
class OwnerThread : public QObject {
    Q_OBJECT
public:
    // What cancelling does to work in flight.
    enum class InFlight {
        Stops,   // the work watches its cancel flag, stops early and still reports what it did
        Dropped, // the work runs to its end; whatever it delivers from then on is dropped
    };

    // What the work of one request sees, on the owner thread.
    class Context {
    public:
        // Raised when the request is cancelled; for core calls that take a cancel flag.
        const std::atomic<bool>* cancelFlag() const;
        bool cancelled() const { return cancelFlag()->load(); }
        // Runs fn on the job's thread, unless by then the job is gone or its results are no
        // longer wanted.
        void deliver(std::function<void()> fn) const;

    private:
        friend class OwnerThread;
        Context(OwnerThread* owner, std::shared_ptr<detail::JobShared> shared);
        OwnerThread* m_owner;
        std::shared_ptr<detail::JobShared> m_shared;
    };
    using Work = std::function<void(const Context&)>;

    explicit OwnerThread(const QString& name, QObject* parent = nullptr);
    ~OwnerThread() override;

    // Queues work for job, which this object then owns. An empty tag supersedes nothing.
    void post(Job* job, const QString& tag, InFlight inFlight, Work work);
    // Queues a chore that belongs on this thread, such as releasing what lives there: it has no
    // job and delivers nothing, and it runs even when this object is being destroyed.
    void post(std::function<void()> chore);
    // Cancels every request with this tag that is not done.
    void cancel(const QString& tag);
    // Some request is not done yet.
    bool busy() const { return !m_live.empty(); }

private:
    void enqueue(std::function<void()> item);
    void run();
    void begin(const std::shared_ptr<detail::JobShared>& shared);
    void finish(const std::shared_ptr<detail::JobShared>& shared);

    std::unique_ptr<QThread> m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_queue; // guarded by m_mutex
    bool m_stopping = false;                   // guarded by m_mutex
    // The requests not done yet, in the order they were posted; GUI thread only.
    std::vector<std::shared_ptr<detail::JobShared>> m_live;
};

} // namespace dice
