// SPDX-License-Identifier: GPL-3.0-or-later
// The owner thread under the model, the evaluator and the compiler, on its own: work runs off the
// GUI thread in the order it was posted, what it delivers arrives on the GUI thread, a newer
// request with the same tag supersedes the older ones, and destroying the owner while work runs
// stops it and delivers nothing more.
#include "widgets/state/owner_thread.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QThread>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace {

// Work that waits until it is cancelled (or, should cancelling not work, for 30 s).
void waitForCancel(const dice::OwnerThread::Context& context, std::atomic<bool>* running) {
    *running = true;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!context.cancelled() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// What the GUI side saw, in the order it saw it.
struct Log {
    QStringList events;
    bool allOnGuiThread = true;

    void add(const QString& event) {
        events << event;
        allOnGuiThread = allOnGuiThread && QThread::currentThread() == qApp->thread();
    }
    void watch(dice::Job* job, const QString& name) {
        QObject::connect(job, &dice::Job::started, [this, name] { add(name + ":started"); });
        QObject::connect(job, &dice::Job::done, [this, name] { add(name + ":done"); });
    }
};

} // namespace

class TestOwnerThread : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runsInOrderOffTheGuiThread() {
        dice::OwnerThread owner(QStringLiteral("test"));
        Log log;
        std::mutex mutex;
        std::vector<int> ran;
        std::vector<QThread*> threads;
        QList<QPointer<dice::Job>> jobs;
        for (int i = 0; i < 3; ++i) {
            auto* job = new dice::Job;
            jobs << job;
            log.watch(job, QString::number(i));
            owner.post(job, QString(), dice::OwnerThread::InFlight::Stops,
                       [i, &mutex, &ran, &threads, &log](const auto& context) {
                           {
                               const std::lock_guard<std::mutex> lock(mutex);
                               ran.push_back(i);
                               threads.push_back(QThread::currentThread());
                           }
                           context.deliver([i, &log] { log.add(QString("%1:result").arg(i)); });
                       });
        }
        QVERIFY(owner.busy());
        QTRY_VERIFY(!owner.busy());
        QCOMPARE(log.events,
                 (QStringList{"0:started", "0:result", "0:done", "1:started", "1:result", "1:done",
                              "2:started", "2:result", "2:done"}));
        QVERIFY(log.allOnGuiThread);
        const std::lock_guard<std::mutex> lock(mutex);
        QCOMPARE(ran, (std::vector<int>{0, 1, 2}));
        for (QThread* thread : threads) {
            QCOMPARE(thread, threads.front());
            QVERIFY(thread != qApp->thread());
        }
        QCOMPARE(threads.front()->objectName(), QStringLiteral("test"));
        // Done jobs delete themselves.
        QTRY_VERIFY(
            std::all_of(jobs.begin(), jobs.end(), [](const auto& j) { return j.isNull(); }));
    }

    // A newer request with the tag: the one waiting is superseded (never runs, only its done
    // arrives), the one in flight is cancelled and, since it stops, still reports; another tag
    // is left alone.
    void newerRequestSupersedesOlder() {
        dice::OwnerThread owner(QStringLiteral("test"));
        Log log;
        std::atomic<bool> firstRunning{false};
        std::atomic<bool> release{false};
        std::atomic<bool> secondRan{false};
        auto* first = new dice::Job;
        auto* second = new dice::Job;
        auto* other = new dice::Job;
        auto* third = new dice::Job;
        log.watch(first, "first");
        log.watch(second, "second");
        log.watch(other, "other");
        log.watch(third, "third");
        owner.post(first, "t", dice::OwnerThread::InFlight::Stops,
                   [&firstRunning, &release, &log](const auto& context) {
                       // Held until every request is posted, so the second cannot start early.
                       firstRunning = true;
                       while (!release.load())
                           std::this_thread::sleep_for(std::chrono::milliseconds(1));
                       const bool stopped = context.cancelled();
                       context.deliver([stopped, &log] {
                           log.add(stopped ? "first:stopped" : "first:not cancelled");
                       });
                   });
        QTRY_VERIFY(first->isStarted());
        QVERIFY(firstRunning.load());
        owner.post(second, "t", dice::OwnerThread::InFlight::Stops,
                   [&secondRan](const auto&) { secondRan = true; });
        owner.post(other, "u", dice::OwnerThread::InFlight::Stops,
                   [&log](const auto& context) { context.deliver([&log] { log.add("other"); }); });
        QVERIFY(first->isCancelled());
        QVERIFY(!second->isSuperseded());
        owner.post(third, "t", dice::OwnerThread::InFlight::Stops,
                   [&log](const auto& context) { context.deliver([&log] { log.add("third"); }); });
        QVERIFY(second->isSuperseded());
        QVERIFY(!other->isSuperseded() && !other->isCancelled());
        QVERIFY(!third->isCancelled());
        release = true;
        QTRY_VERIFY(!owner.busy());
        QVERIFY(!secondRan.load());
        QCOMPARE(log.events, (QStringList{"first:started", "first:stopped", "first:done",
                                          "second:done", "other:started", "other", "other:done",
                                          "third:started", "third", "third:done"}));
        QVERIFY(log.allOnGuiThread);
    }

    // Work that cannot stop runs to its end, but once superseded nothing it delivers arrives.
    void supersededWorkThatCannotStopDeliversNothing() {
        dice::OwnerThread owner(QStringLiteral("test"));
        Log log;
        std::atomic<bool> release{false};
        std::atomic<bool> firstEnded{false};
        auto* first = new dice::Job;
        auto* second = new dice::Job;
        log.watch(first, "first");
        log.watch(second, "second");
        owner.post(first, "t", dice::OwnerThread::InFlight::Dropped,
                   [&release, &firstEnded, &log](const auto& context) {
                       while (!release.load())
                           std::this_thread::sleep_for(std::chrono::milliseconds(1));
                       firstEnded = true;
                       context.deliver([&log] { log.add("first:result"); });
                   });
        QTRY_VERIFY(first->isStarted());
        owner.post(second, "t", dice::OwnerThread::InFlight::Dropped, [&log](const auto& context) {
            context.deliver([&log] { log.add("second:result"); });
        });
        release = true;
        QTRY_VERIFY(!owner.busy());
        QVERIFY(firstEnded.load());
        QCOMPARE(log.events, (QStringList{"first:started", "first:done", "second:started",
                                          "second:result", "second:done"}));
    }

    void cancelSkipsWaitingAndStopsInFlight() {
        dice::OwnerThread owner(QStringLiteral("test"));
        Log log;
        std::atomic<bool> running{false};
        std::atomic<bool> waitingRan{false};
        auto* inFlight = new dice::Job;
        auto* waiting = new dice::Job;
        log.watch(inFlight, "inFlight");
        log.watch(waiting, "waiting");
        owner.post(inFlight, QString(), dice::OwnerThread::InFlight::Stops,
                   [&running](const auto& context) { waitForCancel(context, &running); });
        owner.post(waiting, QString(), dice::OwnerThread::InFlight::Stops,
                   [&waitingRan](const auto&) { waitingRan = true; });
        QTRY_VERIFY(running.load());
        waiting->cancel();
        QVERIFY(waiting->isCancelled());
        QVERIFY(!waiting->isSuperseded());
        inFlight->cancel();
        QTRY_VERIFY(!owner.busy());
        QVERIFY(!waitingRan.load());
        QCOMPARE(log.events, (QStringList{"inFlight:started", "inFlight:done", "waiting:done"}));
    }

    // Destroying the owner while work runs: the work in flight is told to stop and waited for,
    // the waiting work never runs, chores still run on the thread, and nothing is delivered
    // afterwards.
    void destructionWhileBusy() {
        auto owner = std::make_unique<dice::OwnerThread>(QStringLiteral("test"));
        Log log;
        std::atomic<bool> running{false};
        std::atomic<bool> finished{false};
        std::atomic<bool> waitingRan{false};
        std::atomic<QThread*> choreThread{nullptr};
        QPointer<dice::Job> inFlight = new dice::Job;
        QPointer<dice::Job> waiting = new dice::Job;
        log.watch(inFlight, "inFlight");
        log.watch(waiting, "waiting");
        owner->post(inFlight, QString(), dice::OwnerThread::InFlight::Stops,
                    [&running, &finished, &log](const auto& context) {
                        waitForCancel(context, &running);
                        context.deliver([&log] { log.add("inFlight:result"); });
                        finished = true;
                    });
        owner->post(waiting, QString(), dice::OwnerThread::InFlight::Stops,
                    [&waitingRan](const auto&) { waitingRan = true; });
        owner->post([&choreThread] { choreThread = QThread::currentThread(); });
        QTRY_VERIFY(running.load());
        QCoreApplication::processEvents();
        const QStringList before = log.events;
        QElapsedTimer clock;
        clock.start();
        owner.reset();
        QVERIFY2(clock.elapsed() < 10000, "the work in flight was not told to stop");
        QVERIFY(finished.load());
        QVERIFY(!waitingRan.load());
        QVERIFY(choreThread.load() != nullptr);
        QVERIFY(choreThread.load() != qApp->thread());
        QVERIFY(inFlight.isNull());
        QVERIFY(waiting.isNull());
        QTest::qWait(50);
        QCOMPARE(log.events, before);
    }

    // A job deleted before it is done is cancelled, and its results go nowhere.
    void deletingAJobCancelsIt() {
        dice::OwnerThread owner(QStringLiteral("test"));
        std::atomic<bool> running{false};
        std::atomic<bool> sawCancel{false};
        int delivered = 0;
        auto* job = new dice::Job;
        owner.post(job, QString(), dice::OwnerThread::InFlight::Stops,
                   [&running, &sawCancel, &delivered](const auto& context) {
                       waitForCancel(context, &running);
                       sawCancel = context.cancelled();
                       context.deliver([&delivered] { ++delivered; });
                   });
        QTRY_VERIFY(running.load());
        delete job;
        QTRY_VERIFY(!owner.busy());
        QVERIFY(sawCancel.load());
        QCOMPARE(delivered, 0);
    }
};

QTEST_GUILESS_MAIN(TestOwnerThread)
#include "tst_owner_thread.moc"
