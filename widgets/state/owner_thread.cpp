// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/owner_thread.h"

#include <QMetaObject>
#include <QPointer>
#include <QThread>

#include <algorithm>

namespace dice {

namespace detail {

// What the owner thread and the GUI thread share about one request. The state decides, in one
// atomic step, whether the request starts or is skipped, so a request superseded or cancelled
// at the moment the owner thread takes it up either runs or does not, never half.
struct JobShared {
    enum State : int { Waiting, Running, Ended, Skipped };

    std::atomic<int> state{Waiting};
    std::atomic<bool> cancel{false};
    OwnerThread::InFlight inFlight = OwnerThread::InFlight::Stops;
    OwnerThread::Work work; // the owner thread's once posted; released there

    // GUI thread only.
    QPointer<Job> job;
    QString tag;
    bool superseded = false;

    bool wanted() const {
        return job && !(inFlight == OwnerThread::InFlight::Dropped && cancel.load());
    }

    // Returns true when the request had not started (and now never will).
    bool stop() {
        cancel = true;
        int expected = Waiting;
        return state.compare_exchange_strong(expected, Skipped);
    }
};

} // namespace detail

using detail::JobShared;

Job::Job(QObject* parent)
    : QObject(parent) {}

Job::~Job() {
    if (m_shared && !m_done)
        m_shared->stop();
}

bool Job::isSuperseded() const {
    return m_shared && m_shared->superseded;
}

bool Job::isCancelled() const {
    return m_shared && m_shared->cancel.load();
}

void Job::cancel() {
    if (m_shared && !m_done)
        m_shared->stop();
}

OwnerThread::Context::Context(OwnerThread* owner, std::shared_ptr<JobShared> shared)
    : m_owner(owner)
    , m_shared(std::move(shared)) {}

const std::atomic<bool>* OwnerThread::Context::cancelFlag() const {
    return &m_shared->cancel;
}

void OwnerThread::Context::deliver(std::function<void()> fn) const {
    // Queued to the owner object, which outlives the thread: the job may be gone by then.
    QMetaObject::invokeMethod(
        m_owner,
        [shared = m_shared, fn = std::move(fn)] {
            if (shared->wanted())
                fn();
        },
        Qt::QueuedConnection);
}

OwnerThread::OwnerThread(const QString& name, QObject* parent)
    : QObject(parent) {
    m_thread.reset(QThread::create([this] { run(); }));
    m_thread->setObjectName(name);
    m_thread->start();
}

OwnerThread::~OwnerThread() {
    for (const auto& shared : m_live)
        shared->stop();
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread->wait();
}

void OwnerThread::enqueue(std::function<void()> item) {
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_queue.push_back(std::move(item));
    }
    m_wake.notify_one();
}

void OwnerThread::post(Job* job, const QString& tag, InFlight inFlight, Work work) {
    auto shared = std::make_shared<JobShared>();
    shared->inFlight = inFlight;
    shared->work = std::move(work);
    shared->job = job;
    shared->tag = tag;
    if (!tag.isEmpty()) {
        for (const auto& older : m_live)
            if (older->tag == tag && older->stop())
                older->superseded = true;
    }
    job->setParent(this);
    job->m_shared = shared;
    m_live.push_back(shared);
    enqueue([this, shared] { begin(shared); });
}

void OwnerThread::post(std::function<void()> chore) {
    enqueue(std::move(chore));
}

void OwnerThread::cancel(const QString& tag) {
    for (const auto& shared : m_live)
        if (shared->tag == tag)
            shared->stop();
}

void OwnerThread::run() {
    for (;;) {
        std::function<void()> next;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            if (m_queue.empty())
                return;
            next = std::move(m_queue.front());
            m_queue.pop_front();
        }
        next();
    }
}

void OwnerThread::begin(const std::shared_ptr<JobShared>& shared) {
    int expected = JobShared::Waiting;
    if (shared->state.compare_exchange_strong(expected, JobShared::Running)) {
        const Context context(this, shared);
        context.deliver([shared] {
            shared->job->m_started = true;
            Q_EMIT shared->job->started();
        });
        shared->work(context);
        shared->state = JobShared::Ended;
    }
    // What the work holds (a model session, say) is released here, on its own thread.
    shared->work = nullptr;
    QMetaObject::invokeMethod(
        this, [this, shared] { finish(shared); }, Qt::QueuedConnection);
}

void OwnerThread::finish(const std::shared_ptr<JobShared>& shared) {
    m_live.erase(std::remove(m_live.begin(), m_live.end(), shared), m_live.end());
    Job* job = shared->job;
    if (!job)
        return;
    job->m_done = true;
    Q_EMIT job->done();
    job->deleteLater();
}

} // namespace dice
