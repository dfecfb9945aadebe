// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>

// A 5 ms timer on the GUI thread: how often it fired and the longest wait between two firings,
// that is, the longest the event loop was kept from serving the user while work ran elsewhere.
class EventLoopProbe {
public:
    EventLoopProbe() {
        m_timer.setInterval(5);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const qint64 now = m_clock.elapsed();
            m_longest = std::max(m_longest, now - m_last);
            m_last = now;
            ++m_ticks;
        });
    }

    void start() {
        m_clock.start();
        m_timer.start();
    }
    void stop() {
        m_timer.stop();
        m_elapsed = m_clock.elapsed();
    }
    int ticks() const { return m_ticks; }
    qint64 longestGapMs() const { return m_longest; }
    qint64 elapsedMs() const { return m_elapsed; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_longest = 0;
    qint64 m_elapsed = 0;
    int m_ticks = 0;
};
