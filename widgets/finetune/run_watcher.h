// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/train/run_folder.h"

#include <QColor>
#include <QObject>
#include <QString>

class QTimer;

namespace dice {

// One run folder followed from the GUI thread, the way TensorBoard follows logs: every interval
// it reads what the trainer appended (a few bytes a step; rollouts are read only when asked for)
// and says when anything changed. The trainer may be a child of this workbench, of another one,
// or on another machine with the folder copied back.
class RunWatcher : public QObject {
    Q_OBJECT
public:
    explicit RunWatcher(const QString& folder, QObject* parent = nullptr);

    QString folder() const { return m_folder; }
    // The folder's own name, for legends and lists.
    QString name() const;
    const RlRunFollower& run() const { return m_run; }

    // The colour of the run in overlaid curves.
    QColor color() const { return m_color; }
    void setColor(const QColor& color) { m_color = color; }

    void setInterval(int ms);
    // Reads now; true when anything changed.
    bool pollNow();

    // The trainer's state from status.json ("" before it wrote one), and whether the process
    // that wrote it still runs on this machine (unknown for another host: false).
    QString state() const;
    bool trainerAlive() const;
    // True for the states in which a trainer is at work.
    static bool activeState(const QString& state);

Q_SIGNALS:
    void changed();

private:
    QString m_folder;
    RlRunFollower m_run;
    QColor m_color;
    QTimer* m_timer;
};

} // namespace dice
