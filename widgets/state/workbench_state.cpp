// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/workbench_state.h"

#include "widgets/state/model_runner.h"

namespace dice {

WorkbenchState::WorkbenchState(QObject* parent)
    : QObject(parent)
    , m_runner(new ModelRunner(this)) {
    connect(m_runner, &ModelRunner::loaded, this,
            [this] { setModelName(QString::fromStdString(m_runner->summary().name)); });
    connect(m_runner, &ModelRunner::unloaded, this, [this] { setModelName(QString()); });
}

void WorkbenchState::setSuite(TaskSuite suite) {
    m_suite = std::move(suite);
    m_current.reset();
    Q_EMIT suiteChanged();
    Q_EMIT currentTaskChanged();
}

void WorkbenchState::setCurrentTask(const QString& name) {
    const Task* task = m_suite.find(name.toStdString());
    if (!task) {
        if (!m_current)
            return;
        m_current.reset();
    } else {
        if (m_current && m_current->name == task->name)
            return;
        m_current = *task;
    }
    Q_EMIT currentTaskChanged();
}

void WorkbenchState::setModelName(const QString& name) {
    if (name == m_modelName)
        return;
    m_modelName = name;
    Q_EMIT modelChanged();
}

void WorkbenchState::setSystemInfo(const SystemInfo& info) {
    m_system = info;
    Q_EMIT systemInfoChanged();
}

} // namespace dice
