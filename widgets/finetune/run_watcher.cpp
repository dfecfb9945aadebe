// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/finetune/run_watcher.h"
#include "widgets/finetune/json_fields.h"

#include "widgets/finetune/trainer_process.h"

#include <QDir>
#include <QFile>
#include <QTimer>

#include <unistd.h>

namespace dice {

RunWatcher::RunWatcher(const QString& folder, QObject* parent)
    : QObject(parent)
    , m_folder(QDir::cleanPath(folder))
    , m_run(QFile::encodeName(m_folder).toStdString())
    , m_color(Qt::darkBlue)
    , m_timer(new QTimer(this)) {
    m_timer->setInterval(500);
    connect(m_timer, &QTimer::timeout, this, &RunWatcher::pollNow);
    m_timer->start();
}

QString RunWatcher::name() const {
    return QDir(m_folder).dirName();
}

void RunWatcher::setInterval(int ms) {
    m_timer->setInterval(ms);
}

bool RunWatcher::pollNow() {
    const bool changed = m_run.poll();
    if (changed)
        Q_EMIT this->changed();
    return changed;
}

QString RunWatcher::state() const {
    const auto& status = m_run.status();
    if (!status.is_object() || !status.contains("state") || !status["state"].is_string())
        return QString();
    return QString::fromStdString(status["state"].get<std::string>());
}

bool RunWatcher::trainerAlive() const {
    const auto& status = m_run.status();
    if (!status.is_object() || !status.contains("pid") || !status["pid"].is_number_integer())
        return false;
    char here[256] = {};
    const std::string host = runjson::text(status, "host").toStdString();
    if (!host.empty() && (::gethostname(here, sizeof here - 1) != 0 || host != here))
        return false;
    return TrainerProcess::alive(status["pid"].get<qint64>());
}

bool RunWatcher::activeState(const QString& state) {
    return state == QLatin1String("starting") || state == QLatin1String("sampling") ||
           state == QLatin1String("judging") || state == QLatin1String("updating") ||
           state == QLatin1String("evaluating");
}

} // namespace dice
